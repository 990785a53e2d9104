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
}

/** A random augmentation: any heading, mirrored half the time. */
export function randomAugment(rng: Rng): SweepAugment {
  return { yawRad: (rng.uniform() * 2 - 1) * Math.PI, flipY: rng.uniform() < 0.5 };
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
  for (let i = 0; i < n; i++) {
    const x = pc.x[i] - origin[0];
    const y = pc.y[i] - origin[1];
    out.x[i] = c * x - s * y;
    out.y[i] = fy * (s * x + c * y);
    out.z[i] = pc.z[i] - origin[2];
  }
  return out;
}
