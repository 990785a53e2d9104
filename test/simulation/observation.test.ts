// Agent observations on the fixture road, checked value by value (own state, neighbours, lane and edge
// points in the agent's frame), and unchanged when the whole scene is rotated and shifted.
import { describe, expect, it } from 'vitest';
import { SimEnv } from '../../simulation/env.ts';
import { AGENT_FEATURES, LANE_FEATURES, observationOffsets, Observer } from '../../simulation/observation.ts';
import { LIGHT, type Scenario } from '../../simulation/scenario.ts';
import { straightRoadScenario } from './fixtures.ts';

/** The scenario turned by `angle` about the origin and shifted: observations must not change. */
function moved(s: Scenario, angle: number, tx: number, ty: number): Scenario {
  const c = Math.cos(angle);
  const sn = Math.sin(angle);
  const turnXy = (xy: Float32Array) => {
    const out = new Float32Array(xy.length);
    for (let i = 0; i < xy.length; i += 2) {
      out[i] = c * xy[i] - sn * xy[i + 1] + tx;
      out[i + 1] = sn * xy[i] + c * xy[i + 1] + ty;
    }
    return out;
  };
  const a = {
    ...s.agents,
    x: s.agents.x.slice(),
    y: s.agents.y.slice(),
    yaw: s.agents.yaw.slice(),
    vx: s.agents.vx.slice(),
    vy: s.agents.vy.slice(),
  };
  for (let k = 0; k < a.x.length; k++) {
    [a.x[k], a.y[k]] = [
      c * s.agents.x[k] - sn * s.agents.y[k] + tx,
      sn * s.agents.x[k] + c * s.agents.y[k] + ty,
    ];
    [a.vx[k], a.vy[k]] = [c * s.agents.vx[k] - sn * s.agents.vy[k], sn * s.agents.vx[k] + c * s.agents.vy[k]];
    a.yaw[k] = s.agents.yaw[k] + angle;
  }
  const map = {
    ...s.map,
    lanes: s.map.lanes.map((l) => ({ ...l, xy: turnXy(l.xy) })),
    roadEdges: s.map.roadEdges.map((f) => ({ ...f, xy: turnXy(f.xy) })),
    drivableAreas: s.map.drivableAreas.map((f) => ({ ...f, xy: turnXy(f.xy) })),
    trafficLights: s.map.trafficLights.map((l) => ({
      ...l,
      stopX: c * l.stopX - sn * l.stopY + tx,
      stopY: sn * l.stopX + c * l.stopY + ty,
    })),
  };
  return {
    ...s,
    agents: a,
    map,
    goalX: Float32Array.from(s.goalX, (gx, i) => c * gx - sn * s.goalY[i] + tx),
    goalY: Float32Array.from(s.goalX, (gx, i) => sn * gx + c * s.goalY[i] + ty),
  };
}

describe('observations', () => {
  it('describe the agent, its neighbours and the road in its own frame', () => {
    const s = straightRoadScenario({ numAgents: 3, spacingM: 20 });
    s.map.trafficLights[0].states.fill(LIGHT.red);
    const env = new SimEnv([s]);
    const ob = new Observer({ agents: 4, lanePoints: 8, edgePoints: 4, radiusM: 30 });
    const { agents, obs } = ob.observe(env);
    expect(Array.from(agents)).toEqual([0]);
    expect(obs.length).toBe(ob.size);
    const off = observationOffsets(ob.cfg);
    // Own: speed 10 m/s forward, a 4.5 × 2 vehicle, goal 190 − 20 = 170 m ahead.
    expect(Array.from(obs.subarray(0, 12))).toEqual([10, 10, 0, 4.5, 2, 1, 0, 0, 0, 170, 0, 1]);
    // Nearest agent: 20 m ahead, same heading and speed; the second 40 m ahead is beyond 30 m.
    const a0 = obs.subarray(off.agents, off.agents + AGENT_FEATURES);
    expect(Array.from(a0)).toEqual([1, 20, 0, 1, 0, 10, 0, 4.5, 2, 0]);
    expect(obs[off.agents + AGENT_FEATURES]).toBe(0);
    // Lane points: the closest is on the ego's own lane (under it), on a red-signal lane.
    const l0 = obs.subarray(off.lanes, off.lanes + LANE_FEATURES);
    expect(l0[0]).toBe(1);
    expect(Math.hypot(l0[1], l0[2])).toBeLessThanOrEqual(1.0001);
    expect(l0[3]).toBeCloseTo(1, 6);
    expect(l0[5]).toBe(1);
    // Road-edge points: 1.75 m to the right.
    expect(obs[off.edges]).toBe(1);
    expect(obs[off.edges + 2]).toBeCloseTo(-1.75, 5);
  });

  it('do not change when the whole scene is rotated and shifted', () => {
    const s = straightRoadScenario({ numAgents: 3, spacingM: 12 });
    const ob = new Observer({ agents: 4, lanePoints: 8, edgePoints: 4, radiusM: 30 });
    const a = ob.observe(new SimEnv([s])).obs;
    const b = ob.observe(new SimEnv([moved(s, 0.7, 1000, -300)])).obs;
    expect(b.length).toBe(a.length);
    const bad: number[] = [];
    for (let i = 0; i < a.length; i++) if (Math.abs(b[i] - a[i]) > 0.01) bad.push(i);
    expect(bad.map((i) => [i, a[i], b[i]])).toEqual([]);
  });
});
