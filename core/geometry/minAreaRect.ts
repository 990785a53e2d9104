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
  let best = { area: Infinity, cx: 0, cy: 0, length: 0, width: 0, yaw: 0 };
  for (let e = 0; e < m; e++) {
    const ex = hull[(2 * e + 2) % (2 * m)] - hull[2 * e];
    const ey = hull[(2 * e + 3) % (2 * m)] - hull[2 * e + 1];
    const norm = Math.hypot(ex, ey);
    if (norm === 0) continue;
    const ux = ex / norm;
    const uy = ey / norm;
    let minU = Infinity;
    let maxU = -Infinity;
    let minV = Infinity;
    let maxV = -Infinity;
    for (let i = 0; i < m; i++) {
      const px = hull[2 * i];
      const py = hull[2 * i + 1];
      const u = px * ux + py * uy;
      const v = -px * uy + py * ux;
      if (u < minU) minU = u;
      if (u > maxU) maxU = u;
      if (v < minV) minV = v;
      if (v > maxV) maxV = v;
    }
    const du = maxU - minU;
    const dv = maxV - minV;
    const area = du * dv;
    if (area < best.area - 1e-12) {
      const cu = (minU + maxU) / 2;
      const cv = (minV + maxV) / 2;
      const cx = cu * ux - cv * uy;
      const cy = cu * uy + cv * ux;
      let yaw = Math.atan2(uy, ux);
      let length = du;
      let width = dv;
      if (dv > du) {
        length = dv;
        width = du;
        yaw += Math.PI / 2;
      }
      // Fold into (−π/2, π/2]: a rectangle is symmetric under a half turn.
      while (yaw > Math.PI / 2) yaw -= Math.PI;
      while (yaw <= -Math.PI / 2) yaw += Math.PI;
      best = { area, cx, cy, length, width, yaw };
    }
  }
  return { cx: best.cx, cy: best.cy, length: best.length, width: best.width, yaw: best.yaw };
}
