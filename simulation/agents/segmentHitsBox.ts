// Does a line segment cross an oriented box? The slab test in the box frame; the IDM agent uses it for line of
// sight (a pedestrian hidden behind a vehicle is not seen).

/** Does the segment a→b cross the oriented box? (Slab test in the box frame.) */
export function segmentHitsBox(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  cx: number,
  cy: number,
  yaw: number,
  l: number,
  w: number,
): boolean {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  const px = (ax - cx) * c + (ay - cy) * s;
  const py = -(ax - cx) * s + (ay - cy) * c;
  const dx = (bx - ax) * c + (by - ay) * s;
  const dy = -(bx - ax) * s + (by - ay) * c;
  let t0 = 0;
  let t1 = 1;
  for (const [p, d, h] of [
    [px, dx, l / 2],
    [py, dy, w / 2],
  ]) {
    if (Math.abs(d) < 1e-12) {
      if (Math.abs(p) > h) return false;
      continue;
    }
    let ta = (-h - p) / d;
    let tb = (h - p) / d;
    if (ta > tb) [ta, tb] = [tb, ta];
    t0 = Math.max(t0, ta);
    t1 = Math.min(t1, tb);
    if (t0 > t1) return false;
  }
  return true;
}
