// Goals as the real scenarios give them, for training on towns: a share of the agents without a goal get their
// last logged position (WOMD, nuScenes and AV2 importers give every agent that goal; the towns only their ego).
import { hashString, mix32 } from '../../core/rng.ts';
import type { Scenario } from '../scenario.ts';

/**
 * A copy of `s` in which each agent without a goal gets its last valid logged position as goal with probability
 * `share` (a hash of the scenario's id, the agent's id and `seed`, so the same agents on every run).
 */
export function withLoggedGoals(s: Scenario, share: number, seed = 1): Scenario {
  if (!(share >= 0 && share <= 1)) throw new RangeError(`logged-goal share must be in [0, 1], got ${share}`);
  const T = s.numSteps;
  const goalX = s.goalX.slice();
  const goalY = s.goalY.slice();
  const base = hashString(s.id) ^ mix32(seed);
  for (let a = 0; a < goalX.length; a++) {
    if (Number.isFinite(goalX[a]) && Number.isFinite(goalY[a])) continue;
    if (mix32(base ^ mix32(s.agents.ids[a])) / 2 ** 32 >= share) continue;
    for (let t = T - 1; t >= 0; t--) {
      const k = a * T + t;
      if (s.agents.valid[k]) {
        goalX[a] = s.agents.x[k];
        goalY[a] = s.agents.y[k];
        break;
      }
    }
  }
  return { ...s, goalX, goalY };
}
