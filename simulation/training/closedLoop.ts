// Closed-loop experience for PPO / RTR: the current policy (live parameters, one batched onnxruntime call
// per step) drives every agent present at the current step; observations, sampled actions, values, rewards.
import type { Rng } from '../../core/rng.ts';
import { RuleAgents } from '../agents/ruleAgents.ts';
import { SimEnv, TYPE_CODE } from '../env.ts';
import { Observer } from '../observation.ts';
import type { Scenario } from '../scenario.ts';
import type { AgentModel } from './agentModel.ts';
import { gae, type GaeConfig, DEFAULT_GAE, normaliseAdvantages } from './gae.ts';
import { LogExpert, type LogExpertConfig } from './logExpert.ts';
import { actionBase, drivenAgents, selectActions, writeActions } from './policyStep.ts';
import { DEFAULT_REWARD, type RewardConfig, RewardTracker } from './reward.ts';

export interface ClosedLoopConfig {
  reward: RewardConfig;
  gae: GaeConfig;
  /** Parked vehicles and walkers follow ruleAgents.ts, neither driven nor sampled (as DAgger and the model's use). */
  ruleAgents: boolean;
  /**
   * Label the rows of every `labelStride`-th step with the log-conditioned expert (logExpert.ts; scenarios
   * with log routes): RTR's imitation rows on the states the policy itself visits, as DAgger's (0: none).
   */
  labelStride: number;
  /** At the time limit the episode is cut, not ended: the value of the state after the last step is added. */
  bootstrap: boolean;
  /** Rewards divided by the std of the rollout's discounted returns, so value targets are O(1). */
  normaliseReturns: boolean;
  /** The labelling expert's settings over DEFAULT_LOG_EXPERT. */
  expert: Partial<LogExpertConfig>;
}

/** The settings PPO and RTR were first trained with (no rule agents, labels, bootstrap or scaling). */
export const DEFAULT_CLOSED_LOOP: ClosedLoopConfig = {
  reward: DEFAULT_REWARD,
  gae: DEFAULT_GAE,
  ruleAgents: false,
  labelStride: 0,
  bootstrap: false,
  normaliseReturns: false,
  expert: {},
};

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
  /** Expert-labelled rows (labelStride > 0): observations and the expert's action bins. */
  labelled: { obs: Float32Array; action: Int32Array; count: number };
  /** The std the rewards were divided by (1 without normaliseReturns). */
  returnScale: number;
}

/** Roll the policy out once on each scenario (its controlled agents driven, sampled actions). */
export async function collectExperience(
  model: AgentModel,
  scenarios: readonly Scenario[],
  rng: Rng,
  over: Partial<ClosedLoopConfig> = {},
): Promise<Experience> {
  const cfg = { ...DEFAULT_CLOSED_LOOP, ...over };
  const env = new SimEnv(scenarios);
  env.setDynamics('bicycle');
  const rules = cfg.ruleAgents ? new RuleAgents(rng.int(1 << 30)) : null;
  rules?.reset(env);
  const expert = cfg.labelStride > 0 ? new LogExpert(cfg.expert) : null;
  expert?.reset(env);
  const bins = model.bins;
  const labelObs: Float32Array[] = [];
  const labelAction: Int32Array[] = [];
  let labelledCount = 0;
  const observer = new Observer(model.cfg.observation);
  const D = observer.size;
  const tracker = new RewardTracker(env, cfg.reward);
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
  let lastAgents: Int32Array = new Int32Array(0);
  for (let t = 0; t < T && !env.done; t++) {
    if (rules) rules.act(env);
    const agents = drivenAgents(env, undefined, rules?.ruled);
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
    const temperature = model.cfg.ppoLoss.temperature ?? 1;
    selectActions(logits, m, A, 'sample', () => rng.uniform(), action, logp, temperature, true);
    const base = actionBase(obs, m, model.cfg.observation);
    if (expert && t % cfg.labelStride === 0 && m > 0) {
      // The expert's bin for each driven vehicle and cyclist in the state the policy reached.
      expert.prepare(env);
      const keep: number[] = [];
      const lab: number[] = [];
      for (let q = 0; q < m; q++) {
        const g = agents[q];
        const type = env.typeCode[g];
        if (type !== TYPE_CODE.vehicle && type !== TYPE_CODE.cyclist) continue;
        const e = expert.decide(env, g);
        keep.push(q);
        lab.push(bins.label(e.accel, e.curvature, base[2 * q], base[2 * q + 1]));
      }
      const o = new Float32Array(keep.length * D);
      keep.forEach((q, r) => o.set(obs.subarray(q * D, (q + 1) * D), r * D));
      labelObs.push(o);
      labelAction.push(Int32Array.from(lab));
      labelledCount += keep.length;
    }
    writeActions(env, agents, action, model.bins, base);
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
    lastAgents = agents;
  }
  // The scenario's end is a time limit, not a terminal state: with bootstrap the value of the state after
  // the last step carries on (without, it counts 0, which undervalues the last seconds).
  const bootstrap = new Float32Array(n);
  if (cfg.bootstrap && lastAgents.length > 0) {
    const m = lastAgents.length;
    const obs = new Float32Array(m * D);
    observer.observe(env, lastAgents, obs);
    const { value } = await model.evaluate(obs, m);
    for (let q = 0; q < m; q++) bootstrap[lastAgents[q]] = value[q];
  }
  const returnScale = cfg.normaliseReturns ? discountedReturnStd(rewards, valid, T, n, cfg.gae.gamma) : 1;
  if (returnScale !== 1) for (let k = 0; k < rewards.length; k++) rewards[k] /= returnScale;
  const { advantages, returns } = gae(rewards, values, valid, T, n, cfg.gae, bootstrap);
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
    labelled: concatRows(labelObs, labelAction, labelledCount, D),
    returnScale,
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
  out.meanEpisodeReturn = (ret * returnScale) / d;
  out.collisionRate = c / d;
  out.offroadRate = o / d;
  out.redLightRate = red / d;
  out.infractionRate = any / d;
  return out;
}

/** Std of the discounted return-to-go over the valid agent-steps (1 when there is none or it is ~0). */
export function discountedReturnStd(
  rewards: Float32Array,
  valid: Uint8Array,
  T: number,
  n: number,
  gamma: number,
): number {
  let s = 0;
  let s2 = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    let g = 0;
    for (let t = T - 1; t >= 0; t--) {
      const k = t * n + i;
      if (!valid[k]) {
        g = 0;
        continue;
      }
      g = rewards[k] + gamma * g;
      s += g;
      s2 += g * g;
      c++;
    }
  }
  if (c < 2) return 1;
  const std = Math.sqrt(Math.max(0, s2 / c - (s / c) ** 2));
  return std > 1e-6 ? std : 1;
}

function concatRows(obs: Float32Array[], action: Int32Array[], count: number, D: number) {
  const o = new Float32Array(count * D);
  const a = new Int32Array(count);
  let k = 0;
  for (let c = 0; c < obs.length; c++) {
    o.set(obs[c], k * D);
    a.set(action[c], k);
    k += action[c].length;
  }
  return { obs: o, action: a, count };
}

/** A copy of `a` in a new array of `size` elements (the rest zero). */
function grow<T extends Float32Array | Int32Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}
