// Distance to the nearest object (interaction_features.py): signed distance between rounded boxes to
// the closest other valid agent, no search cap; bounding circles skip agents that cannot be closer.
import { rectSignedDistance, roundingShrinkM } from './boxDistance.ts';
import type { InteractionFrame } from './interactionFrame.ts';

/** What the official code returns with no other valid agent (then clipped into the last bin). */
export const EXTREMELY_LARGE_DISTANCE = 1e10;

/**
 * Distance from agent i (valid) to the nearest other valid agent of the frame, boxes with corners
 * rounded by `factor`; EXTREMELY_LARGE_DISTANCE when none. Exact: the x-sorted sweep stops only
 * where the bounding circles prove no further agent can be closer.
 */
export function nearestObjectDistance(f: InteractionFrame, i: number, factor: number): number {
  const { x, y, cos, sin, valid, length, width, radius, order, rank } = f;
  const si = roundingShrinkM(length[i], width[i], factor);
  const ihl = length[i] / 2 - si;
  const ihw = width[i] / 2 - si;
  let best = EXTREMELY_LARGE_DISTANCE;
  const reach = radius[i] + f.maxRadius;
  const xi = x[i];
  const yi = y[i];
  for (let dir = -1; dir <= 1; dir += 2) {
    for (let p = rank[i] + dir; p >= 0 && p < f.n; p += dir) {
      const j = order[p];
      const ddx = x[j] - xi;
      if (Math.abs(ddx) - reach >= best) break;
      if (!valid[j]) continue;
      const ddy = y[j] - yi;
      if (Math.sqrt(ddx * ddx + ddy * ddy) - radius[i] - radius[j] >= best) continue;
      const sj = roundingShrinkM(length[j], width[j], factor);
      const d =
        rectSignedDistance(
          xi,
          yi,
          cos[i],
          sin[i],
          ihl,
          ihw,
          x[j],
          y[j],
          cos[j],
          sin[j],
          length[j] / 2 - sj,
          width[j] / 2 - sj,
        ) -
        si -
        sj;
      if (d < best) best = d;
    }
  }
  return best;
}
