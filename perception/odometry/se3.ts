// The SE(3) exponential and logarithm maps (twists ↔ 4×4 row-major rigid transforms) that ICP updates
// and motion compensation need; Rodrigues' formula with Taylor series near zero rotation (Barfoot 2017, §7.1).
import type { Pose } from '../../core/geometry/pose.ts';

/** A twist: rotation vector ω (rad) then translation part v (m), the left-perturbation coordinates. */
export type Twist = [number, number, number, number, number, number];

/** exp(ξ^): R by Rodrigues, t = V·v with V the left Jacobian of SO(3). */
export function expSE3(xi: ArrayLike<number>, out: Pose = new Float64Array(16)): Pose {
  const wx = xi[0];
  const wy = xi[1];
  const wz = xi[2];
  const th2 = wx * wx + wy * wy + wz * wz;
  const th = Math.sqrt(th2);
  // A = sinθ/θ, B = (1−cosθ)/θ², C = (θ−sinθ)/θ³; series below 1e-4 rad keep full precision.
  let A: number;
  let B: number;
  let C: number;
  if (th < 1e-4) {
    A = 1 - th2 / 6;
    B = 0.5 - th2 / 24;
    C = 1 / 6 - th2 / 120;
  } else {
    A = Math.sin(th) / th;
    B = (1 - Math.cos(th)) / th2;
    C = (th - Math.sin(th)) / (th2 * th);
  }
  // K = [ω]×, K² = ωωᵀ − θ²I.
  const k2 = (i: number, j: number) => xi[i] * xi[j] - (i === j ? th2 : 0);
  const K = [0, -wz, wy, wz, 0, -wx, -wy, wx, 0];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) out[r * 4 + c] = (r === c ? 1 : 0) + A * K[r * 3 + c] + B * k2(r, c);
  }
  for (let r = 0; r < 3; r++) {
    let s = 0;
    for (let c = 0; c < 3; c++) s += ((r === c ? 1 : 0) + B * K[r * 3 + c] + C * k2(r, c)) * xi[3 + c];
    out[r * 4 + 3] = s;
  }
  out[12] = out[13] = out[14] = 0;
  out[15] = 1;
  return out;
}

/** Rotation angle of a pose's rotation part, in radians, in [0, π]. */
export function rotationAngle(p: ArrayLike<number>): number {
  const c = 0.5 * (p[0] + p[5] + p[10] - 1);
  return Math.acos(c > 1 ? 1 : c < -1 ? -1 : c);
}

/** log(T)∨ = (ω, v): the twist whose exponential is T (rotations below π). */
export function logSE3(p: ArrayLike<number>): Twist {
  const th = rotationAngle(p);
  const th2 = th * th;
  // ω = θ/(2 sinθ) · vee(R − Rᵀ); the factor → ½ as θ → 0.
  const f = th < 1e-4 ? 0.5 + th2 / 12 : th / (2 * Math.sin(th));
  const wx = f * (p[9] - p[6]);
  const wy = f * (p[2] - p[8]);
  const wz = f * (p[4] - p[1]);
  // V⁻¹ = I − ½K + D·K², D = (1 − θ sinθ / (2(1 − cosθ))) / θ².
  const D = th < 1e-4 ? 1 / 12 + th2 / 720 : (1 - (th * Math.sin(th)) / (2 * (1 - Math.cos(th)))) / th2;
  const w = [wx, wy, wz];
  const w2 = wx * wx + wy * wy + wz * wz;
  const K = [0, -wz, wy, wz, 0, -wx, -wy, wx, 0];
  const t = [p[3], p[7], p[11]];
  const v = [0, 0, 0];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      const k2 = w[r] * w[c] - (r === c ? w2 : 0);
      v[r] += ((r === c ? 1 : 0) - 0.5 * K[r * 3 + c] + D * k2) * t[c];
    }
  }
  return [wx, wy, wz, v[0], v[1], v[2]];
}

/** Translation length of a pose. */
export function translationNorm(p: ArrayLike<number>): number {
  return Math.hypot(p[3], p[7], p[11]);
}

/**
 * Project a pose's rotation back onto SO(3) in place (through the nearest unit quaternion, Shepperd's
 * method) and reset its last row. Poses built by composition drift off SO(3) by rounding, and the
 * constant-velocity prediction T₁·T₂⁻¹·T₁ (an inverse by transpose) amplifies that drift about ×2–3 per
 * frame: without this, real sweeps lost track after ~35 frames with the determinant at 0.999.
 */
export function orthonormalize(p: Float64Array): Float64Array {
  const m00 = p[0];
  const m11 = p[5];
  const m22 = p[10];
  const tr = m00 + m11 + m22;
  let w: number;
  let x: number;
  let y: number;
  let z: number;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    w = 0.25 * s;
    x = (p[9] - p[6]) / s;
    y = (p[2] - p[8]) / s;
    z = (p[4] - p[1]) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (p[9] - p[6]) / s;
    x = 0.25 * s;
    y = (p[1] + p[4]) / s;
    z = (p[2] + p[8]) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (p[2] - p[8]) / s;
    x = (p[1] + p[4]) / s;
    y = 0.25 * s;
    z = (p[6] + p[9]) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (p[4] - p[1]) / s;
    x = (p[2] + p[8]) / s;
    y = (p[6] + p[9]) / s;
    z = 0.25 * s;
  }
  const n = Math.hypot(w, x, y, z);
  w /= n;
  x /= n;
  y /= n;
  z /= n;
  p[0] = 1 - 2 * (y * y + z * z);
  p[1] = 2 * (x * y - w * z);
  p[2] = 2 * (x * z + w * y);
  p[4] = 2 * (x * y + w * z);
  p[5] = 1 - 2 * (x * x + z * z);
  p[6] = 2 * (y * z - w * x);
  p[8] = 2 * (x * z - w * y);
  p[9] = 2 * (y * z + w * x);
  p[10] = 1 - 2 * (x * x + y * y);
  p[12] = p[13] = p[14] = 0;
  p[15] = 1;
  return p;
}
