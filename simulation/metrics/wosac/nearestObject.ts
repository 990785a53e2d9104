// Distance to the nearest object (interaction_features.py): signed distance between rounded boxes to
// the closest other valid agent; bounding circles and separating axes skip agents that cannot be closer.
import type { InteractionFrame } from './interactionFrame.ts';

/** What the official code returns with no other valid agent (then clipped into the last bin). */
export const EXTREMELY_LARGE_DISTANCE = 1e10;

/**
 * Distance from agent i (valid) to the nearest other valid agent of the frame, boxes with corners
 * rounded by `factor` (boxDistance.ts roundedBoxDistance, inlined here: a call with a dozen float
 * arguments costs more than the arithmetic); EXTREMELY_LARGE_DISTANCE when none is closer than
 * `capM`. Exact below the cap: the x-sorted sweep stops, and a pair is skipped, only where a lower
 * bound (bounding circles, then the separating-axis gap) proves it cannot be closer.
 *
 * Why a cap changes no score: the histogram clips every value into [minVal, maxVal], so all values
 * ≥ maxVal fall into the last bin, and the collision flag only asks d < 0. With capM = max(maxVal, 0)
 * the capped result is exact wherever it is below the cap and ≥ maxVal (last bin, no collision)
 * wherever the true distance is — the same bin and flag, hence identical likelihoods.
 */
export function nearestObjectDistance(
  f: InteractionFrame,
  i: number,
  factor: number,
  capM = Infinity,
): number {
  one[0] = i;
  nearestObjectDistances(f, one, factor, capM, result, 0, 1);
  return result[0];
}

const one = new Int32Array(1);
const result = new Float64Array(1);

/**
 * nearestObjectDistance of each agent of `agents` (validity not checked), written to
 * out[o0 + e·stride]: one call per frame, the loop over agents inside (no per-agent call overhead).
 * The sweep goes outwards alternating sides, nearest x first, so the bound tightens early.
 */
export function nearestObjectDistances(
  f: InteractionFrame,
  agents: Int32Array,
  factor: number,
  capM: number,
  out: Float32Array | Float64Array,
  o0: number,
  stride: number,
): void {
  f.setRounding(factor);
  const { x, y, cos, sin, valid, radius, order, rank, shrink, coreHalfLength, coreHalfWidth } = f;
  const hint = f.nearestHint;
  const n = f.n;
  const start = capM < EXTREMELY_LARGE_DISTANCE ? capM : EXTREMELY_LARGE_DISTANCE;
  for (let e = 0; e < agents.length; e++) {
    const i = agents[e];
    const si = shrink[i];
    const ahl = coreHalfLength[i];
    const ahw = coreHalfWidth[i];
    const ac = cos[i];
    const as = sin[i];
    const ri = radius[i];
    let best = start;
    const reach = ri + f.maxRadius;
    const ax = x[i];
    const ay = y[i];
    let lo = rank[i] - 1;
    let hi = rank[i] + 1;
    // Last frame's nearest agent goes first (any agent would do: it only tightens the bound early),
    // and is not measured again in the sweep.
    const first = hint[i] !== i ? hint[i] : -1;
    let sweeping = first < 0;
    let j = first;
    let bestJ = -1;
    for (;;) {
      if (sweeping) {
        if (lo < 0 && hi >= n) break;
        // The side whose next agent is nearer in x; when even it is out of reach, so is everything.
        const dLo = lo >= 0 ? ax - x[order[lo]] : Infinity;
        const dHi = hi < n ? x[order[hi]] - ax : Infinity;
        j = dLo <= dHi ? order[lo--] : order[hi++];
        if (Math.abs(x[j] - ax) - reach >= best) break;
        if (j === first) continue;
      }
      sweeping = true;
      if (!valid[j]) continue;
      const dx = x[j] - ax;
      const dy = y[j] - ay;
      // Bounding circles: centre distance − both half diagonals ≤ d; compared squared, with a margin
      // far above rounding, so a skipped agent is certainly not closer.
      const reachJ = best + ri + radius[j] + 1e-9;
      if (reachJ <= 0 || dx * dx + dy * dy > reachJ * reachJ) continue;
      const sj = shrink[j];
      const bc = cos[j];
      const bs = sin[j];
      const bhl = coreHalfLength[j];
      const bhw = coreHalfWidth[j];
      // Separating axes of the two cores: the overlap along each box axis.
      const cosAB = Math.abs(ac * bc + as * bs);
      const sinAB = Math.abs(ac * bs - as * bc);
      const oA1 = ahl + bhl * cosAB + bhw * sinAB - Math.abs(dx * ac + dy * as);
      const oA2 = ahw + bhl * sinAB + bhw * cosAB - Math.abs(-dx * as + dy * ac);
      const oB1 = bhl + ahl * cosAB + ahw * sinAB - Math.abs(dx * bc + dy * bs);
      const oB2 = bhw + ahl * sinAB + ahw * cosAB - Math.abs(-dx * bs + dy * bc);
      let core: number;
      if (oA1 > 0 && oA2 > 0 && oB1 > 0 && oB2 > 0) core = -Math.min(oA1, oA2, oB1, oB2);
      else {
        // Apart: the cores are at least the largest axis gap apart (a separating axis), so the
        // corner search is skipped when even that cannot beat the best (slack covers rounding).
        const gap = -Math.min(oA1, oA2, oB1, oB2);
        if (gap - si - sj >= best + 1e-9 * (1 + Math.abs(best))) continue;
        // The closest pair of points has a corner of one core on the other core: squared
        // distances of B's corners to A, then A's corners to B, one square root at the end.
        // B's corners in A's frame, then A's corners in B's frame (straight-line code: the loop
        // with per-side selections cost more than the arithmetic).
        const bx = dx * ac + dy * as;
        const by = -dx * as + dy * ac;
        const blx = (bc * ac + bs * as) * bhl;
        const bly = (-bc * as + bs * ac) * bhl;
        const bwx = (-bs * ac + bc * as) * bhw;
        const bwy = (bs * as + bc * ac) * bhw;
        const ax2 = -dx * bc + -dy * bs;
        const ay2 = dx * bs + -dy * bc;
        const alx = (ac * bc + as * bs) * ahl;
        const aly = (-ac * bs + as * bc) * ahl;
        const awx = (-as * bc + ac * bs) * ahw;
        const awy = (as * bs + ac * bc) * ahw;
        const d2 = Math.min(
          corner2(bx + blx + bwx, by + bly + bwy, ahl, ahw),
          corner2(bx - blx + bwx, by - bly + bwy, ahl, ahw),
          corner2(bx + blx - bwx, by + bly - bwy, ahl, ahw),
          corner2(bx - blx - bwx, by - bly - bwy, ahl, ahw),
          corner2(ax2 + alx + awx, ay2 + aly + awy, bhl, bhw),
          corner2(ax2 - alx + awx, ay2 - aly + awy, bhl, bhw),
          corner2(ax2 + alx - awx, ay2 + aly - awy, bhl, bhw),
          corner2(ax2 - alx - awx, ay2 - aly - awy, bhl, bhw),
        );
        core = Math.sqrt(d2);
      }
      const d = core - si - sj;
      if (d < best) {
        best = d;
        bestJ = j;
      }
    }
    hint[i] = bestJ;
    out[o0 + e * stride] = best < capM ? best : EXTREMELY_LARGE_DISTANCE;
  }
}

/** Squared distance from a point (in a box's frame) to the box of half length hl, half width hw. */
function corner2(px: number, py: number, hl: number, hw: number): number {
  const ex = Math.abs(px) - hl;
  const ey = Math.abs(py) - hw;
  const ux = ex > 0 ? ex : 0;
  const uy = ey > 0 ? ey : 0;
  return ux * ux + uy * uy;
}
