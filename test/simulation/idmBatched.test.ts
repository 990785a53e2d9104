// The IDM agent's batched neighbour scan (simulation/agents/idmScan.ts) against its per-neighbour reference
// (idmInteraction.ts): the same trajectories bit for bit on a seeded town, deterministic and stochastic.
import { describe, expect, it } from 'vitest';
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { AGENTS } from '../../simulation/agents/registry.ts';
import type { NoisyPolicy } from '../../simulation/agents/stochastic.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import { generateTown } from '../../simulation/town/town.ts';

function townScenario(seed: number) {
  const town = generateTown({ seed }, 120);
  return { ...town.scenario, controlled: new Uint8Array(town.traffic.tracks.ids.length).fill(1) };
}

/** The IdmPolicy inside a registry agent (the stochastic form wraps it in a NoisyPolicy). */
function idmOf(p: IdmPolicy | NoisyPolicy): IdmPolicy {
  return ('base' in p ? p.base : p) as IdmPolicy;
}

describe('batched IDM scan', () => {
  it.each([
    ['deterministic', undefined],
    ['stochastic', 5],
  ])('%s: the same rollouts as the per-neighbour reference on a town', (_, seed) => {
    const scenario = townScenario(3);
    const run = (batched: boolean) =>
      rolloutScenarios(
        [scenario],
        () => {
          const p = AGENTS.idm(seed === undefined ? {} : { seed }) as IdmPolicy | NoisyPolicy;
          idmOf(p).batched = batched;
          return p;
        },
        { rollouts: seed === undefined ? 1 : 3 },
      );
    const [ref] = run(false);
    const [fast] = run(true);
    expect(idmOf(AGENTS.idm() as IdmPolicy).batched).toBe(true); // the default is the batched scan
    const r = ref.samples;
    const f = fast.samples;
    // The town's traffic interacts (leaders, lane changes, yields): the rollout is not a free-road drive.
    expect(r.x.length).toBeGreaterThan(1000);
    for (const k of ['x', 'y', 'z', 'yaw'] as const) expect(Array.from(f[k])).toEqual(Array.from(r[k]));
  });

  it('with leaders on the planned route only (the log expert’s option): the same rollouts both ways, and not IDM’s', () => {
    const scenario = townScenario(3);
    const run = (batched: boolean, leaderOnRoute: boolean) =>
      rolloutScenarios(
        [scenario],
        () => {
          const p = new IdmPolicy({ leaderOnRoute });
          p.batched = batched;
          return p;
        },
        { rollouts: 1 },
      )[0].samples;
    const ref = run(false, true);
    const fast = run(true, true);
    for (const k of ['x', 'y', 'yaw'] as const) expect(Array.from(fast[k])).toEqual(Array.from(ref[k]));
    // The option changes who is a leader somewhere in the town's traffic.
    const plain = run(true, false);
    expect(Array.from(fast.x)).not.toEqual(Array.from(plain.x));
  });

  it.each([
    // Some side-by-side merge in these towns' traffic gets a yield it did not have.
    ['merge yielding (the probe’s and the log expert’s option)', 'mergeYield', [3, 213]],
    // Some conflict in these towns' curves is measured differently (town 212 holds the parked car of the option's doc).
    ['conflicts measured in the plan point’s frame (the same)', 'planFrameExtents', [3, 212]],
  ] as const)('with %s: the same rollouts both ways, and not IDM’s', (_, option, seeds) => {
    const runOn = (scenario: ReturnType<typeof townScenario>, batched: boolean, on: boolean) =>
      rolloutScenarios(
        [scenario],
        () => {
          const p = new IdmPolicy({ [option]: on, leaderOnRoute: true });
          p.batched = batched;
          return p;
        },
        { rollouts: 1 },
      )[0].samples;
    let changed = 0;
    for (const seed of seeds) {
      const scenario = townScenario(seed);
      const ref = runOn(scenario, false, true);
      const fast = runOn(scenario, true, true);
      for (const k of ['x', 'y', 'yaw'] as const) expect(Array.from(fast[k])).toEqual(Array.from(ref[k]));
      const plain = runOn(scenario, true, false);
      if (Array.from(fast.x).some((v, i) => v !== plain.x[i])) changed++;
    }
    expect(changed).toBeGreaterThan(0);
  });
});
