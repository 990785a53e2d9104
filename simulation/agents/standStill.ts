// A deliberately broken agent, the sanity row of the realism tables: every agent it drives stands still
// at its current pose for the whole rollout. A metric that does not score it far below IDM is broken.
import { ACTION_STRIDE, type SimEnv } from '../env.ts';
import type { Policy } from './policy.ts';

export class StandStillPolicy implements Policy {
  readonly name = 'still';

  reset(env: SimEnv): void {
    env.setDynamics('delta');
  }

  act(env: SimEnv): void {
    for (let g = 0; g < env.n; g++) {
      if (!env.controlled[g]) continue;
      const o = g * ACTION_STRIDE;
      env.actions[o] = 0;
      env.actions[o + 1] = 0;
      env.actions[o + 2] = 0;
    }
  }
}
