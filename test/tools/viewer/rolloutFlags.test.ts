// The viewer's rollout highlights (tools/viewer/scenarioView.ts rolloutFlags): on a straight road, a vehicle
// driven into the cyclist is flagged colliding (both of them) from that step on, a vehicle leaving the road
// off-road from its step on, a cyclist never off-road; the sim metric agrees that the ego collided.
import { describe, expect, it } from 'vitest';
import { scenarioMetrics } from '../../../simulation/metrics/scenarioMetrics.ts';
import { AGENT_FLAG } from '../../../tools/viewer/viewerSource.ts';
import { rolloutFlags } from '../../../tools/viewer/scenarioView.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

describe('rolloutFlags', () => {
  it('flags collisions and off-road vehicles per agent and step', () => {
    const s = straightRoadScenario({ numAgents: 3, numSteps: 21 });
    const T = s.numSteps;
    const r = structuredClone(s.agents);
    for (let t = 15; t < T; t++) {
      // The ego (agent 0) sits on the cyclist (agent 2).
      r.x[t] = r.x[2 * T + t];
      r.y[t] = r.y[2 * T + t];
    }
    for (let t = 12; t < T; t++) r.y[T + t] = 20; // vehicle 1 drives off the road (edges at y −1.75, 5.25)
    const f = rolloutFlags(s, r);
    const at = (a: number, t: number) => f[a * T + t];
    for (let t = 0; t < T; t++) {
      expect(at(0, t), `ego step ${t}`).toBe(t >= 15 ? AGENT_FLAG.collision : 0);
      expect(at(2, t), `cyclist step ${t}`).toBe(t >= 15 ? AGENT_FLAG.collision : 0);
      expect(at(1, t), `vehicle step ${t}`).toBe(t >= 12 ? AGENT_FLAG.offroad : 0);
    }
    expect(scenarioMetrics(s, r).collision_rate).toBe(1);
    // The logged tracks flag nothing.
    expect(rolloutFlags(s, s.agents).every((x) => x === 0)).toBe(true);
  });
});
