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
  const xi = logSE3(frameMotion);
  // The pose at time t as a function of s = (t − ref)/period: a rotation-vector-and-translation twist
  // scaled by s. Points are grouped by their time so the exponential is evaluated once per distinct time.
  const T = new Float64Array(16);
  const scaled = new Float64Array(6);
  let lastT = NaN;
  for (let i = 0; i < count; i++) {
    const t = tOffsetS[i];
    if (t !== lastT) {
      const s = (t - referenceS) / periodS;
      for (let k = 0; k < 6; k++) scaled[k] = s * xi[k];
      expSE3(scaled, T);
      lastT = t;
    }
    const x = xyz[3 * i];
    const y = xyz[3 * i + 1];
    const z = xyz[3 * i + 2];
    xyz[3 * i] = T[0] * x + T[1] * y + T[2] * z + T[3];
    xyz[3 * i + 1] = T[4] * x + T[5] * y + T[6] * z + T[7];
    xyz[3 * i + 2] = T[8] * x + T[9] * y + T[10] * z + T[11];
  }
}
