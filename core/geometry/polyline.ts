// 2D polylines on flat [x0, y0, x1, y1, …] arrays: arc length, interpolation at an arc length, and
// projection of a point (station s along the line, signed lateral offset, left positive).

/** Cumulative arc length at each vertex (first 0, last = total length). */
export function cumulativeArcLength(xy: ArrayLike<number>): Float64Array {
  const n = xy.length >> 1;
  const s = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    s[i] = s[i - 1] + Math.hypot(xy[2 * i] - xy[2 * i - 2], xy[2 * i + 1] - xy[2 * i - 1]);
  }
  return s;
}

export function polylineLength(xy: ArrayLike<number>): number {
  const n = xy.length >> 1;
  let total = 0;
  for (let i = 1; i < n; i++) total += Math.hypot(xy[2 * i] - xy[2 * i - 2], xy[2 * i + 1] - xy[2 * i - 1]);
  return total;
}

export interface PolylinePoint {
  x: number;
  y: number;
  /** Direction of travel along the polyline (radians). */
  heading: number;
  /** Index of the segment the point lies on. */
  segment: number;
}

/**
 * The point at arc length `s` (clamped to the line; pass the cumulative lengths when calling often).
 */
export function pointAtArcLength(
  xy: ArrayLike<number>,
  s: number,
  cumulative: Float64Array = cumulativeArcLength(xy),
): PolylinePoint {
  const n = xy.length >> 1;
  if (n === 0) throw new Error('pointAtArcLength: empty polyline');
  if (n === 1) return { x: xy[0], y: xy[1], heading: 0, segment: 0 };
  const total = cumulative[n - 1];
  const t = Math.min(Math.max(s, 0), total);
  // Binary search for the segment [i, i+1] holding t.
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] <= t) lo = mid;
    else hi = mid;
  }
  const segLen = cumulative[lo + 1] - cumulative[lo];
  const u = segLen > 0 ? (t - cumulative[lo]) / segLen : 0;
  const dx = xy[2 * lo + 2] - xy[2 * lo];
  const dy = xy[2 * lo + 3] - xy[2 * lo + 1];
  return { x: xy[2 * lo] + u * dx, y: xy[2 * lo + 1] + u * dy, heading: Math.atan2(dy, dx), segment: lo };
}

export interface Projection {
  /** Arc length of the closest point. */
  s: number;
  /** Signed distance from the line: positive to the left of the direction of travel. */
  lateral: number;
  /** Unsigned distance to the closest point. */
  distance: number;
  /** Heading of the segment of the closest point. */
  heading: number;
  segment: number;
}

/** Closest point of the polyline to (px, py). */
export function projectOntoPolyline(
  xy: ArrayLike<number>,
  px: number,
  py: number,
  cumulative: Float64Array = cumulativeArcLength(xy),
): Projection {
  const n = xy.length >> 1;
  if (n === 0) throw new Error('projectOntoPolyline: empty polyline');
  if (n === 1) {
    const d = Math.hypot(px - xy[0], py - xy[1]);
    return { s: 0, lateral: d, distance: d, heading: 0, segment: 0 };
  }
  let best: Projection = { s: 0, lateral: 0, distance: Infinity, heading: 0, segment: 0 };
  for (let i = 0; i < n - 1; i++) {
    const ax = xy[2 * i];
    const ay = xy[2 * i + 1];
    const dx = xy[2 * i + 2] - ax;
    const dy = xy[2 * i + 3] - ay;
    const len2 = dx * dx + dy * dy;
    const u = len2 > 0 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
    const cx = ax + u * dx;
    const cy = ay + u * dy;
    const d = Math.hypot(px - cx, py - cy);
    if (d < best.distance) {
      const cross = dx * (py - ay) - dy * (px - ax);
      best = {
        s: cumulative[i] + u * Math.sqrt(len2),
        lateral: cross >= 0 ? d : -d,
        distance: d,
        heading: Math.atan2(dy, dx),
        segment: i,
      };
    }
  }
  return best;
}

/** Resample a polyline at a fixed spacing (the last point is always kept). */
export function resamplePolyline(xy: ArrayLike<number>, spacingM: number): Float32Array {
  const cumulative = cumulativeArcLength(xy);
  const total = cumulative[cumulative.length - 1] ?? 0;
  const count = Math.max(2, Math.ceil(total / spacingM) + 1);
  const out = new Float32Array(2 * count);
  for (let k = 0; k < count; k++) {
    const p = pointAtArcLength(xy, (total * k) / (count - 1), cumulative);
    out[2 * k] = p.x;
    out[2 * k + 1] = p.y;
  }
  return out;
}
