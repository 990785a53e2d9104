// Junction intentions for a rollout: each driven vehicle or cyclist without a goal or route gets a route
// sampled once, fork by fork, from the turn probabilities — turns vary between rollouts, never mid-rollout.
import type { Rng } from '../../core/rng.ts';
import { type LaneHit, mapIndex, nearestLane } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';
import type { ForkProbabilities } from './forkProbabilities.ts';

export interface IntentionSamplingConfig {
  /** Routes reach this far past the agent's position (beyond any 9 s rollout), metres. */
  routeM: number;
  /** An agent farther than this from every lane gets no route, metres. */
  laneSnapM: number;
}

export const DEFAULT_INTENTION_SAMPLING: IntentionSamplingConfig = { routeM: 250, laneSnapM: 3 };

/**
 * A copy of s whose controlled vehicles and cyclists (present at the current step, with no goal and no
 * route) follow routes sampled from `probs`; everything else, the goals and the log included, is shared.
 */
export function withSampledIntentions(
  s: Scenario,
  probs: ForkProbabilities,
  rng: Rng,
  cfg: IntentionSamplingConfig = DEFAULT_INTENTION_SAMPLING,
): Scenario {
  const m = mapIndex(s.map);
  const a = s.agents;
  const hit: LaneHit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };
  const routes = s.routes.map((r, row) => {
    const type = a.types[row];
    const k = row * s.numSteps + s.currentStep;
    if (r.length || !s.controlled[row] || !a.valid[k] || Number.isFinite(s.goalX[row])) return r;
    if (type !== 'vehicle' && type !== 'cyclist') return r;
    if (!nearestLane(m, a.x[k], a.y[k], a.yaw[k], hit, cfg.laneSnapM)) return r;
    let lane = hit.lane;
    let reach = m.laneLength[lane] - hit.s;
    const route = [m.laneIds[lane]];
    // A loop in the lane graph ends the walk at the length bound, as a dead end ends it early.
    while (reach < cfg.routeM) {
      const succ = m.successors[lane];
      if (!succ.length) break;
      lane = succ.length === 1 ? succ[0] : succ[pick(probs.get(lane), rng)];
      route.push(m.laneIds[lane]);
      reach += m.laneLength[lane];
    }
    return route;
  });
  return { ...s, routes };
}

/** A branch drawn from probabilities p. */
function pick(p: Float32Array | undefined, rng: Rng): number {
  if (!p) throw new Error('withSampledIntentions: a fork without probabilities');
  let u = rng.uniform() * p.reduce((x, y) => x + y, 0);
  for (let k = 0; k < p.length - 1; k++) if ((u -= p[k]) < 0) return k;
  return p.length - 1;
}
