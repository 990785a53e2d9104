// What the junction-intention head sees of each branch of a fork: its turn angle and rank among the
// branches, the lanes around it, the agent's type and the map's origin — map facts only, no future.
import { wrapAngle } from '../../core/geometry/pose.ts';
import { lanePointAt, type MapIndex } from '../map/mapIndex.ts';

/** Branches scored per fork; a fork with more keeps the first MAX_BRANCHES (none in the maps here). */
export const MAX_BRANCHES = 4;

/**
 * Per branch, in the half of the vector of its map's domain (synthetic first, real second; the other half
 * zero), so that one linear score is a conditional logit per domain: cos θ, sin θ (θ: heading change from
 * the fork's end to the branch 30 m on, or its end; left positive), is the leftmost / rightmost /
 * straightest branch, leftmost taken from a lane with no lane to its left, rightmost from one with none
 * to its right, in an intersection, has successors.
 */
export const DOMAIN_FEATURES = 9;
export const BRANCH_FEATURES = 2 * DOMAIN_FEATURES;
/** Index of the "straightest branch" flag (within a domain's half). */
export const STRAIGHTEST_FEATURE = 4;

/** How far along a branch its heading is read, metres (a long real lane may curve far on). */
const TURN_READ_M = 30;

const pt = { x: 0, y: 0, heading: 0 };

function headingAt(m: MapIndex, li: number, s: number): number {
  lanePointAt(m, li, s, pt);
  return pt.heading;
}

/** Turn angle (rad, left positive) of each branch of fork lane `fork`. */
export function branchTurns(m: MapIndex, fork: number, branches: ArrayLike<number>): Float64Array {
  const h0 = headingAt(m, fork, m.laneLength[fork]);
  return Float64Array.from(branches, (c) =>
    wrapAngle(headingAt(m, c, Math.min(m.laneLength[c], TURN_READ_M)) - h0),
  );
}

/** Write the features of fork `fork`'s branches at out[at …] (MAX_BRANCHES × BRANCH_FEATURES, unused zero). */
export function branchFeatures(
  m: MapIndex,
  fork: number,
  branches: ArrayLike<number>,
  synthetic: boolean,
  out: Float32Array,
  at: number,
): void {
  const n = Math.min(branches.length, MAX_BRANCHES);
  const turn = branchTurns(m, fork, branches);
  let left = 0;
  let right = 0;
  let straight = 0;
  for (let k = 1; k < n; k++) {
    if (turn[k] > turn[left]) left = k;
    if (turn[k] < turn[right]) right = k;
    if (Math.abs(turn[k]) < Math.abs(turn[straight])) straight = k;
  }
  out.fill(0, at, at + MAX_BRANCHES * BRANCH_FEATURES);
  for (let k = 0; k < n; k++) {
    const c = branches[k];
    const o = at + k * BRANCH_FEATURES + (synthetic ? 0 : DOMAIN_FEATURES);
    out[o] = Math.cos(turn[k]);
    out[o + 1] = Math.sin(turn[k]);
    out[o + 2] = k === left ? 1 : 0;
    out[o + 3] = k === right ? 1 : 0;
    out[o + STRAIGHTEST_FEATURE] = k === straight ? 1 : 0;
    out[o + 5] = k === left && m.leftNeighbor[fork] < 0 ? 1 : 0;
    out[o + 6] = k === right && m.rightNeighbor[fork] < 0 ? 1 : 0;
    out[o + 7] = m.laneInIntersection[c];
    out[o + 8] = m.successors[c].length > 0 ? 1 : 0;
  }
}

/** Whether a scenario's map and traffic come from drivekit's generators (towns, long-tail kinds). */
export function isSyntheticSource(source: string): boolean {
  return source === 'synthetic' || source.startsWith('longtail');
}
