// Kinematic features of the Sim Agents metric (trajectory_features.py): 3-D linear speed and signed
// acceleration, angular speed and acceleration, all by central differences over the full trajectory.

/** Wrap an angle into [−π, π) as Python's `(a + π) % 2π − π` (floor modulo). */
export function wrapAnglePy(a: number): number {
  const m = 2 * Math.PI;
  const u = a + Math.PI;
  // Already in [0, 2π): the remainder is u itself (skips a slow floating-point modulo).
  if (u >= 0 && u < m) return u - Math.PI;
  const r = u % m;
  return (r < 0 ? r + m : r) - Math.PI;
}

/**
 * Speeds and accelerations of one agent at the steps k0 … k0+count−1 of a trajectory of `numSteps`
 * points stored at `off + k` in x/y/z/yaw. As the official code: speed(k) = |p(k+1) − p(k−1)| / 2dt,
 * acceleration(k) = (speed(k+1) − speed(k−1)) / 2dt, heading differences wrapped; NaN where a
 * difference would need a step outside the trajectory. Results go to out*[o + i].
 */
export function kinematicFeatures(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  z: ArrayLike<number>,
  yaw: ArrayLike<number>,
  off: number,
  numSteps: number,
  k0: number,
  count: number,
  dtS: number,
  outSpeed: Float32Array,
  outAccel: Float32Array,
  outAngSpeed: Float32Array,
  outAngAccel: Float32Array,
  o: number,
): void {
  // Speeds and half heading steps at k0−1 … k0+count (NaN outside the trajectory), each computed once.
  const m = count + 2;
  if (scratchSpeed.length < m) {
    scratchSpeed = new Float64Array(2 * m);
    scratchHeading = new Float64Array(2 * m);
  }
  const sp = scratchSpeed;
  const hd = scratchHeading;
  for (let q = 0; q < m; q++) {
    const k = k0 - 1 + q;
    if (k < 1 || k > numSteps - 2) {
      sp[q] = NaN;
      hd[q] = NaN;
      continue;
    }
    const a = off + k - 1;
    const b = off + k + 1;
    const ex = x[b] - x[a];
    const ey = y[b] - y[a];
    const ez = z[b] - z[a];
    sp[q] = Math.sqrt(ex * ex + ey * ey + ez * ez) / 2 / dtS;
    hd[q] = wrapAnglePy(yaw[b] - yaw[a]) / 2;
  }
  for (let i = 0; i < count; i++) {
    outSpeed[o + i] = sp[i + 1];
    outAccel[o + i] = (sp[i + 2] - sp[i]) / 2 / dtS;
    outAngSpeed[o + i] = hd[i + 1] / dtS;
    outAngAccel[o + i] = wrapAnglePy(hd[i + 2] - hd[i]) / 2 / (dtS * dtS);
  }
}

let scratchSpeed = new Float64Array(256);
let scratchHeading = new Float64Array(256);

/**
 * Validity of speeds and accelerations over the scored steps, from the log's validity there: a speed
 * needs both neighbours valid, an acceleration both neighbouring speeds; the first and last scored
 * steps (two for accelerations) are never valid, as the official `compute_kinematic_validity` on the
 * future-only mask.
 */
export function kinematicValidity(valid: Uint8Array, speedValid: Uint8Array, accelValid: Uint8Array): void {
  const n = valid.length;
  for (let t = 0; t < n; t++) speedValid[t] = t > 0 && t < n - 1 && valid[t - 1] && valid[t + 1] ? 1 : 0;
  for (let t = 0; t < n; t++)
    accelValid[t] = t > 0 && t < n - 1 && speedValid[t - 1] && speedValid[t + 1] ? 1 : 0;
}
