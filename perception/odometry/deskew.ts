// Motion compensation of a spinning LiDAR sweep: each point moved from the sensor pose at its firing time
// to the pose at the frame's time, under constant velocity over the sweep (KISS-ICP §III-A, twist scaled).
import type { Pose } from '../../core/geometry/pose.ts';
import { expSE3, logSE3 } from './se3.ts';

/**
 * De-skew packed xyz points in place. `frameMotion` is `prev_from_current`, the vehicle motion over one
 * frame period `periodS` (the constant-velocity prediction); `tOffsetS[i]` is the point's firing time from
 * the frame timestamp, `referenceS` the time within the sweep its pose refers to (0 = the timestamp).
 * A point fired at t is seen from pose exp((t − ref)/period · log Δ) relative to the frame pose.
 */
export function deskewPoints(
  xyz: Float32Array,
  tOffsetS: Float32Array,
  count: number,
  frameMotion: Pose,
  periodS: number,
  referenceS = 0,
): void {
  if (count === 0) return;
  const xi = logSE3(frameMotion);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < count; i++) {
    const t = tOffsetS[i];
    if (t < lo) lo = t;
    if (t > hi) hi = t;
  }
  // The pose at time t, exp(s·ξ) with s = (t − ref)/period, tabulated at DESKEW_STEPS times across the
  // sweep (a 2048-column sweep fires ~2 columns per step; the pose moves < 1 mm between steps at 30 m/s).
  const steps = hi > lo ? DESKEW_STEPS : 1;
  const table = new Float64Array(12 * steps);
  const T = new Float64Array(16);
  const scaled = new Float64Array(6);
  const dt = steps > 1 ? (hi - lo) / (steps - 1) : 0;
  for (let k = 0; k < steps; k++) {
    const s = (lo + k * dt - referenceS) / periodS;
    for (let j = 0; j < 6; j++) scaled[j] = s * xi[j];
    expSE3(scaled, T);
    table.set(T.subarray(0, 12), 12 * k);
  }
  const inv = dt > 0 ? 1 / dt : 0;
  for (let i = 0; i < count; i++) {
    const b = 12 * Math.round((tOffsetS[i] - lo) * inv);
    const x = xyz[3 * i];
    const y = xyz[3 * i + 1];
    const z = xyz[3 * i + 2];
    xyz[3 * i] = table[b] * x + table[b + 1] * y + table[b + 2] * z + table[b + 3];
    xyz[3 * i + 1] = table[b + 4] * x + table[b + 5] * y + table[b + 6] * z + table[b + 7];
    xyz[3 * i + 2] = table[b + 8] * x + table[b + 9] * y + table[b + 10] * z + table[b + 11];
  }
}

/** Times at which the de-skew pose is tabulated across a sweep. */
const DESKEW_STEPS = 1024;

/**
 * Firing times of a spinning LiDAR's points from their azimuth, for sweeps stored without per-point times
 * (KITTI raw): the Velodyne turns clockwise seen from above, starting and ending behind the vehicle, and
 * the frame timestamp is when it faces forward (+x), as KISS-ICP's KITTI-raw loader assumes. Written to
 * `out` as seconds from the timestamp, −periodS/2 … +periodS/2.
 */
export function azimuthTimes(
  x: Float32Array,
  y: Float32Array,
  periodS: number,
  out = new Float32Array(x.length),
): Float32Array {
  const k = -periodS / (2 * Math.PI);
  for (let i = 0; i < x.length; i++) out[i] = k * Math.atan2(y[i], x[i]);
  return out;
}
