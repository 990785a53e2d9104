// A smooth frame along a polyline: headings at vertices (mean of the adjacent segments) interpolated along each
// segment, so an agent driving with a sideways offset moves continuously instead of jumping at every vertex.
import { pointAtArcLength } from '../../core/geometry/polyline.ts';
import { wrapAngleNearest } from '../../core/geometry/pose.ts';

export function vertexHeadings(xy: ArrayLike<number>): Float32Array {
  const n = xy.length >> 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - 1);
    const b = Math.min(n - 1, i + 1);
    // Mean direction of the two segments meeting here (sum of unit vectors).
    let dx = 0;
    let dy = 0;
    if (i > 0) {
      const l = Math.hypot(xy[2 * i] - xy[2 * a], xy[2 * i + 1] - xy[2 * a + 1]) || 1;
      dx += (xy[2 * i] - xy[2 * a]) / l;
      dy += (xy[2 * i + 1] - xy[2 * a + 1]) / l;
    }
    if (i < n - 1) {
      const l = Math.hypot(xy[2 * b] - xy[2 * i], xy[2 * b + 1] - xy[2 * i + 1]) || 1;
      dx += (xy[2 * b] - xy[2 * i]) / l;
      dy += (xy[2 * b + 1] - xy[2 * i + 1]) / l;
    }
    out[i] = Math.atan2(dy, dx);
  }
  return out;
}

/** Point at arc length s with the heading interpolated between the segment's end vertices: [x, y, heading]. */
export function smoothFrameAt(
  xy: ArrayLike<number>,
  cum: Float64Array,
  headings: Float32Array,
  s: number,
): [number, number, number] {
  const p = pointAtArcLength(xy, s, cum);
  const i = p.segment;
  if (i + 1 >= headings.length) return [p.x, p.y, headings[headings.length - 1] ?? p.heading];
  const len = cum[i + 1] - cum[i];
  const u =
    len > 0 ? Math.min(1, Math.max(0, (Math.min(Math.max(s, 0), cum[cum.length - 1]) - cum[i]) / len)) : 0;
  let d = headings[i + 1] - headings[i];
  d = wrapAngleNearest(d);
  return [p.x, p.y, headings[i] + u * d];
}
