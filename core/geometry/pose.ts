// SE(3) rigid transforms as 4×4 row-major float64 matrices (`world_from_vehicle`, docs/architecture.md).
// Composition, inversion, and in-place transformation of point arrays (struct-of-arrays or packed xyz).

/** A rigid transform `target_from_source`, 16 numbers, row-major. */
export type Pose = Float64Array;

export function identityPose(): Pose {
  const p = new Float64Array(16);
  p[0] = p[5] = p[10] = p[15] = 1;
  return p;
}

/** Pose from a translation and a yaw (counter-clockwise about +z from +x). */
export function poseFromTranslationYaw(x: number, y: number, z: number, yaw: number): Pose {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return Float64Array.of(c, -s, 0, x, s, c, 0, y, 0, 0, 1, z, 0, 0, 0, 1);
}

/** Pose from a unit quaternion (w, x, y, z) and a translation. */
export function poseFromQuaternion(
  qw: number,
  qx: number,
  qy: number,
  qz: number,
  tx: number,
  ty: number,
  tz: number,
): Pose {
  const n = Math.hypot(qw, qx, qy, qz) || 1;
  const w = qw / n;
  const x = qx / n;
  const y = qy / n;
  const z = qz / n;
  return Float64Array.of(
    1 - 2 * (y * y + z * z),
    2 * (x * y - w * z),
    2 * (x * z + w * y),
    tx,
    2 * (x * y + w * z),
    1 - 2 * (x * x + z * z),
    2 * (y * z - w * x),
    ty,
    2 * (x * z - w * y),
    2 * (y * z + w * x),
    1 - 2 * (x * x + y * y),
    tz,
    0,
    0,
    0,
    1,
  );
}

/** Pose from a 3×4 row-major matrix (the KITTI odometry line format). */
export function poseFrom3x4(m: ArrayLike<number>): Pose {
  const p = identityPose();
  for (let i = 0; i < 12; i++) p[i] = m[i];
  return p;
}

/** `a_from_c = a_from_b · b_from_c`. */
export function composePoses(aFromB: Pose, bFromC: Pose): Pose {
  const out = new Float64Array(16);
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += aFromB[r * 4 + k] * bFromC[k * 4 + c];
      out[r * 4 + c] = s;
    }
  }
  return out;
}

/** Inverse of a rigid transform: `[Rᵀ, −Rᵀt]`. */
export function invertPose(p: Pose): Pose {
  const out = new Float64Array(16);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) out[r * 4 + c] = p[c * 4 + r];
  }
  for (let r = 0; r < 3; r++) {
    out[r * 4 + 3] = -(out[r * 4] * p[3] + out[r * 4 + 1] * p[7] + out[r * 4 + 2] * p[11]);
  }
  out[15] = 1;
  return out;
}

/** Transform one point; returns [x, y, z]. */
export function transformPoint(p: Pose, x: number, y: number, z: number): [number, number, number] {
  return [
    p[0] * x + p[1] * y + p[2] * z + p[3],
    p[4] * x + p[5] * y + p[6] * z + p[7],
    p[8] * x + p[9] * y + p[10] * z + p[11],
  ];
}

/** Transform struct-of-arrays points in place (the SensorFrame layout). */
export function transformPointsInPlace(p: Pose, xs: Float32Array, ys: Float32Array, zs: Float32Array): void {
  const [r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz] = p;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    const y = ys[i];
    const z = zs[i];
    xs[i] = r00 * x + r01 * y + r02 * z + tx;
    ys[i] = r10 * x + r11 * y + r12 * z + ty;
    zs[i] = r20 * x + r21 * y + r22 * z + tz;
  }
}

/** Transform packed points (x, y, z, … every `stride` floats) in place. */
export function transformPackedPointsInPlace(p: Pose, points: Float32Array, stride = 3): void {
  if (stride < 3) throw new Error(`transformPackedPointsInPlace: stride ${stride} < 3`);
  if (points.length % stride !== 0) {
    throw new Error(`transformPackedPointsInPlace: length ${points.length} is not a multiple of ${stride}`);
  }
  const [r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz] = p;
  for (let i = 0; i < points.length; i += stride) {
    const x = points[i];
    const y = points[i + 1];
    const z = points[i + 2];
    points[i] = r00 * x + r01 * y + r02 * z + tx;
    points[i + 1] = r10 * x + r11 * y + r12 * z + ty;
    points[i + 2] = r20 * x + r21 * y + r22 * z + tz;
  }
}

/** Heading of the pose's x axis in its target frame (yaw about +z). */
export function yawOfPose(p: Pose): number {
  return Math.atan2(p[4], p[0]);
}

/** Translation part of a pose. */
export function translationOfPose(p: Pose): [number, number, number] {
  return [p[3], p[7], p[11]];
}

/** Wrap an angle to (−π, π]. */
export function wrapAngle(a: number): number {
  const t = wrapAngleLow(a);
  return t <= -Math.PI ? t + 2 * Math.PI : t;
}

/**
 * Wrap an angle to [−π, π) (a half turn maps to −π). The simulator's dynamics, metrics and LiDAR were
 * written with this end of the interval; it differs from wrapAngle only at ±π, where seeded outputs
 * depend on which end is kept.
 */
export function wrapAngleLow(a: number): number {
  return a - 2 * Math.PI * Math.floor((a + Math.PI) / (2 * Math.PI));
}

/**
 * `a` minus its nearest whole turn, 2π·round(a/2π): [−π, π) like wrapAngleLow, but rounding differs
 * within an ulp of ±π, so interpolation that was written this way keeps it (same synthetic logs).
 */
export function wrapAngleNearest(a: number): number {
  return a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
}
