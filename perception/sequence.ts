// The frame context that tracking and refinement share: per-frame poses (world_from_vehicle) and times,
// with the fallback to the vehicle frame when poses are missing, and box centres moved between frames.
import type { Boxes } from '../core/arrow/records.ts';
import { wrapAngle } from '../core/geometry/pose.ts';

export interface SequenceInput {
  frameCount: number;
  /** world_from_vehicle per frame, 16 numbers each (row-major); null when the source has no poses. */
  poses?: Float64Array | null;
  /** Seconds per frame (any origin); null → frame index / rateHz. */
  timesS?: Float64Array | null;
  rateHz?: number;
}

export interface Sequence {
  frameCount: number;
  /** world_from_vehicle per frame; identity everywhere when tracking falls back to the vehicle frame. */
  poses: Float64Array;
  timesS: Float64Array;
  /** 'world' when real poses were used; 'vehicle' when they were missing or unusable. */
  frame: 'world' | 'vehicle';
  warnings: string[];
}

export function resolveSequence(input: SequenceInput): Sequence {
  const F = input.frameCount;
  const warnings: string[] = [];
  let frame: 'world' | 'vehicle' = 'world';
  let poses = input.poses ?? null;
  if (!poses) {
    warnings.push('no poses: tracking in the vehicle frame (moving ego → static objects appear to move)');
    frame = 'vehicle';
  } else if (poses.length !== 16 * F) {
    warnings.push(`poses cover ${poses.length / 16} frames, not ${F}: tracking in the vehicle frame`);
    frame = 'vehicle';
  } else if (!poses.every(Number.isFinite)) {
    warnings.push('poses hold non-finite numbers: tracking in the vehicle frame');
    frame = 'vehicle';
  }
  if (frame === 'vehicle') {
    poses = new Float64Array(16 * F);
    for (let f = 0; f < F; f++)
      poses[16 * f] = poses[16 * f + 5] = poses[16 * f + 10] = poses[16 * f + 15] = 1;
  }
  const rate = input.rateHz && input.rateHz > 0 ? input.rateHz : 10;
  let timesS = input.timesS ?? null;
  if (timesS && (timesS.length !== F || !timesS.every(Number.isFinite))) {
    warnings.push(`frame times unusable (${timesS.length} for ${F} frames): assuming ${rate} Hz`);
    timesS = null;
  }
  if (!timesS) timesS = Float64Array.from({ length: F }, (_, f) => f / rate);
  return { frameCount: F, poses: poses!, timesS, frame, warnings };
}

/** Box centres and headings in the world frame (float64, one entry per box row). */
export interface WorldCentres {
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  yaw: Float64Array;
}

export function centresToWorld(b: Boxes, seq: Sequence): WorldCentres {
  const n = b.cx.length;
  const out: WorldCentres = {
    x: new Float64Array(n),
    y: new Float64Array(n),
    z: new Float64Array(n),
    yaw: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const f = b.frameIndex[i];
    if (f < 0 || f >= seq.frameCount)
      throw new Error(`box ${i}: frame_index ${f} outside [0, ${seq.frameCount})`);
    const p = seq.poses.subarray(16 * f, 16 * f + 16);
    const x = b.cx[i];
    const y = b.cy[i];
    const z = b.cz[i];
    out.x[i] = p[0] * x + p[1] * y + p[2] * z + p[3];
    out.y[i] = p[4] * x + p[5] * y + p[6] * z + p[7];
    out.z[i] = p[8] * x + p[9] * y + p[10] * z + p[11];
    out.yaw[i] = wrapAngle(b.yaw[i] + Math.atan2(p[4], p[0]));
  }
  return out;
}

/** A world-frame centre and heading expressed in the vehicle frame of `frame`: [x, y, z, yaw]. */
export function worldToVehicle(
  seq: Sequence,
  frame: number,
  x: number,
  y: number,
  z: number,
  yaw: number,
): [number, number, number, number] {
  const p = seq.poses.subarray(16 * frame, 16 * frame + 16);
  const dx = x - p[3];
  const dy = y - p[7];
  const dz = z - p[11];
  // Rᵀ · (q − t)
  return [
    p[0] * dx + p[4] * dy + p[8] * dz,
    p[1] * dx + p[5] * dy + p[9] * dz,
    p[2] * dx + p[6] * dy + p[10] * dz,
    wrapAngle(yaw - Math.atan2(p[4], p[0])),
  ];
}
