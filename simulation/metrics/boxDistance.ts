// Signed distance between two oriented BEV boxes (the Sim Agents "distance to nearest object"):
// the gap between their outlines when apart, minus the penetration depth when they overlap.

function pointSegmentDist2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const u = len2 > 0 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
  const ex = px - ax - u * dx;
  const ey = py - ay - u * dy;
  return ex * ex + ey * ey;
}

const ca = new Float64Array(8);
const cb = new Float64Array(8);

function corners(out: Float64Array, x: number, y: number, yaw: number, l: number, w: number): void {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  const hl = l / 2;
  const hw = w / 2;
  // Counter-clockwise: (+l,−w), (+l,+w), (−l,+w), (−l,−w).
  out[0] = x + c * hl + s * hw;
  out[1] = y + s * hl - c * hw;
  out[2] = x + c * hl - s * hw;
  out[3] = y + s * hl + c * hw;
  out[4] = x - c * hl - s * hw;
  out[5] = y - s * hl + c * hw;
  out[6] = x - c * hl + s * hw;
  out[7] = y - s * hl - c * hw;
}

/** Smallest overlap of the boxes' projections over the four SAT axes (≤ 0 when separated). */
function penetration(
  ax: number,
  ay: number,
  ayaw: number,
  al: number,
  aw: number,
  bx: number,
  by: number,
  byaw: number,
  bl: number,
  bw: number,
): number {
  const dx = bx - ax;
  const dy = by - ay;
  const cA = Math.cos(ayaw);
  const sA = Math.sin(ayaw);
  const cB = Math.cos(byaw);
  const sB = Math.sin(byaw);
  const c = Math.abs(cA * cB + sA * sB);
  const s = Math.abs(sA * cB - cA * sB);
  const o1 = al / 2 + (bl / 2) * c + (bw / 2) * s - Math.abs(dx * cA + dy * sA);
  const o2 = aw / 2 + (bl / 2) * s + (bw / 2) * c - Math.abs(-dx * sA + dy * cA);
  const o3 = bl / 2 + (al / 2) * c + (aw / 2) * s - Math.abs(dx * cB + dy * sB);
  const o4 = bw / 2 + (al / 2) * s + (aw / 2) * c - Math.abs(-dx * sB + dy * cB);
  return Math.min(o1, o2, o3, o4);
}

/** Signed distance between two boxes: > 0 gap, < 0 overlap (minus the minimum translation to part). */
export function boxDistance(
  ax: number,
  ay: number,
  ayaw: number,
  al: number,
  aw: number,
  bx: number,
  by: number,
  byaw: number,
  bl: number,
  bw: number,
): number {
  const pen = penetration(ax, ay, ayaw, al, aw, bx, by, byaw, bl, bw);
  if (pen > 0) return -pen;
  corners(ca, ax, ay, ayaw, al, aw);
  corners(cb, bx, by, byaw, bl, bw);
  let best = Infinity;
  for (let i = 0; i < 4; i++) {
    for (let e = 0; e < 4; e++) {
      const f = (e + 1) & 3;
      best = Math.min(
        best,
        pointSegmentDist2(ca[2 * i], ca[2 * i + 1], cb[2 * e], cb[2 * e + 1], cb[2 * f], cb[2 * f + 1]),
        pointSegmentDist2(cb[2 * i], cb[2 * i + 1], ca[2 * e], ca[2 * e + 1], ca[2 * f], ca[2 * f + 1]),
      );
    }
  }
  return Math.sqrt(best);
}
