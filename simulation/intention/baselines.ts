// The bars the junction-intention head must clear on held-out forks: a uniform choice, a prior over turn
// classes (straight / left / right) counted on the training forks, and IDM's default, the straightest branch.
import { BRANCH_FEATURES, DOMAIN_FEATURES, MAX_BRANCHES, STRAIGHTEST_FEATURE } from './branchFeatures.ts';
import type { ForkSet } from './forkSet.ts';

/** Mean negative log-likelihood (nats per fork) and top-1 accuracy of branch probabilities on a set. */
export interface ChoiceScore {
  forks: number;
  nll: number;
  accuracy: number;
}

export function scoreChoices(set: ForkSet, probs: Float32Array): ChoiceScore {
  let nll = 0;
  let hits = 0;
  for (let i = 0; i < set.count; i++) {
    const o = i * MAX_BRANCHES;
    nll -= Math.log(Math.max(1e-9, probs[o + set.chosen[i]]));
    let best = 0;
    for (let k = 1; k < set.branches[i]; k++) if (probs[o + k] > probs[o + best]) best = k;
    if (best === set.chosen[i]) hits++;
  }
  const n = Math.max(1, set.count);
  return { forks: set.count, nll: nll / n, accuracy: hits / n };
}

export function uniformChoice(set: ForkSet): Float32Array {
  const p = new Float32Array(set.count * MAX_BRANCHES);
  for (let i = 0; i < set.count; i++)
    p.fill(1 / set.branches[i], i * MAX_BRANCHES, i * MAX_BRANCHES + set.branches[i]);
  return p;
}

/** Weights of the turn classes, real and synthetic forks counted apart (+1 each: Laplace). */
export interface TurnPrior {
  real: number[];
  synthetic: number[];
}

/** How often each turn class was taken where it was offered, per domain, over the training forks. */
export function fitTurnPrior(train: ForkSet): TurnPrior {
  const taken = { real: [1, 1, 1], synthetic: [1, 1, 1] };
  const offered = { real: [1, 1, 1], synthetic: [1, 1, 1] };
  for (let i = 0; i < train.count; i++) {
    const d = train.real[i] ? 'real' : 'synthetic';
    for (let k = 0; k < train.branches[i]; k++) offered[d][train.turnClass[i * MAX_BRANCHES + k]]++;
    taken[d][train.turnClass[i * MAX_BRANCHES + train.chosen[i]]]++;
  }
  const rate = (d: 'real' | 'synthetic') => taken[d].map((t, c) => t / offered[d][c]);
  return { real: rate('real'), synthetic: rate('synthetic') };
}

/** Each branch's probability ∝ its turn class's take rate, within the fork. */
export function turnPriorChoice(prior: TurnPrior, set: ForkSet): Float32Array {
  const p = new Float32Array(set.count * MAX_BRANCHES);
  for (let i = 0; i < set.count; i++) {
    const w = set.real[i] ? prior.real : prior.synthetic;
    const o = i * MAX_BRANCHES;
    let sum = 0;
    for (let k = 0; k < set.branches[i]; k++) sum += p[o + k] = w[set.turnClass[o + k]];
    for (let k = 0; k < set.branches[i]; k++) p[o + k] /= sum;
  }
  return p;
}

/**
 * IDM's choice without a goal: the straightest branch (its feature flag), all the mass on it (its NLL is
 * not finite where it is wrong: compare its accuracy).
 */
export function straightestChoice(set: ForkSet): Float32Array {
  const p = new Float32Array(set.count * MAX_BRANCHES);
  for (let i = 0; i < set.count; i++)
    for (let k = 0; k < set.branches[i]; k++)
      if (set.x[(i * MAX_BRANCHES + k) * BRANCH_FEATURES + half(set, i) + STRAIGHTEST_FEATURE] === 1)
        p[i * MAX_BRANCHES + k] = 1;
  return p;
}

/** Offset of fork i's domain half in its branch features. */
function half(set: ForkSet, i: number): number {
  return set.real[i] ? DOMAIN_FEATURES : 0;
}
