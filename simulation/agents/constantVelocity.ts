// Constant-velocity agent (Waymax's constant-speed baseline): every controlled agent keeps the
// velocity vector and heading it has at the current step, moved with delta dynamics.
import { ACTION_STRIDE, type SimEnv } from '../env.ts';
import type { Policy } from './policy.ts';

export class ConstantVelocityPolicy implements Policy {
  readonly name = 'cv';
  private vx = new Float64Array(0);
  private vy = new Float64Array(0);

  reset(env: SimEnv): void {
    env.setDynamics('delta');
    this.vx = Float64Array.from(env.vx);
    this.vy = Float64Array.from(env.vy);
  }

  act(env: SimEnv): void {
    const dt = env.dtS;
    for (let g = 0; g < env.n; g++) {
      if (!env.controlled[g]) continue;
      const o = g * ACTION_STRIDE;
      env.actions[o] = this.vx[g] * dt;
      env.actions[o + 1] = this.vy[g] * dt;
      env.actions[o + 2] = 0;
    }
  }
}
