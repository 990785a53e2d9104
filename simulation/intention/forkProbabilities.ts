// Turn probabilities at every fork of a scenario's map, once per scenario: from the exported intention head
// (onnxruntime), or from the turn-class prior counted on the training forks — the sampler's input.
import { type MapIndex, mapIndex } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';
import type { TurnPrior } from './baselines.ts';
import {
  BRANCH_FEATURES,
  branchFeatures,
  branchTurns,
  isSyntheticSource,
  MAX_BRANCHES,
} from './branchFeatures.ts';
import { turnClassOf } from './forkSet.ts';
import type { IntentionHead } from './intentionModel.ts';

/** Probabilities of each fork's branches (in successor order), by the fork's lane index. */
export type ForkProbabilities = Map<number, Float32Array>;

/** Lane indices of the forks of a map (lanes with ≥ 2 successors). */
export function mapForks(m: MapIndex): number[] {
  const out: number[] = [];
  for (let li = 0; li < m.laneCount; li++) if (m.successors[li].length > 1) out.push(li);
  return out;
}

/** Branch probabilities of every fork of s under the intention head (one batched run). */
export async function headForkProbabilities(head: IntentionHead, s: Scenario): Promise<ForkProbabilities> {
  const m = mapIndex(s.map);
  const forks = mapForks(m);
  const x = new Float32Array(forks.length * MAX_BRANCHES * BRANCH_FEATURES);
  const branches = new Int32Array(forks.length);
  const synthetic = isSyntheticSource(s.source);
  forks.forEach((li, i) => {
    branchFeatures(m, li, m.successors[li], synthetic, x, i * MAX_BRANCHES * BRANCH_FEATURES);
    branches[i] = Math.min(m.successors[li].length, MAX_BRANCHES);
  });
  const p = await head.probabilities(x, branches, forks.length);
  return new Map(
    forks.map((li, i) => [li, p.slice(i * MAX_BRANCHES, i * MAX_BRANCHES + m.successors[li].length)]),
  );
}

/** Branch probabilities of every fork of s under the turn-class prior of its domain. */
export function priorForkProbabilities(prior: TurnPrior, s: Scenario): ForkProbabilities {
  const m = mapIndex(s.map);
  const w = isSyntheticSource(s.source) ? prior.synthetic : prior.real;
  return new Map(
    mapForks(m).map((li) => {
      const p = Float32Array.from(branchTurns(m, li, m.successors[li]), (t) => w[turnClassOf(t)]);
      const sum = p.reduce((a, b) => a + b, 0);
      return [li, p.map((v) => v / sum)];
    }),
  );
}
