// Minimum-area enclosing rectangle of 2D points by rotating calipers over the convex hull: the
// standard BEV box fit for a point cluster. Length is the longer side; yaw is its direction in (−π/2, π/2].
import { convexHull } from './polygon.ts';

export interface Rect2 {
  cx: number;
  cy: number;
  length: number;
  width: number;
  yaw: number;
}

export function minAreaRect(xs: ArrayLike<number>, ys: ArrayLike<number>): Rect2 {
  if (xs.length === 0) throw new Error('minAreaRect: no points');
  const hull = convexHull(xs, ys);
  const m = hull.length >> 1;
  if (m === 1) return { cx: hull[0], cy: hull[1], length: 0, width: 0, yaw: 0 };
  const ext = new Float64Array(4);
  let bestArea = Infinity;
  let best: Rect2 = { cx: 0, cy: 0, length: 0, width: 0, yaw: 0 };
  for (let e = 0; e < m; e++) {
    const ex = hull[(2 * e + 2) % (2 * m)] - hull[2 * e];
    const ey = hull[(2 * e + 3) % (2 * m)] - hull[2 * e + 1];
    const norm = Math.hypot(ex, ey);
    if (norm === 0) continue;
    const ux = ex / norm;
    const uy = ey / norm;
    hullExtents(hull, m, ux, uy, ext);
    const area = (ext[1] - ext[0]) * (ext[3] - ext[2]);
    if (area < bestArea - 1e-12) {
      bestArea = area;
      best = rectFromExtents(ux, uy, ext);
    }
  }
  return best;
}

/**
 * Extents of the first `count` hull points along the unit direction (ux, uy) and its left normal, into
 * `out` as [minU, maxU, minV, maxV]: the rectangle rotating calipers consider for that edge direction.
 */
export function hullExtents(
  hull: ArrayLike<number>,
  count: number,
  ux: number,
  uy: number,
  out: Float64Array,
): void {
  let minU = Infinity;
  let maxU = -Infinity;
  let minV = Infinity;
  let maxV = -Infinity;
  for (let i = 0; i < count; i++) {
    const px = hull[2 * i];
    const py = hull[2 * i + 1];
    const u = px * ux + py * uy;
    const v = -px * uy + py * ux;
    if (u < minU) minU = u;
    if (u > maxU) maxU = u;
    if (v < minV) minV = v;
    if (v > maxV) maxV = v;
  }
  out[0] = minU;
  out[1] = maxU;
  out[2] = minV;
  out[3] = maxV;
}

/** The rectangle with extents [minU, maxU, minV, maxV] along (ux, uy); length the longer side, yaw in (−π/2, π/2]. */
export function rectFromExtents(ux: number, uy: number, ext: ArrayLike<number>): Rect2 {
  const cu = (ext[0] + ext[1]) / 2;
  const cv = (ext[2] + ext[3]) / 2;
  let length = ext[1] - ext[0];
  let width = ext[3] - ext[2];
  let yaw = Math.atan2(uy, ux);
  if (width > length) {
    [length, width] = [width, length];
    yaw += Math.PI / 2;
  }
  // Fold into (−π/2, π/2]: a rectangle is symmetric under a half turn.
  while (yaw > Math.PI / 2) yaw -= Math.PI;
  while (yaw <= -Math.PI / 2) yaw += Math.PI;
  return { cx: cu * ux - cv * uy, cy: cu * uy + cv * ux, length, width, yaw };
}
