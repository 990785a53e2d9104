// The leader of a vehicle: the nearest agent whose box reaches into its corridor along the sampled path ahead,
// as the gap to its front bumper and the closing speed that IDM follows.
import { halfExtentAcross, halfExtentAlong } from '../../agents/boxExtent.ts';
import type { PathSamples } from './lanePath.ts';
import type { AgentState } from './trafficState.ts';

/**
 * Nearest obstacle along the n path samples of agent i: [gap to its front bumper, closing speed]; gap Infinity
 * when free. An agent is in the path when it is within the corridor around the lane (offset `bias`) or around
 * where i is now (offset `lateralSelf`, mid lane change).
 */
export function leaderOnPath(
  a: AgentState,
  i: number,
  path: PathSamples,
  n: number,
  bias: number,
  lateralSelf: number,
  reachMarginM: number,
  corridorMarginM: number,
): [number, number] {
  const { x: X, y: Y } = a;
  const myHalfL = a.length[i] / 2;
  const myHalfW = a.width[i] / 2;
  const reach = path.dist[n - 1] + reachMarginM;
  let bestGap = Infinity;
  let bestClosing = 0;
  for (let j = 0; j < a.count; j++) {
    if (j === i) continue;
    const dx0 = X[j] - X[i];
    const dy0 = Y[j] - Y[i];
    if (dx0 * dx0 + dy0 * dy0 > reach * reach) continue;
    let kBest = 0;
    let dBest = Infinity;
    for (let k = 0; k < n; k++) {
      const d = (X[j] - path.x[k]) ** 2 + (Y[j] - path.y[k]) ** 2;
      if (d < dBest) {
        dBest = d;
        kBest = k;
      }
    }
    const c = Math.cos(path.heading[kBest]);
    const s = Math.sin(path.heading[kBest]);
    const ex = X[j] - path.x[kBest];
    const ey = Y[j] - path.y[kBest];
    const along = c * ex + s * ey;
    const lat = -s * ex + c * ey;
    const rel = a.yaw[j] - path.heading[kBest];
    const cosRel = Math.cos(rel);
    const sinRel = Math.sin(rel);
    const extAlong = halfExtentAlong(a.length[j], a.width[j], cosRel, sinRel);
    const extLat = halfExtentAcross(a.length[j], a.width[j], cosRel, sinRel);
    const corridor = myHalfW + extLat + corridorMarginM;
    if (Math.min(Math.abs(lat - bias), Math.abs(lat - lateralSelf)) >= corridor) continue;
    const centreAhead = path.dist[kBest] + along;
    if (centreAhead <= 0) continue;
    const gap = centreAhead - extAlong - myHalfL;
    if (gap < bestGap) {
      bestGap = gap;
      bestClosing = a.v[i] - a.v[j] * cosRel;
    }
  }
  return [bestGap, bestClosing];
}
