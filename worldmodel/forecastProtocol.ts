// The 4D-Occ evaluation protocol Copilot4D reports: output sweeps per horizon, ego returns removed, truth rays
// of each future sweep, squared Chamfer (vanilla and near-field) in the start frame, L1/AbsRel along the rays.
import type { PointCloud } from '../core/arrow/records.ts';
import type { Pose } from '../core/geometry/pose.ts';
import { chamferStats, cropBox, medianOf } from './chamfer.ts';
import type { TokenizerConfig } from './config.ts';
import { raysFromPoints, type Rays } from './rays.ts';
import { selectPoints, type SensorPoints } from './voxelize.ts';

/** 4D-Occ's near field around the reference (start) frame. */
export const NEAR_FIELD = { halfXM: 70, halfYM: 70, halfZM: 4.5 };
/** Returns from the ego vehicle removed before scoring (KITTI's box in the LiDAR frame, 4D-Occ). */
export const EGO_BOX = { xMinM: -2, xMaxM: 3.5, halfYM: 1.55 };

export type Horizon = '1s' | '3s';
/** Seconds after t0 of the scored sweeps: 1 s → 0.2, 0.4 … 1.0; 3 s → 0.6, 1.2 … 3.0. */
export const PROTOCOL_TIMES_S: Record<Horizon, readonly number[]> = {
  '1s': [0.2, 0.4, 0.6, 0.8, 1.0],
  '3s': [0.6, 1.2, 1.8, 2.4, 3.0],
};

/** Raw frame offsets of a horizon's scored sweeps at `rateHz`. */
export function protocolOffsets(h: Horizon, rateHz: number): number[] {
  return PROTOCOL_TIMES_S[h].map((t) => Math.round(t * rateHz));
}

/** The points outside the ego box (vehicle frame). */
export function removeEgo(pc: Pick<PointCloud, 'x' | 'y' | 'z'>): SensorPoints {
  const keep = new Int32Array(pc.x.length);
  let n = 0;
  for (let i = 0; i < pc.x.length; i++) {
    const x = pc.x[i];
    const inside = x >= EGO_BOX.xMinM && x <= EGO_BOX.xMaxM && Math.abs(pc.y[i]) <= EGO_BOX.halfYM;
    if (!inside) keep[n++] = i;
  }
  return selectPoints(pc, keep, n);
}

/** Points moved by a rigid transform (a new cloud). */
export function transformed(
  p: SensorPoints,
  m: Pose,
  shift: readonly [number, number, number] = [0, 0, 0],
): SensorPoints {
  const n = p.x.length;
  const out = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
  for (let i = 0; i < n; i++) {
    const x = p.x[i] + shift[0];
    const y = p.y[i] + shift[1];
    const z = p.z[i] + shift[2];
    out.x[i] = m[0] * x + m[1] * y + m[2] * z + m[3];
    out.y[i] = m[4] * x + m[5] * y + m[6] * z + m[7];
    out.z[i] = m[8] * x + m[9] * y + m[10] * z + m[11];
  }
  return out;
}

/** The scored part of a future sweep: its rays (sensor frame) and the same returns in the start frame. */
export interface TruthSweep {
  rays: Rays;
  /** The returns of the rays, in the vehicle frame of t0. */
  pointsT0: SensorPoints;
  /**
   * Every return of the sweep (ego box and the minimum range removed, thinned by the same stride, not cropped
   * to the tokenizer's region), in the vehicle frame of t0: the truth of the near-field figure. Absent: pointsT0.
   */
  fullT0?: SensorPoints;
}

/**
 * Truth of a future sweep: ego returns removed, the returns inside the tokenizer's region around the future
 * sensor (and beyond its minimum range) become rays — the region every forecaster here is scored on.
 */
export function truthSweep(
  cfg: TokenizerConfig,
  pc: Pick<PointCloud, 'x' | 'y' | 'z'>,
  origin: readonly [number, number, number],
  t0FromTarget: Pose,
  rayStride = 1,
): TruthSweep {
  const rays = truthRays(cfg, pc, origin, rayStride);
  const noEgo = removeEgo(pc);
  const minSq = cfg.render.minRangeM ** 2;
  const keep = new Int32Array(noEgo.x.length);
  let n = 0;
  for (let i = 0, seen = 0; i < noEgo.x.length; i++) {
    const x = noEgo.x[i] - origin[0];
    const y = noEgo.y[i] - origin[1];
    const z = noEgo.z[i] - origin[2];
    if (x * x + y * y + z * z < minSq) continue;
    if (seen++ % Math.max(1, rayStride) === 0) keep[n++] = i;
  }
  const full = selectPoints(noEgo, keep, n);
  return {
    rays,
    pointsT0: rayPoints(rays, rays.depthM, origin, t0FromTarget),
    fullT0: transformed(full, t0FromTarget),
  };
}

const IDENTITY: Pose = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);

/**
 * The scored rays of a sweep (sensor frame): its returns outside the ego box, inside the tokenizer's region
 * and beyond its minimum range, in sweep order — every `rayStride`-th of them (1 = all; a uniform thinning
 * that makes rendering cheaper, the same in forecast and eval-forecast).
 */
export function truthRays(
  cfg: TokenizerConfig,
  pc: Pick<PointCloud, 'x' | 'y' | 'z'>,
  origin: readonly [number, number, number],
  rayStride = 1,
): Rays {
  const sensor = transformed(removeEgo(pc), IDENTITY, [-origin[0], -origin[1], -origin[2]]);
  const all = raysFromPoints(cfg, sensor);
  if (rayStride <= 1) return all;
  const n = Math.ceil(all.count / rayStride);
  const pick = <A extends Float32Array | Int32Array>(a: A) => a.filter((_, i) => i % rayStride === 0) as A;
  return {
    count: n,
    dirX: pick(all.dirX),
    dirY: pick(all.dirY),
    dirZ: pick(all.dirZ),
    depthM: pick(all.depthM),
    pointIndex: pick(all.pointIndex),
  };
}

/** Points at `depth` along each ray, from the sensor (at `origin` in the vehicle frame), moved by `m`. */
export function rayPoints(
  rays: Rays,
  depth: Float32Array,
  origin: readonly [number, number, number],
  m: Pose,
): SensorPoints {
  const n = rays.count;
  const p = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
  for (let i = 0; i < n; i++) {
    // Float32 products, as the points were always stored.
    p.x[i] = rays.dirX[i] * depth[i];
    p.y[i] = rays.dirY[i] * depth[i];
    p.z[i] = rays.dirZ[i] * depth[i];
  }
  return transformed(p, m, origin);
}

/** The protocol's figures of one predicted sweep. */
export interface SweepFigures {
  /** Squared Chamfer, ½(mean pred→true + mean true→pred) (m²). */
  chamfer: number;
  /** The same with each direction's median. */
  chamferMedian: number;
  /** The same with each direction's 99 %-trimmed mean (the worst 1 % of points dropped). */
  chamferTrimmed: number;
  /** Squared Chamfer inside the near field of t0, against every true return there (not region-cropped). */
  chamferNear: number;
  l1: number;
  /** Median over the rays of |depth error| (m). */
  l1Median: number;
  absrel: number;
}

/** Score a prediction (points in the t0 frame; `depth` along the truth rays) against the truth. */
export function scoreSweep(predT0: SensorPoints, depth: Float32Array, truth: TruthSweep): SweepFigures {
  const nf = NEAR_FIELD;
  let l1 = 0;
  let rel = 0;
  const d = truth.rays.depthM;
  const err = new Float64Array(d.length);
  for (let i = 0; i < d.length; i++) {
    const e = Math.abs(depth[i] - d[i]);
    err[i] = e;
    l1 += e;
    rel += e / d[i];
  }
  const c = chamferStats(predT0, truth.pointsT0);
  const near = chamferStats(
    cropBox(predT0, nf.halfXM, nf.halfYM, nf.halfZM),
    cropBox(truth.fullT0 ?? truth.pointsT0, nf.halfXM, nf.halfYM, nf.halfZM),
  );
  return {
    chamfer: c.mean,
    chamferMedian: c.median,
    chamferTrimmed: c.trimmed,
    chamferNear: near.mean,
    l1: l1 / Math.max(1, d.length),
    l1Median: medianOf(err),
    absrel: rel / Math.max(1, d.length),
  };
}
