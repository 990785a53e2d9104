// Signed distance between two agent boxes with rounded corners, as the Sim Agents metric's distance
// to the nearest object (interaction_features.py): positive apart, negative overlapping.

/**
 * Signed distance between two oriented rectangles given by centre, heading (cos, sin) and half
 * length / half width: the distance between them when apart, minus the penetration depth (the
 * smallest translation that separates them) when they overlap. Equal to the official signed distance
 * of the origin to the Minkowski difference of the two boxes.
 */
export function rectSignedDistance(
  ax: number,
  ay: number,
  ac: number,
  as: number,
  ahl: number,
  ahw: number,
  bx: number,
  by: number,
  bc: number,
  bs: number,
  bhl: number,
  bhw: number,
): number {
  const dx = bx - ax;
  const dy = by - ay;
  // Separating-axis test on the four box axes; the overlap along an axis is how far the projections
  // interpenetrate (the Minkowski difference's support distance along that normal).
  const cosAB = Math.abs(ac * bc + as * bs);
  const sinAB = Math.abs(ac * bs - as * bc);
  const oA1 = ahl + bhl * cosAB + bhw * sinAB - Math.abs(dx * ac + dy * as);
  const oA2 = ahw + bhl * sinAB + bhw * cosAB - Math.abs(-dx * as + dy * ac);
  const oB1 = bhl + ahl * cosAB + ahw * sinAB - Math.abs(dx * bc + dy * bs);
  const oB2 = bhw + ahl * sinAB + ahw * cosAB - Math.abs(-dx * bs + dy * bc);
  if (oA1 > 0 && oA2 > 0 && oB1 > 0 && oB2 > 0) return -Math.min(oA1, oA2, oB1, oB2);
  // Apart: the closest pair of points has a vertex of one box on the other box. Squared distances
  // compared, one square root at the end (sqrt is monotonic and correctly rounded: the same result).
  const p = cornersToRect2(ax, ay, ac, as, ahl, ahw, bx, by, bc, bs, bhl, bhw);
  const q = cornersToRect2(bx, by, bc, bs, bhl, bhw, ax, ay, ac, as, ahl, ahw);
  return Math.sqrt(p < q ? p : q);
}

/** Smallest squared distance from the four corners of box P to the (solid) box Q. */
function cornersToRect2(
  px: number,
  py: number,
  pc: number,
  ps: number,
  phl: number,
  phw: number,
  qx: number,
  qy: number,
  qc: number,
  qs: number,
  qhl: number,
  qhw: number,
): number {
  // P's centre and half-axes in Q's frame.
  const rx = px - qx;
  const ry = py - qy;
  const cx = rx * qc + ry * qs;
  const cy = -rx * qs + ry * qc;
  const lx = (pc * qc + ps * qs) * phl;
  const ly = (-pc * qs + ps * qc) * phl;
  const wx = (-ps * qc + pc * qs) * phw;
  const wy = (ps * qs + pc * qc) * phw;
  let best = Infinity;
  for (let k = 0; k < 4; k++) {
    const sl = k & 1 ? -1 : 1;
    const sw = k & 2 ? -1 : 1;
    const ex = Math.abs(cx + sl * lx + sw * wx) - qhl;
    const ey = Math.abs(cy + sl * ly + sw * wy) - qhw;
    const ux = ex > 0 ? ex : 0;
    const uy = ey > 0 ? ey : 0;
    const d2 = ux * ux + uy * uy;
    if (d2 < best) best = d2;
  }
  return best;
}

/** How much each side of a box is pulled in before rounding: min(length, width) × factor / 2. */
export function roundingShrinkM(lengthM: number, widthM: number, factor: number): number {
  return (Math.min(lengthM, widthM) * factor) / 2;
}

/**
 * The official distance between two rounded boxes: the distance between their "cores" (each side
 * pulled in by the shrink) minus both shrinks. Boxes are (x, y, heading, length, width).
 */
export function roundedBoxDistance(
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
  factor: number,
): number {
  const sa = roundingShrinkM(al, aw, factor);
  const sb = roundingShrinkM(bl, bw, factor);
  const core = rectSignedDistance(
    ax,
    ay,
    Math.cos(ayaw),
    Math.sin(ayaw),
    al / 2 - sa,
    aw / 2 - sa,
    bx,
    by,
    Math.cos(byaw),
    Math.sin(byaw),
    bl / 2 - sb,
    bw / 2 - sb,
  );
  return core - sa - sb;
}
