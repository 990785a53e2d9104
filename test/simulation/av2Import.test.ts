// AV2 annotation tracks → scenario on the shipped log: its 114 annotated tracks over 15.6 s plus the ego,
// the ego moving along its heading at a plausible speed, and off-road left unrated since it has no map.
import { expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { describeWithSharedData } from '../sharedData.ts';
import { readAv2Tracks } from '../../datasets/av2Tracks.ts';
import { ConstantVelocityPolicy } from '../../simulation/agents/constantVelocity.ts';
import { runPolicy } from '../../simulation/agents/policy.ts';
import { SimEnv } from '../../simulation/env.ts';
import { av2ToScenario } from '../../simulation/import/av2Scenario.ts';
import { scenarioMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { validateScenario } from '../../simulation/validateScenario.ts';

describeWithSharedData('AV2 annotation tracks → scenario', () => {
  const tracks = readAv2Tracks(realData('av2-7fab2350'));
  const s = av2ToScenario(tracks);

  it('has the 114 annotated tracks over 15.6 s plus the ego, and no map', () => {
    expect(tracks.trackUuids.length).toBe(114);
    expect(tracks.timestampsNs.length).toBe(156);
    const span = Number(tracks.timestampsNs[155] - tracks.timestampsNs[0]) * 1e-9;
    expect(span).toBeCloseTo(15.5, 0);
    validateScenario(s, 'av2');
    expect(s.agents.ids.length).toBe(115);
    expect(s.egoIndex).toBe(114);
    expect(s.dtS).toBeCloseTo(0.1, 3);
    expect(s.map.lanes.length + s.map.roadEdges.length + s.map.drivableAreas.length).toBe(0);
    // 11,364 cuboids: every (track, sweep) cell valid once.
    let cells = 0;
    for (let a = 0; a < 114; a++) for (let t = 0; t < 156; t++) cells += s.agents.valid[a * 156 + t];
    expect(cells).toBe(11364);
  });

  it('moves the ego along its heading at a plausible speed, in the city frame', () => {
    const T = s.numSteps;
    const e = s.egoIndex;
    for (let t = 1; t < T - 1; t++) {
      const k = e * T + t;
      const v = Math.hypot(s.agents.vx[k], s.agents.vy[k]);
      expect(v).toBeLessThan(25);
      if (v > 2)
        expect(Math.cos(Math.atan2(s.agents.vy[k], s.agents.vx[k]) - s.agents.yaw[k])).toBeGreaterThan(0.95);
    }
  });

  it('simulates with off-road left unrated (no map)', () => {
    const env = new SimEnv([s]);
    runPolicy(env, new ConstantVelocityPolicy());
    const m = scenarioMetrics(s, env.rolloutOf(0));
    expect(m.offroad_rate).toBeNaN();
    expect(m.ade_m).toBeGreaterThan(0);
  });
});
