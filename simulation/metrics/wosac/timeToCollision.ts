// Time to collision with the agent followed (interaction_features.py): the nearest valid box ahead,
// roughly aligned and overlapping the agent's straight trail, at constant speeds; capped at 5 s.
import type { InteractionFrame } from './interactionFrame.ts';

export const MAXIMUM_TIME_TO_COLLISION_S = 5;
/** Heading difference (unwrapped absolute, as the official code) up to which a box can be followed. */
const MAX_HEADING_DIFF = (75 * Math.PI) / 180;
/** With a lateral overlap under SMALL_OVERLAP_M, the headings must agree within 10°. */
const MAX_HEADING_DIFF_FOR_SMALL_OVERLAP = (10 * Math.PI) / 180;
const SMALL_OVERLAP_M = 0.5;

/**
 * Time to collision of agent i: among the valid agents it follows — ahead of its front, heading
 * difference ≤ 75°, overlapping its trail laterally (≥ 0.5 m, or any overlap within 10°) — the one
 * with the smallest gap (ties: the lowest row); gap / (speed_i − speed_leader) when closing, capped
 * at 5 s; 5 s without a leader. Exact: agents whose gap provably exceeds the best gap, or
 * 5 s × speed_i (which cannot give less than 5 s), are skipped.
 */
export function timeToCollision(f: InteractionFrame, i: number): number {
  one[0] = i;
  timesToCollision(f, one, null, result, 0, 1);
  return result[0];
}

const one = new Int32Array(1);
const result = new Float64Array(1);

/**
 * timeToCollision of each agent of `agents` (validity not checked; 5 s where `vehicle[e]` is 0),
 * written to out[o0 + e·stride]: one call per frame, the loop over agents inside. The side ahead
 * in x is swept first, so the best gap bounds the sweep behind.
 */
export function timesToCollision(
  f: InteractionFrame,
  agents: Int32Array,
  vehicle: Uint8Array | null,
  out: Float32Array | Float64Array,
  o0: number,
  stride: number,
): void {
  const { x, y, yaw, valid, length, width, radius, order, rank, speed } = f;
  // A follower's centre lies within hw + (L_j + W_j)/2 of the trail, so gap ≥ dist − hl − hw − (L_j + W_j).
  const maxExt = f.maxExtent;
  for (let e = 0; e < agents.length; e++) {
    const i = agents[e];
    const o = o0 + e * stride;
    const vi = speed[i];
    // Closing speed ≤ vi since speeds are ≥ 0: without positive speed no leader can give less than 5 s.
    if ((vehicle !== null && !vehicle[e]) || !(vi > 0)) {
      out[o] = MAXIMUM_TIME_TO_COLLISION_S;
      continue;
    }
    const ci = f.cos[i];
    const sni = f.sin[i];
    const hl = length[i] / 2;
    const hw = width[i] / 2;
    const horizon = MAXIMUM_TIME_TO_COLLISION_S * vi;
    let bestGap = Infinity;
    let bestJ = -1;
    const slack = hl + hw;
    const first = ci >= 0 ? 1 : -1;
    // Sweeping behind (u = ddx·sign(cos) ≤ 0): since ddx = cos·relX − sin·relY, a leader (relX > hl,
    // |relY| < hw + latOff ≤ hw + the largest half diagonal) needs u > hl·|cos| − |sin|·lat; once u is
    // below that (with a margin far above rounding), so is every agent further behind.
    const absC = Math.abs(ci);
    const behindLimit = absC > 1e-3 ? hl * absC - Math.abs(sni) * (hw + f.maxRadius) * (1 + 1e-9) : -Infinity;
    for (let side = 0; side < 2; side++) {
      const dir = side === 0 ? first : -first;
      for (let p = rank[i] + dir; p >= 0 && p < f.n; p += dir) {
        const j = order[p];
        const ddx = x[j] - x[i];
        const bound = Math.abs(ddx) - slack - maxExt;
        if (bound > bestGap || bound >= horizon) break;
        if (side === 1) {
          const u = ddx * first;
          if (u <= behindLimit - 1e-6 * (1 + Math.abs(u))) break;
        }
        if (!valid[j]) continue;
        const ddy = y[j] - y[i];
        // Cheap exact rejections first: the leader's centre must be ahead of i's front (gap > 0 needs
        // relX − hl > longOff ≥ 0) and, laterally, within hw + latOff ≤ hw + radius_j of i's axis
        // (latOff = L/2·|sin| + W/2·|cos| ≤ the half diagonal; the slack covers rounding); and a
        // gap provably above the best (longOff ≤ radius_j) cannot win.
        const relX = ddx * ci + ddy * sni;
        if (!(relX - hl > 0)) continue;
        const rj = radius[j] * (1 + 1e-9) + 1e-9;
        if (relX - hl - rj > bestGap + 1e-9 * (1 + bestGap)) continue;
        const relY = -ddx * sni + ddy * ci;
        if (Math.abs(relY) - hw >= rj) continue;
        const yawDiff = Math.abs(yaw[j] - yaw[i]);
        if (!(yawDiff <= MAX_HEADING_DIFF)) continue;
        const c = Math.abs(Math.cos(yawDiff));
        const s = Math.abs(Math.sin(yawDiff));
        const longOff = (length[j] / 2) * c + (width[j] / 2) * s;
        const latOff = (length[j] / 2) * s + (width[j] / 2) * c;
        const gap = relX - hl - longOff;
        if (!(gap > 0)) continue;
        const latOverlap = Math.abs(relY) - hw - latOff;
        if (!(latOverlap < 0)) continue;
        if (!(latOverlap < -SMALL_OVERLAP_M || yawDiff <= MAX_HEADING_DIFF_FOR_SMALL_OVERLAP)) continue;
        if (gap < bestGap || (gap === bestGap && j < bestJ)) {
          bestGap = gap;
          bestJ = j;
        }
      }
    }
    if (bestJ < 0) {
      out[o] = MAXIMUM_TIME_TO_COLLISION_S;
      continue;
    }
    const rel = vi - speed[bestJ];
    out[o] = rel > 0 ? Math.min(bestGap / rel, MAXIMUM_TIME_TO_COLLISION_S) : MAXIMUM_TIME_TO_COLLISION_S;
  }
}
