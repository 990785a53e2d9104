// A log's sweep in the tokenizer's frame: points shifted so the LiDAR is at the origin (rays start there),
// optionally rotated about z and mirrored for training; the sensor's mount per data source.
import type { PointCloud } from '../core/arrow/records.ts';
import type { Rng } from '../core/rng.ts';
import type { SensorPoints } from './voxelize.ts';

/**
 * Where the LiDAR sits in a source's vehicle frame (m). KITTI, PCD/PLY sweeps and drivekit's synthetic
 * logs are in the sensor's own frame; Argoverse 2's ego frame has its origin on the ground under the rear
 * axle, with its two stacked VLP-32Cs 1.35 m ahead at 1.64 m (up) and 1.53 m (down, mounted upside down;
 * egovehicle_SE3_sensor.feather of the sample log): rays start from the upper one, within 11 cm of either.
 */
export const SENSOR_ORIGIN_BY_SOURCE: Readonly<Record<string, readonly [number, number, number]>> = {
  av2: [1.35, 0, 1.64],
};

/** The sensor origin of a log: `extra.sensorOriginM` when the log states it, else by source, else 0. */
export function sensorOrigin(meta: {
  source: string;
  extra?: Record<string, unknown>;
}): [number, number, number] {
  const stated = meta.extra?.sensorOriginM;
  if (Array.isArray(stated) && stated.length === 3 && stated.every((v) => typeof v === 'number'))
    return [stated[0], stated[1], stated[2]];
  const bySource = SENSOR_ORIGIN_BY_SOURCE[meta.source];
  return bySource ? [bySource[0], bySource[1], bySource[2]] : [0, 0, 0];
}

export interface SweepAugment {
  /** Rotation about z (rad). */
  yawRad: number;
  /** Mirror y → −y (after the rotation). */
  flipY: boolean;
  /** Translation added after the rotation and mirror (m): a sub-voxel shift so tokens do not alias. */
  shiftM?: readonly [number, number, number];
}

/** Ranges of the finer augmentations (0 = off, as the shipped synthetic tokenizer was trained). */
export interface AugmentRanges {
  /** Largest shift along x and y, and along z (m); each drawn uniformly in ±. */
  shiftXYM: number;
  shiftZM: number;
  /** Largest share of the beams (elevation rings) dropped from a sweep; the share is drawn in [0, max]. */
  beamDropout: number;
}

export const NO_EXTRA_AUGMENT: AugmentRanges = { shiftXYM: 0, shiftZM: 0, beamDropout: 0 };

/** A random augmentation: any heading, mirrored half the time, shifted within `ranges` when given. */
export function randomAugment(rng: Rng, ranges: AugmentRanges = NO_EXTRA_AUGMENT): SweepAugment {
  const aug: SweepAugment = { yawRad: (rng.uniform() * 2 - 1) * Math.PI, flipY: rng.uniform() < 0.5 };
  // No draw when off, so runs without the shift see the data they always saw.
  if (ranges.shiftXYM > 0 || ranges.shiftZM > 0) {
    const u = () => rng.uniform() * 2 - 1;
    aug.shiftM = [u() * ranges.shiftXYM, u() * ranges.shiftXYM, u() * ranges.shiftZM];
  }
  return aug;
}

/** Elevation spacing of the rings a beam is binned by (HDL-64E: ≈ 0.4° between its 64 beams). */
export const BEAM_BIN_DEG = 0.4;

/**
 * Beam dropout: the sweep without a random share (≤ `maxShare`) of its rings, the ring read from each
 * point's elevation seen from the sensor (KITTI gives no ring index). Points are in the sensor frame.
 */
export function dropBeams(pts: SensorPoints, rng: Rng, maxShare: number): SensorPoints {
  if (maxShare <= 0) return pts;
  const share = rng.uniform() * maxShare;
  const bins = Math.ceil(180 / BEAM_BIN_DEG);
  const dropped = new Uint8Array(bins);
  for (let b = 0; b < bins; b++) dropped[b] = rng.uniform() < share ? 1 : 0;
  const keep: number[] = [];
  for (let i = 0; i < pts.x.length; i++) {
    const elevDeg = (Math.atan2(pts.z[i], Math.hypot(pts.x[i], pts.y[i])) * 180) / Math.PI;
    if (!dropped[Math.floor((elevDeg + 90) / BEAM_BIN_DEG)]) keep.push(i);
  }
  const pick = (a: Float32Array) => Float32Array.from(keep, (i) => a[i]);
  return { x: pick(pts.x), y: pick(pts.y), z: pick(pts.z) };
}

/** Points relative to the sensor origin, with the augmentation applied when given. */
export function sensorPoints(
  pc: PointCloud,
  origin: readonly [number, number, number],
  aug: SweepAugment | null = null,
): SensorPoints {
  const n = pc.x.length;
  const out = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
  const c = aug ? Math.cos(aug.yawRad) : 1;
  const s = aug ? Math.sin(aug.yawRad) : 0;
  const fy = aug?.flipY ? -1 : 1;
  const [tx, ty, tz] = aug?.shiftM ?? [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const x = pc.x[i] - origin[0];
    const y = pc.y[i] - origin[1];
    out.x[i] = c * x - s * y + tx;
    out.y[i] = fy * (s * x + c * y) + ty;
    out.z[i] = pc.z[i] - origin[2] + tz;
  }
  return out;
}
