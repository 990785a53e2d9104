import { describe, expect, it } from 'vitest';
import { SimEnv } from '../../../simulation/env.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { DEFAULT_REWARD, RewardTracker } from '../../../simulation/training/reward.ts';
import { straightRoadScenario } from '../fixtures.ts';

/** Progress rewards of one car driving on at 10 m/s along +x with its goal 30 m ahead, step by step. */
function progressRewards(goalPassM: number): number[] {
  const s = straightRoadScenario({ numAgents: 1, numSteps: 81 });
  const T = s.numSteps;
  for (let t = 0; t < T; t++) {
    s.agents.x[t] = 10 + t;
    s.agents.y[t] = 0;
    s.agents.vx[t] = 10;
    s.agents.vy[t] = 0;
    s.agents.yaw[t] = 0;
  }
  const env = new SimEnv(controlAllPresent([s]));
  env.reset();
  env.setDynamics('bicycle');
  s.goalX[0] = env.x[0] + 30;
  s.goalY[0] = 0;
  const tracker = new RewardTracker(env, { ...DEFAULT_REWARD, goalPassM });
  const agents = Int32Array.of(0);
  const out = new Float32Array(1);
  const inf = { collided: new Uint8Array(1), offroad: new Uint8Array(1), redLight: new Uint8Array(1) };
  const rewards: number[] = [];
  while (!env.done) {
    env.actions.fill(0); // keep speed and heading
    tracker.before(env);
    env.step();
    tracker.after(env, agents, out, inf);
    rewards.push(out[0]);
  }
  return rewards;
}

describe('the RL progress reward', () => {
  it('pays for the metres towards the goal and nothing for driving on past it', () => {
    const r = progressRewards(10);
    const perStep = DEFAULT_REWARD.progressPerM * 1; // 1 m a step at 10 m/s
    expect(r[0]).toBeCloseTo(perStep, 5);
    expect(r[20]).toBeCloseTo(perStep, 5); // 21 m driven, still short of the goal
    expect(r.slice(32)).toEqual(r.slice(32).map(() => 0)); // past it: neither gain nor loss
  });

  it('with goalPassM 0 (the default) charges every metre away from the goal', () => {
    expect(DEFAULT_REWARD.goalPassM).toBe(0);
    const r = progressRewards(0);
    expect(r[40]).toBeCloseTo(-DEFAULT_REWARD.progressPerM, 5);
  });
});
