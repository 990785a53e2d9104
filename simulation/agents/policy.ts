// The interface every traffic agent implements: pick the dynamics model of the agents it drives, then
// each step write their actions into env.actions (batched over all scenarios of the environment).
import type { SimEnv } from '../env.ts';

export interface Policy {
  readonly name: string;
  /** Called after env.reset(): choose dynamics (env.setDynamics) and set up per-agent state. */
  reset(env: SimEnv): void;
  /** Write the next actions of the agents this policy drives into env.actions. */
  act(env: SimEnv): void;
}

/** Run a policy until every scenario of the environment ends (env is reset first). */
export function runPolicy(env: SimEnv, policy: Policy, onStep?: (env: SimEnv) => void): void {
  env.reset();
  policy.reset(env);
  while (!env.done) {
    policy.act(env);
    env.step();
    onStep?.(env);
  }
}
