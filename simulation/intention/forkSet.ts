// The logged fork choices of many scenarios as one training or test set for the junction-intention head:
// branch features, branch counts, the branch taken, a weight, and each branch's turn class.
import { mapIndex } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';
import {
  BRANCH_FEATURES,
  branchFeatures,
  branchTurns,
  isSyntheticSource,
  MAX_BRANCHES,
} from './branchFeatures.ts';
import { type ForkChoiceConfig, DEFAULT_FORK_CHOICE, forkChoices } from './forkChoices.ts';
import type { ForkBatch } from './intentionModel.ts';

/** Turn classes: straight within ±STRAIGHT_RAD, else left (positive) or right. */
export const TURN = { straight: 0, left: 1, right: 2 } as const;
const STRAIGHT_RAD = 0.5;

export interface ForkSet extends ForkBatch {
  /** Turn class of each branch slot [count, MAX_BRANCHES] (−1 unused). */
  turnClass: Int8Array;
  /** 1 where the fork is on a real map. */
  real: Uint8Array;
}

export function turnClassOf(turnRad: number): number {
  return turnRad > STRAIGHT_RAD ? TURN.left : turnRad < -STRAIGHT_RAD ? TURN.right : TURN.straight;
}

/** Every fork choice of the scenarios; forks on real maps weigh `realWeight`, synthetic ones 1. */
export function forkSet(
  scenarios: readonly Scenario[],
  realWeight = 1,
  cfg: ForkChoiceConfig = DEFAULT_FORK_CHOICE,
): ForkSet {
  const rows: { s: Scenario; fork: number; branches: Int32Array; chosen: number }[] = [];
  for (const s of scenarios)
    for (const c of forkChoices(s, cfg)) if (c.chosen < MAX_BRANCHES) rows.push({ s, ...c });
  const n = rows.length;
  const set: ForkSet = {
    count: n,
    x: new Float32Array(n * MAX_BRANCHES * BRANCH_FEATURES),
    branches: new Int32Array(n),
    chosen: new Int32Array(n),
    weight: new Float32Array(n),
    turnClass: new Int8Array(n * MAX_BRANCHES).fill(-1),
    real: new Uint8Array(n),
  };
  rows.forEach((r, i) => {
    const m = mapIndex(r.s.map);
    const synthetic = isSyntheticSource(r.s.source);
    branchFeatures(m, r.fork, r.branches, synthetic, set.x, i * MAX_BRANCHES * BRANCH_FEATURES);
    set.branches[i] = Math.min(r.branches.length, MAX_BRANCHES);
    set.chosen[i] = r.chosen;
    set.real[i] = synthetic ? 0 : 1;
    set.weight[i] = synthetic ? 1 : realWeight;
    const turns = branchTurns(m, r.fork, r.branches);
    for (let k = 0; k < set.branches[i]; k++) set.turnClass[i * MAX_BRANCHES + k] = turnClassOf(turns[k]);
  });
  return set;
}

/** The rows of a set where keep(i) holds, as a set of their own. */
export function subset(set: ForkSet, keep: (i: number) => boolean): ForkSet {
  const rows = Array.from({ length: set.count }, (_, i) => i).filter(keep);
  const S = MAX_BRANCHES * BRANCH_FEATURES;
  const out: ForkSet = {
    count: rows.length,
    x: new Float32Array(rows.length * S),
    branches: new Int32Array(rows.length),
    chosen: new Int32Array(rows.length),
    weight: new Float32Array(rows.length),
    turnClass: new Int8Array(rows.length * MAX_BRANCHES),
    real: new Uint8Array(rows.length),
  };
  rows.forEach((k, i) => {
    out.x.set(set.x.subarray(k * S, (k + 1) * S), i * S);
    out.turnClass.set(set.turnClass.subarray(k * MAX_BRANCHES, (k + 1) * MAX_BRANCHES), i * MAX_BRANCHES);
    out.branches[i] = set.branches[k];
    out.chosen[i] = set.chosen[k];
    out.weight[i] = set.weight[k];
    out.real[i] = set.real[k];
  });
  return out;
}

/** The rows of a, then those of b, as one set. */
export function concatSets(a: ForkSet, b: ForkSet): ForkSet {
  const cat = <T extends Float32Array | Int32Array | Int8Array | Uint8Array>(x: T, y: T): T => {
    const out = new (x.constructor as new (n: number) => T)(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  return {
    count: a.count + b.count,
    x: cat(a.x, b.x),
    branches: cat(a.branches, b.branches),
    chosen: cat(a.chosen, b.chosen),
    weight: cat(a.weight, b.weight),
    turnClass: cat(a.turnClass, b.turnClass),
    real: cat(a.real, b.real),
  };
}
