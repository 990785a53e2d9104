// Progress along the route (Waymax "progression"): arc length gained along the agent's route by the
// end of the rollout, relative to what the log gained. The route is the agent's lane route when it
// has one, else its logged path from the current step on.
import { cumulativeArcLength, projectOntoPolyline } from '../../core/geometry/polyline.ts';
import type { Scenario } from '../scenario.ts';
import type { Trajectories } from './trajectoryFeatures.ts';

export interface ProgressConfig {
  /** Agents whose log moves less than this along the route are not scored, metres. */
  minLogProgressM: number;
}

export const DEFAULT_PROGRESS: ProgressConfig = { minLogProgressM: 2 };

/** The route polyline of agent a: its lanes joined, else its logged positions from `from − 1` on. */
export function routePolyline(s: Scenario, a: number, from: number): Float64Array {
  const route = s.routes[a];
  if (route.length > 0) {
    const byId = new Map(s.map.lanes.map((l) => [l.id, l]));
    const pts: number[] = [];
    for (const id of route) {
      const l = byId.get(id);
      if (l) for (const v of l.xy) pts.push(v);
    }
    if (pts.length >= 4) return Float64Array.from(pts);
  }
  const T = s.numSteps;
  const pts: number[] = [];
  for (let t = Math.max(0, from - 1); t < T; t++) {
    const k = a * T + t;
    if (s.agents.valid[k]) pts.push(s.agents.x[k], s.agents.y[k]);
  }
  return Float64Array.from(pts);
}

function lastValid(tr: Trajectories, a: number, T: number, from: number, to: number): number {
  for (let t = to - 1; t >= from; t--) if (tr.valid[a * T + t]) return a * T + t;
  return -1;
}

/**
 * Per agent: (route arc length at the rollout's last valid step − at the start) divided by the same
 * for the log. NaN for agents not evaluated, without a route or whose log barely moves.
 */
export function progressRatio(
  s: Scenario,
  sim: Trajectories,
  evaluated: Uint8Array,
  from: number,
  to: number,
  cfg: ProgressConfig = DEFAULT_PROGRESS,
): Float64Array {
  const n = s.agents.ids.length;
  const T = s.numSteps;
  const out = new Float64Array(n).fill(NaN);
  for (let a = 0; a < n; a++) {
    if (!evaluated[a]) continue;
    const start = a * T + from - 1;
    if (from < 1 || !s.agents.valid[start]) continue;
    const route = routePolyline(s, a, from);
    if (route.length < 4) continue;
    const cum = cumulativeArcLength(route);
    const s0 = projectOntoPolyline(route, s.agents.x[start], s.agents.y[start], cum).s;
    const kl = lastValid(s.agents, a, T, from, to);
    const ks = lastValid(sim, a, T, from, to);
    if (kl < 0 || ks < 0) continue;
    const logGain = projectOntoPolyline(route, s.agents.x[kl], s.agents.y[kl], cum).s - s0;
    if (logGain < cfg.minLogProgressM) continue;
    out[a] = (projectOntoPolyline(route, sim.x[ks], sim.y[ks], cum).s - s0) / logGain;
  }
  return out;
}
