// Linear Kalman filter for one box track: state [x, y, z, yaw, vx, vy] with constant velocity in the
// ground plane and random-walk height and heading (the AB3DMOT-style model), measurements [x, y, z, yaw].
import { wrapAngle } from '../core/geometry/pose.ts';

/** Process and measurement noise of the constant-velocity box model. */
export interface KalmanNoise {
  /** White-noise acceleration driving vx, vy (m/s²). */
  accelMps2: number;
  /** Random-walk rate of height (m/√s) and heading (rad/√s). */
  zRateM: number;
  yawRateRad: number;
  /** Measurement standard deviations. */
  posM: number;
  zM: number;
  yawRad: number;
  /** Standard deviation of the unknown velocity at birth (m/s). */
  initSpeedMps: number;
}

export const DEFAULT_KALMAN_NOISE: KalmanNoise = {
  accelMps2: 3,
  zRateM: 0.3,
  yawRateRad: 0.5,
  posM: 0.4,
  zM: 0.3,
  yawRad: 0.4,
  initSpeedMps: 10,
};

const N = 6;
const M = 4;

export interface KalmanTrack {
  /** State [x, y, z, yaw, vx, vy]. */
  x: Float64Array;
  /** Covariance, 6×6 row-major. */
  P: Float64Array;
}

export function kalmanInit(
  mx: number,
  my: number,
  mz: number,
  myaw: number,
  noise: KalmanNoise,
): KalmanTrack {
  const x = Float64Array.of(mx, my, mz, myaw, 0, 0);
  const P = new Float64Array(N * N);
  P[0] = noise.posM ** 2;
  P[7] = noise.posM ** 2;
  P[14] = noise.zM ** 2;
  P[21] = noise.yawRad ** 2;
  P[28] = noise.initSpeedMps ** 2;
  P[35] = noise.initSpeedMps ** 2;
  return { x, P };
}

/** Predict `dt` seconds ahead (dt may be 0). */
export function kalmanPredict(t: KalmanTrack, dt: number, noise: KalmanNoise): void {
  const { x, P } = t;
  x[0] += x[4] * dt;
  x[1] += x[5] * dt;
  // P ← F P Fᵀ with F = I + dt·(e0 e4ᵀ + e1 e5ᵀ): rows 0,1 gain dt·rows 4,5, then columns likewise.
  for (let c = 0; c < N; c++) {
    P[c] += dt * P[4 * N + c];
    P[N + c] += dt * P[5 * N + c];
  }
  for (let r = 0; r < N; r++) {
    P[r * N] += dt * P[r * N + 4];
    P[r * N + 1] += dt * P[r * N + 5];
  }
  // Discrete white-noise acceleration for each (position, velocity) pair.
  const q = noise.accelMps2 ** 2;
  const dt2 = dt * dt;
  for (const [p, v] of [
    [0, 4],
    [1, 5],
  ]) {
    P[p * N + p] += (q * dt2 * dt2) / 4;
    P[p * N + v] += (q * dt2 * dt) / 2;
    P[v * N + p] += (q * dt2 * dt) / 2;
    P[v * N + v] += q * dt2;
  }
  P[2 * N + 2] += noise.zRateM ** 2 * dt;
  P[3 * N + 3] += noise.yawRateRad ** 2 * dt;
}

/**
 * Update with a measured [x, y, z, yaw]. The yaw innovation is wrapped to (−π/2, π/2]: a fitted box's
 * heading is only known up to a half turn.
 */
export function kalmanUpdate(
  t: KalmanTrack,
  mx: number,
  my: number,
  mz: number,
  myaw: number,
  noise: KalmanNoise,
): void {
  const { x, P } = t;
  const y = [mx - x[0], my - x[1], mz - x[2], wrapHalfTurn(myaw - x[3])];
  // H selects the first four state entries, so S = P[0:4,0:4] + R and PHᵀ = P[:, 0:4].
  const S = new Float64Array(M * M);
  for (let r = 0; r < M; r++) for (let c = 0; c < M; c++) S[r * M + c] = P[r * N + c];
  S[0] += noise.posM ** 2;
  S[5] += noise.posM ** 2;
  S[10] += noise.zM ** 2;
  S[15] += noise.yawRad ** 2;
  const Si = invert4(S);
  // K = P Hᵀ S⁻¹ (6×4).
  const K = new Float64Array(N * M);
  for (let r = 0; r < N; r++) {
    for (let c = 0; c < M; c++) {
      let s = 0;
      for (let k = 0; k < M; k++) s += P[r * N + k] * Si[k * M + c];
      K[r * M + c] = s;
    }
  }
  for (let r = 0; r < N; r++) {
    let s = 0;
    for (let k = 0; k < M; k++) s += K[r * M + k] * y[k];
    x[r] += s;
  }
  x[3] = wrapAngle(x[3]);
  // P ← (I − K H) P: subtract K · P[0:4, :].
  const top = P.slice(0, M * N);
  for (let r = 0; r < N; r++) {
    for (let c = 0; c < N; c++) {
      let s = 0;
      for (let k = 0; k < M; k++) s += K[r * M + k] * top[k * N + c];
      P[r * N + c] -= s;
    }
  }
}

/** Wrap to (−π/2, π/2]: the difference of two headings that are only defined up to a half turn. */
export function wrapHalfTurn(a: number): number {
  const t = a - Math.PI * Math.floor((a + Math.PI / 2) / Math.PI);
  return t <= -Math.PI / 2 ? t + Math.PI : t;
}

/** Inverse of a 4×4 matrix by Gauss–Jordan elimination with partial pivoting. */
export function invert4(m: Float64Array): Float64Array {
  const a = Float64Array.from(m);
  const inv = new Float64Array(16);
  inv[0] = inv[5] = inv[10] = inv[15] = 1;
  for (let c = 0; c < 4; c++) {
    let piv = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(a[r * 4 + c]) > Math.abs(a[piv * 4 + c])) piv = r;
    if (Math.abs(a[piv * 4 + c]) < 1e-15) throw new Error('invert4: singular matrix');
    if (piv !== c) {
      for (let k = 0; k < 4; k++) {
        [a[c * 4 + k], a[piv * 4 + k]] = [a[piv * 4 + k], a[c * 4 + k]];
        [inv[c * 4 + k], inv[piv * 4 + k]] = [inv[piv * 4 + k], inv[c * 4 + k]];
      }
    }
    const d = a[c * 4 + c];
    for (let k = 0; k < 4; k++) {
      a[c * 4 + k] /= d;
      inv[c * 4 + k] /= d;
    }
    for (let r = 0; r < 4; r++) {
      if (r === c) continue;
      const f = a[r * 4 + c];
      if (f === 0) continue;
      for (let k = 0; k < 4; k++) {
        a[r * 4 + k] -= f * a[c * 4 + k];
        inv[r * 4 + k] -= f * inv[c * 4 + k];
      }
    }
  }
  return inv;
}
