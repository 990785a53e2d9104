// Closed-loop experience for PPO / RTR: the current policy (live parameters, one batched onnxruntime call
// per step) drives every agent present at the current step; observations, sampled actions, values, rewards.
import type { Rng } from '../../core/rng.ts';
import { SimEnv } from '../env.ts';
import { Observer } from '../observation.ts';
import type { Scenario } from '../scenario.ts';
import type { AgentModel } from './agentModel.ts';
import { gae, type GaeConfig, DEFAULT_GAE, normaliseAdvantages } from './gae.ts';
import { drivenAgents, selectActions, writeActions } from './policyStep.ts';
import { DEFAULT_REWARD, type RewardConfig, RewardTracker } from './reward.ts';

export interface Experience {
  /** Samples (agent-steps), each with its observation row. */
  count: number;
  obs: Float32Array;
  action: Int32Array;
  logp: Float32Array;
  advantage: Float32Array;
  return: Float32Array;
  /** Mean return per agent (sum of its rewards over the episode). */
  meanEpisodeReturn: number;
  /** Share of driven agents that collided / went off-road / ran a red light at least once. */
  collisionRate: number;
  offroadRate: number;
  redLightRate: number;
  /** Share with any of the three (the RTR constraint). */
  infractionRate: number;
}

/** Roll the policy out once on each scenario (its controlled agents driven, sampled actions). */
export async function collectExperience(
  model: AgentModel,
  scenarios: readonly Scenario[],
  rng: Rng,
  reward: RewardConfig = DEFAULT_REWARD,
  gaeCfg: GaeConfig = DEFAULT_GAE,
): Promise<Experience> {
  const env = new SimEnv(scenarios);
  env.setDynamics('bicycle');
  const observer = new Observer(model.cfg.observation);
  const D = observer.size;
  const tracker = new RewardTracker(env, reward);
  const T = env.horizon;
  const n = env.n;
  const A = model.bins.count;
  const rewards = new Float32Array(T * n);
  const values = new Float32Array(T * n);
  const valid = new Uint8Array(T * n);
  // Rows are written once, straight into growing buffers (no per-step arrays copied at the end).
  const steps: Int32Array[] = [];
  let rowsUsed = 0;
  let obsRows = new Float32Array(0);
  let actionRows = new Int32Array(0);
  let logpRows = new Float32Array(0);
  const r = new Float32Array(n);
  const inf = { collided: new Uint8Array(n), offroad: new Uint8Array(n), redLight: new Uint8Array(n) };
  const everColl = new Uint8Array(n);
  const everOff = new Uint8Array(n);
  const everRed = new Uint8Array(n);
  const drove = new Uint8Array(n);
  for (let t = 0; t < T && !env.done; t++) {
    const agents = drivenAgents(env);
    const m = agents.length;
    if ((rowsUsed + m) * D > obsRows.length) {
      const cap = Math.max(rowsUsed + m, Math.ceil(rowsUsed * 1.5), 1024);
      obsRows = grow(obsRows, cap * D);
      actionRows = grow(actionRows, cap);
      logpRows = grow(logpRows, cap);
    }
    const obs = obsRows.subarray(rowsUsed * D, (rowsUsed + m) * D);
    const action = actionRows.subarray(rowsUsed, rowsUsed + m);
    const logp = logpRows.subarray(rowsUsed, rowsUsed + m);
    observer.observe(env, agents, obs);
    const { logits, value } = await model.evaluate(obs, m);
    selectActions(logits, m, A, 'sample', () => rng.uniform(), action, logp);
    writeActions(env, agents, action, model.bins);
    tracker.before(env);
    env.step();
    r.fill(0, 0, m);
    inf.collided.fill(0, 0, m);
    inf.offroad.fill(0, 0, m);
    inf.redLight.fill(0, 0, m);
    tracker.after(env, agents, r, inf);
    for (let q = 0; q < m; q++) {
      const g = agents[q];
      const k = t * n + g;
      rewards[k] = r[q];
      values[k] = value[q];
      valid[k] = 1;
      drove[g] = 1;
      everColl[g] |= inf.collided[q];
      everOff[g] |= inf.offroad[q];
      everRed[g] |= inf.redLight[q];
    }
    steps.push(agents);
    rowsUsed += m;
  }
  // The scenario's end is a time limit, not a terminal state: no bootstrap value is kept (the value
  // after the last step counts 0), a simplification that slightly undervalues the last seconds.
  const { advantages, returns } = gae(rewards, values, valid, T, n, gaeCfg);
  normaliseAdvantages(advantages, valid);
  const count = rowsUsed;
  const out: Experience = {
    count,
    obs: obsRows.subarray(0, count * D),
    action: actionRows.subarray(0, count),
    logp: logpRows.subarray(0, count),
    advantage: new Float32Array(count),
    return: new Float32Array(count),
    meanEpisodeReturn: 0,
    collisionRate: 0,
    offroadRate: 0,
    redLightRate: 0,
    infractionRate: 0,
  };
  let i = 0;
  steps.forEach((agents, t) => {
    for (let q = 0; q < agents.length; q++) {
      const k = t * n + agents[q];
      out.advantage[i + q] = advantages[k];
      out.return[i + q] = returns[k];
    }
    i += agents.length;
  });
  let agentsDriven = 0;
  let ret = 0;
  let c = 0;
  let o = 0;
  let red = 0;
  let any = 0;
  for (let g = 0; g < n; g++) {
    if (!drove[g]) continue;
    agentsDriven++;
    for (let t = 0; t < T; t++) ret += rewards[t * n + g];
    c += everColl[g];
    o += everOff[g];
    red += everRed[g];
    any += everColl[g] | everOff[g] | everRed[g];
  }
  const d = Math.max(agentsDriven, 1);
  out.meanEpisodeReturn = ret / d;
  out.collisionRate = c / d;
  out.offroadRate = o / d;
  out.redLightRate = red / d;
  out.infractionRate = any / d;
  return out;
}

/** A copy of `a` in a new array of `size` elements (the rest zero). */
function grow<T extends Float32Array | Int32Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}
