// Oriented 3D boxes (centre, size, yaw about +z) as used by every Boxes record: corners, point-in-box,
// point counting and rigid transformation. The centre is the geometric centre of the box.
import { type Pose, wrapAngle, yawOfPose } from './pose.ts';

export interface Box3 {
  cx: number;
  cy: number;
  cz: number;
  /** Extent along the box's heading (x axis). */
  length: number;
  /** Extent across the heading (y axis). */
  width: number;
  height: number;
  /** Counter-clockwise about +z from +x, radians. */
  yaw: number;
}

/** BEV corners, counter-clockwise starting at front-right, as [x0, y0, …, x3, y3]. */
export function boxCornersBev(b: Box3): Float64Array {
  const c = Math.cos(b.yaw);
  const s = Math.sin(b.yaw);
  const hl = b.length / 2;
  const hw = b.width / 2;
  const out = new Float64Array(8);
  // Local corners counter-clockwise: (+l,−w), (+l,+w), (−l,+w), (−l,−w).
  const lx = [hl, hl, -hl, -hl];
  const ly = [-hw, hw, hw, -hw];
  for (let i = 0; i < 4; i++) {
    out[2 * i] = b.cx + c * lx[i] - s * ly[i];
    out[2 * i + 1] = b.cy + s * lx[i] + c * ly[i];
  }
  return out;
}

/** True when (x, y, z) lies inside the box (boundary included). */
export function pointInBox(b: Box3, x: number, y: number, z: number): boolean {
  const dz = z - b.cz;
  if (dz < -b.height / 2 || dz > b.height / 2) return false;
  const c = Math.cos(b.yaw);
  const s = Math.sin(b.yaw);
  const dx = x - b.cx;
  const dy = y - b.cy;
  const u = c * dx + s * dy;
  const v = -s * dx + c * dy;
  return Math.abs(u) <= b.length / 2 && Math.abs(v) <= b.width / 2;
}

/** Number of points (struct-of-arrays) inside the box. One pass, no allocation. */
export function countPointsInBox(
  b: Box3,
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  zs: ArrayLike<number>,
): number {
  const c = Math.cos(b.yaw);
  const s = Math.sin(b.yaw);
  const hl = b.length / 2;
  const hw = b.width / 2;
  const zMin = b.cz - b.height / 2;
  const zMax = b.cz + b.height / 2;
  let n = 0;
  for (let i = 0; i < xs.length; i++) {
    const z = zs[i];
    if (z < zMin || z > zMax) continue;
    const dx = xs[i] - b.cx;
    const dy = ys[i] - b.cy;
    if (Math.abs(c * dx + s * dy) <= hl && Math.abs(-s * dx + c * dy) <= hw) n++;
  }
  return n;
}

/** The box expressed in another frame: `target_from_source` applied to a box in `source`. */
export function transformBox(p: Pose, b: Box3): Box3 {
  return {
    cx: p[0] * b.cx + p[1] * b.cy + p[2] * b.cz + p[3],
    cy: p[4] * b.cx + p[5] * b.cy + p[6] * b.cz + p[7],
    cz: p[8] * b.cx + p[9] * b.cy + p[10] * b.cz + p[11],
    length: b.length,
    width: b.width,
    height: b.height,
    yaw: wrapAngle(b.yaw + yawOfPose(p)),
  };
}

export function boxVolume(b: Box3): number {
  return b.length * b.width * b.height;
}
