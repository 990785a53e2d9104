// Overlap of oriented rectangles in the ground plane by the separating-axis theorem, used to keep the
// town's agents (and static objects) from ever interpenetrating.

export interface Rect2 {
  x: number;
  y: number;
  yaw: number;
  /** Extent along the heading and across it. */
  length: number;
  width: number;
}

/** True when the two rectangles, each grown by `margin` on every side, overlap (touching is not overlap). */
export function rectsOverlap(a: Rect2, b: Rect2, margin = 0): boolean {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const ra = Math.hypot(a.length, a.width) / 2 + margin;
  const rb = Math.hypot(b.length, b.width) / 2 + margin;
  if (dx * dx + dy * dy >= (ra + rb) * (ra + rb)) return false;
  const ca = Math.cos(a.yaw);
  const sa = Math.sin(a.yaw);
  const cb = Math.cos(b.yaw);
  const sb = Math.sin(b.yaw);
  const ahl = a.length / 2 + margin;
  const ahw = a.width / 2 + margin;
  const bhl = b.length / 2 + margin;
  const bhw = b.width / 2 + margin;
  // Axes: a's heading and normal, b's heading and normal.
  const axes: [number, number][] = [
    [ca, sa],
    [-sa, ca],
    [cb, sb],
    [-sb, cb],
  ];
  for (const [ux, uy] of axes) {
    const ra2 = ahl * Math.abs(ca * ux + sa * uy) + ahw * Math.abs(-sa * ux + ca * uy);
    const rb2 = bhl * Math.abs(cb * ux + sb * uy) + bhw * Math.abs(-sb * ux + cb * uy);
    if (Math.abs(dx * ux + dy * uy) >= ra2 + rb2) return false;
  }
  return true;
}
