// Log replay (Waymax "expert" actor): controlled agents are driven with state dynamics to exactly
// their logged next state, validity included, so a replay rollout reproduces the log (ADE 0).
import { ACTION_STRIDE, type SimEnv } from '../env.ts';
import type { Policy } from './policy.ts';

export class LogReplayPolicy implements Policy {
  readonly name = 'replay';

  reset(env: SimEnv): void {
    env.setDynamics('state');
  }

  act(env: SimEnv): void {
    const act = env.actions;
    for (let g = 0; g < env.n; g++) {
      if (!env.controlled[g]) continue;
      const si = env.scenarioOf[g];
      const s = env.scenarios[si];
      const t = env.currentStepOf(si) + 1;
      if (t >= s.numSteps) continue;
      const j = env.rowOf[g] * s.numSteps + t;
      const a = s.agents;
      const o = g * ACTION_STRIDE;
      act[o] = a.x[j];
      act[o + 1] = a.y[j];
      act[o + 2] = a.yaw[j];
      act[o + 3] = a.vx[j];
      act[o + 4] = a.vy[j];
      act[o + 5] = a.valid[j];
    }
  }
}
