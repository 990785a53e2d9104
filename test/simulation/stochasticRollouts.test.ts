// Seeded stochastic rollouts: N rollouts of a scenario batched in one environment; the same seed gives
// the same rollouts however the copies are batched, another seed others; the deterministic forms stay.
import { describe, expect, it } from 'vitest';
import { AGENTS, SANITY_AGENTS } from '../../simulation/agents/registry.ts';
import { logReplayRollouts } from '../../simulation/metrics/wosac/rollouts.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import { straightRoadScenario } from './fixtures.ts';

const scenario = () => {
  const s = straightRoadScenario({ numAgents: 4, numSteps: 31 });
  s.id = 'road-a';
  return s;
};
const other = () => ({ ...straightRoadScenario({ numAgents: 3, numSteps: 31 }), id: 'road-b' });

describe('stochastic rollouts', () => {
  for (const name of ['idm', 'cv'] as const) {
    it(`${name}: same seed → identical rollouts, whatever the batching; another seed → others`, () => {
      const run = (seed: number, batchAgents?: number) =>
        rolloutScenarios([scenario(), other()], () => AGENTS[name]({ seed }), { rollouts: 6, batchAgents });
      const a = run(7);
      const b = run(7, 5); // copies of a scenario spread over several environments
      const c = run(8);
      for (let i = 0; i < 2; i++) {
        expect(a[i].samples.numRollouts).toBe(6);
        expect(a[i].samples.numFutureSteps).toBe(20);
        expect(Array.from(b[i].samples.x)).toEqual(Array.from(a[i].samples.x));
        expect(Array.from(b[i].samples.yaw)).toEqual(Array.from(a[i].samples.yaw));
        expect(Array.from(c[i].samples.x)).not.toEqual(Array.from(a[i].samples.x));
      }
      // The rollouts of one scenario differ from each other: they form a distribution.
      const r = a[0].samples;
      const per = r.agentRows.length * r.numFutureSteps;
      expect(Array.from(r.x.subarray(0, per))).not.toEqual(Array.from(r.x.subarray(per, 2 * per)));
    });
  }

  it('the deterministic forms give N identical rollouts equal to the single one', () => {
    for (const name of ['replay', 'cv', 'idm']) {
      const one = rolloutScenarios([scenario()], AGENTS[name]);
      const four = rolloutScenarios([scenario()], AGENTS[name], { rollouts: 4 });
      const copied = rolloutScenarios([scenario()], AGENTS[name], { rollouts: 4, replicate: true });
      expect(Array.from(copied[0].samples.x)).toEqual(Array.from(four[0].samples.x));
      const r = four[0].samples;
      const per = r.agentRows.length * r.numFutureSteps;
      for (let n = 0; n < 4; n++)
        expect(Array.from(r.x.subarray(n * per, (n + 1) * per))).toEqual(Array.from(one[0].samples.x));
      expect(four[0].metrics.ade_m).toBeCloseTo(one[0].metrics.ade_m, 9);
    }
  });

  it('replay samples are the logged future; stand-still keeps every agent where it is', () => {
    const s = scenario();
    s.agents.valid.fill(0, 1 * s.numSteps + 20, 2 * s.numSteps); // agent 1 leaves the log at step 20
    const [rep] = rolloutScenarios([s], AGENTS.replay, { rollouts: 2 });
    const log = logReplayRollouts(s, 2);
    expect(Array.from(rep.samples.agentRows)).toEqual(Array.from(log.agentRows));
    for (const k of ['x', 'y', 'z', 'yaw'] as const)
      expect(Array.from(rep.samples[k])).toEqual(Array.from(log[k]));
    const T = rep.samples.numFutureSteps;
    const [still] = rolloutScenarios([s], SANITY_AGENTS.still);
    const controlled = [0, 1, 2, 3].filter((a) => s.controlled[a]);
    expect(controlled.length).toBeGreaterThan(0);
    for (const a of controlled)
      expect(still.samples.x[a * T + T - 1]).toBe(s.agents.x[a * s.numSteps + s.currentStep]);
  });

  it('a bad rollout count is a clear error', () => {
    expect(() => rolloutScenarios([scenario()], AGENTS.cv, { rollouts: 0 })).toThrow(
      /--rollouts: must be a whole number ≥ 1, got 0/,
    );
  });
});
