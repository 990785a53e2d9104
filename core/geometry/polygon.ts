// 2D polygon primitives on flat [x0, y0, x1, y1, …] arrays: signed area, convex hull and
// convex–convex clipping (Sutherland–Hodgman), the exact core of rotated-box IoU.

/** Signed area (positive when counter-clockwise) of a polygon given as [x0, y0, x1, y1, …]. */
export function polygonArea(xy: ArrayLike<number>): number {
  const n = xy.length >> 1;
  let s = 0;
  for (let i = 0, j = n - 1; i < n; j = i++) s += xy[2 * j] * xy[2 * i + 1] - xy[2 * i] * xy[2 * j + 1];
  return s / 2;
}

/** Convex hull (counter-clockwise, no repeated end point) by Andrew's monotone chain. */
export function convexHull(xs: ArrayLike<number>, ys: ArrayLike<number>): Float64Array {
  const n = xs.length;
  if (n <= 1) return n === 1 ? Float64Array.of(xs[0], ys[0]) : new Float64Array(0);
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => xs[a] - xs[b] || ys[a] - ys[b]);
  const hull = new Int32Array(2 * n + 1);
  let k = 0;
  const cross = (o: number, a: number, b: number) =>
    (xs[a] - xs[o]) * (ys[b] - ys[o]) - (ys[a] - ys[o]) * (xs[b] - xs[o]);
  for (let i = 0; i < n; i++) {
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], idx[i]) <= 0) k--;
    hull[k++] = idx[i];
  }
  for (let i = n - 2, lower = k + 1; i >= 0; i--) {
    while (k >= lower && cross(hull[k - 2], hull[k - 1], idx[i]) <= 0) k--;
    hull[k++] = idx[i];
  }
  const m = Math.max(0, Math.min(k - 1, n));
  const out = new Float64Array(2 * m);
  for (let i = 0; i < m; i++) {
    out[2 * i] = xs[hull[i]];
    out[2 * i + 1] = ys[hull[i]];
  }
  return out;
}

/**
 * Intersection of two convex counter-clockwise polygons (Sutherland–Hodgman: clip `subject`
 * by each edge of `clip`). Returns the intersection polygon, possibly empty.
 */
export function clipConvexPolygons(subject: ArrayLike<number>, clip: ArrayLike<number>): number[] {
  let out: number[] = Array.from(subject);
  const m = clip.length >> 1;
  for (let e = 0; e < m && out.length > 0; e++) {
    const ax = clip[2 * e];
    const ay = clip[2 * e + 1];
    const bx = clip[(2 * e + 2) % (2 * m)];
    const by = clip[(2 * e + 3) % (2 * m)];
    const ex = bx - ax;
    const ey = by - ay;
    // Positive side = left of the edge = inside, for a counter-clockwise clip polygon.
    const side = (px: number, py: number) => ex * (py - ay) - ey * (px - ax);
    const input = out;
    out = [];
    const n = input.length >> 1;
    for (let i = 0; i < n; i++) {
      const px = input[2 * i];
      const py = input[2 * i + 1];
      const qx = input[(2 * i + 2) % (2 * n)];
      const qy = input[(2 * i + 3) % (2 * n)];
      const sp = side(px, py);
      const sq = side(qx, qy);
      if (sp >= 0) out.push(px, py);
      if ((sp > 0 && sq < 0) || (sp < 0 && sq > 0)) {
        const t = sp / (sp - sq);
        out.push(px + t * (qx - px), py + t * (qy - py));
      }
    }
  }
  return out;
}
