// A vehicle's way along the lane graph: its pose at an offset from a lane centre, its planned lanes extended by
// random turns, and its path ahead sampled every metre (positions, headings, curve speed limits) for one step.
import { pointAtArcLength } from '../../../core/geometry/polyline.ts';
import type { Rng } from '../../rng.ts';
import type { TownLane } from '../laneGraph.ts';
import { smoothFrameAt } from '../polylineFrame.ts';

/** Scratch path samples of one vehicle: position, heading, distance from its centre and curve speed limit. */
export interface PathSamples {
  x: Float64Array;
  y: Float64Array;
  heading: Float64Array;
  dist: Float64Array;
  vMax: Float64Array;
}

export function allocatePathSamples(maxSamples: number): PathSamples {
  return {
    x: new Float64Array(maxSamples),
    y: new Float64Array(maxSamples),
    heading: new Float64Array(maxSamples),
    dist: new Float64Array(maxSamples),
    vMax: new Float64Array(maxSamples),
  };
}

/** Pose at arc length s on a lane, `offset` metres to the left of its centre (negative: right). */
export function poseOnLane(
  lanes: TownLane[],
  lane: number,
  s: number,
  offset: number,
): [number, number, number] {
  const l = lanes[lane];
  const [x, y, h] = smoothFrameAt(l.xy, l.cum, l.headings, s);
  return [x - Math.sin(h) * offset, y + Math.cos(h) * offset, h];
}

/** A successor of `lane`, picked at random where it branches; undefined at a dead end. */
export function pickSuccessor(lanes: TownLane[], lane: number, rng: Rng): number | undefined {
  const succ = lanes[lane].successors;
  if (!succ.length) return undefined;
  return succ.length === 1 ? succ[0] : rng.pick(succ);
}

/** Append random successors to `plan` until it reaches needM beyond arc length s on `lane` (or a dead end). */
export function extendPlan(
  lanes: TownLane[],
  plan: number[],
  lane: number,
  s: number,
  rng: Rng,
  needM: number,
): void {
  let have = lanes[lane].lengthM - s;
  for (const l of plan) have += lanes[l].lengthM;
  while (have < needM) {
    const next = pickSuccessor(lanes, plan.length ? plan[plan.length - 1] : lane, rng);
    if (next === undefined) break;
    plan.push(next);
    have += lanes[next].lengthM;
  }
}

/** Samples every stepM from arc length s on `lane` along `plan`, up to lengthM ahead; returns their count. */
export function samplePath(
  lanes: TownLane[],
  out: PathSamples,
  lane: number,
  s: number,
  plan: number[],
  lengthM: number,
  stepM: number,
): number {
  const maxSamples = out.x.length;
  let n = 0;
  let k = -1;
  let travelled = 0;
  while (n < maxSamples && travelled <= lengthM) {
    const l = lanes[lane];
    if (s > l.lengthM) {
      k++;
      if (k >= plan.length) break;
      s -= l.lengthM;
      lane = plan[k];
      continue;
    }
    const p = pointAtArcLength(l.xy, s, l.cum);
    out.x[n] = p.x;
    out.y[n] = p.y;
    out.heading[n] = p.heading;
    out.dist[n] = travelled;
    out.vMax[n] = l.vMax[Math.min(p.segment, l.vMax.length - 1)];
    n++;
    s += stepM;
    travelled += stepM;
  }
  return n;
}
