// DAgger (Ross, Gordon & Bagnell, AISTATS 2011) for the traffic agents: roll out the learner with the
// expert's action mixed in at rate β, label every visited state with the log-conditioned expert, aggregate.
import type { Rng } from '../../core/rng.ts';
import { RuleAgents } from '../agents/ruleAgents.ts';
import { ACTION_STRIDE, SimEnv, TYPE_CODE } from '../env.ts';
import { Observer } from '../observation.ts';
import type { Scenario } from '../scenario.ts';
import type { AgentModel } from './agentModel.ts';
import type { DemoSet } from './demoData.ts';
import { catkLabel, type CatkConfig, DEFAULT_CATK, isRealLog } from './catkExpert.ts';
import { LogExpert, type LogExpertConfig } from './logExpert.ts';
import { actionBase, drivenAgents, selectActions } from './policyStep.ts';

export interface DaggerConfig {
  /** Optimizer steps on the aggregated set after each round's rollouts. */
  stepsPerRound: number;
  /** Rounds over which the expert's share β falls linearly from 1 to 0 (β = 0 from then on). */
  betaRounds: number;
  /** Label every stride-th step of a rollout (neighbouring steps are nearly the same sample). */
  sampleStride: number;
  /** Share of each minibatch drawn from the logged demonstrations, the rest from the aggregated set. */
  logDemoShare: number;
  /** Most samples the aggregated set keeps (past it, new samples replace random old ones). */
  maxSamples: number;
  /**
   * Expert on real logs (no town program drove them): `idm` the log-conditioned IDM of the towns, `catk`
   * CAT-K relabelling towards the log (catkExpert.ts). Towns always use the log-conditioned IDM.
   */
  realExpert: RealExpert;
  /** CAT-K's candidates and horizon (catkExpert.ts DEFAULT_CATK). */
  catk: CatkConfig;
  /** Long-tail scenarios (`--longtail`) rolled out per round, every step labelled, in a set of their own. */
  longtailPerRound: number;
  /** Share of each minibatch drawn from the long-tail set (taken out of the log demonstrations' share). */
  longtailShare: number;
  /** Settings of the log-conditioned expert over logExpert.ts's defaults (e.g. its catch-up). */
  expert: Partial<LogExpertConfig>;
  /**
   * Each labelled cyclist row enters the aggregated set this many times: cyclists are ~8 % of the driven
   * agents of a town, and students rode them slower than their expert did (docs/agents.md).
   */
  cyclistRepeat: number;
}

export type RealExpert = 'idm' | 'catk' | 'catk-safe';
export const REAL_EXPERTS: readonly RealExpert[] = ['idm', 'catk', 'catk-safe'];

export const DEFAULT_DAGGER: DaggerConfig = {
  stepsPerRound: 300,
  betaRounds: 4,
  sampleStride: 2,
  logDemoShare: 0.5,
  maxSamples: 120_000,
  realExpert: 'idm',
  catk: DEFAULT_CATK,
  longtailPerRound: 16,
  longtailShare: 0.2,
  expert: {},
  cyclistRepeat: 1,
};

/** The expert's share of the executed actions in round r (0-based). */
export function daggerBeta(round: number, cfg: DaggerConfig = DEFAULT_DAGGER): number {
  return cfg.betaRounds > 0 ? Math.max(0, 1 - round / cfg.betaRounds) : 0;
}

export interface DaggerRollout {
  /** Labelled samples: observations of the states the mixed policy visited and the expert's action bins. */
  obs: Float32Array;
  action: Int32Array;
  count: number;
  /**
   * Share of driven agents that left the road (vehicles) / collided at least once, and how often the
   * learner's bin was the expert's.
   */
  offroadRate: number;
  collisionRate: number;
  agreement: number;
}

/**
 * One rollout of each scenario (routes from the log, see withLogRoutes): the learner samples its action,
 * the expert labels the state, and the expert's action is executed instead with probability β. With
 * `ruleAgents`, parked vehicles and pedestrians follow ruleAgents.ts and are neither driven nor labelled.
 */
export async function daggerRollout(
  model: AgentModel,
  scenarios: readonly Scenario[],
  rng: Rng,
  beta: number,
  ruleAgents: boolean,
  sampleStride: number,
  expertOf: {
    realExpert: RealExpert;
    catk: CatkConfig;
    expert?: Partial<LogExpertConfig>;
    cyclistRepeat?: number;
  } = DEFAULT_DAGGER,
): Promise<DaggerRollout> {
  const env = new SimEnv(scenarios);
  env.reset();
  env.setDynamics('bicycle');
  const rules = new RuleAgents(rng.int(1 << 30));
  if (ruleAgents) rules.reset(env);
  const expert = new LogExpert(expertOf.expert);
  expert.reset(env);
  const observer = new Observer(model.cfg.observation);
  const D = observer.size;
  const cyclistRepeat = Math.max(1, Math.round(expertOf.cyclistRepeat ?? 1));
  const bins = model.bins;
  const A = bins.count;
  const chunks: { obs: Float32Array; action: Int32Array }[] = [];
  const catkScenario = env.scenarios.map((s) => expertOf.realExpert !== 'idm' && isRealLog(s.source));
  const catk = {
    ...expertOf.catk,
    avoidOverlap: expertOf.catk.avoidOverlap || expertOf.realExpert === 'catk-safe',
  };
  const drove = new Uint8Array(env.n);
  const off = new Uint8Array(env.n);
  const coll = new Uint8Array(env.n);
  let agree = 0;
  let labelled = 0;
  while (!env.done) {
    if (ruleAgents) rules.act(env);
    const agents = drivenAgents(env, undefined, ruleAgents ? rules.ruled : undefined);
    const m = agents.length;
    const obs = new Float32Array(m * D);
    observer.observe(env, agents, obs);
    const { logits } = await model.evaluate(obs, m);
    const mine = new Int32Array(m);
    const logp = new Float32Array(m);
    selectActions(logits, m, A, 'sample', () => rng.uniform(), mine, logp);
    const base = actionBase(obs, m, model.cfg.observation);
    expert.prepare(env);
    const label = new Int32Array(m);
    const repeat = new Int32Array(m).fill(1);
    const keep = env.stepCount % sampleStride === 0;
    for (let q = 0; q < m; q++) {
      const g = agents[q];
      // Pedestrians and other objects (driven by the network only without rule agents): IDM's
      // treatment, keep speed and heading.
      const t = env.typeCode[g];
      const o = g * ACTION_STRIDE;
      let e: { accel: number; curvature: number };
      if (catkScenario[env.scenarioOf[g]]) {
        // CAT-K: the label is one of the policy's own top-K bins, the one nearest the log; executed
        // at rate β like any expert action. No logged state ahead: no label, the learner's action.
        label[q] = catkLabel(env, g, logits, q, bins, catk, base[2 * q], base[2 * q + 1]);
        const b = label[q] >= 0 ? label[q] : mine[q];
        e = { accel: bins.accelOf(b, base[2 * q + 1]), curvature: bins.curvatureOf(b, base[2 * q]) };
      } else {
        e =
          t === TYPE_CODE.vehicle || t === TYPE_CODE.cyclist
            ? expert.decide(env, g)
            : { accel: 0, curvature: 0 };
        label[q] = bins.label(e.accel, e.curvature, base[2 * q], base[2 * q + 1]);
      }
      if (label[q] >= 0) {
        if (label[q] === mine[q]) agree++;
        labelled++;
      }
      if (t === TYPE_CODE.cyclist) repeat[q] = cyclistRepeat;
      if (rng.uniform() < beta) {
        env.actions[o] = e.accel;
        env.actions[o + 1] = e.curvature;
      } else {
        env.actions[o] = bins.accelOf(mine[q], base[2 * q + 1]);
        env.actions[o + 1] = bins.curvatureOf(mine[q], base[2 * q]);
      }
      drove[g] = 1;
    }
    if (keep && m > 0) chunks.push(labelledRows(obs, label, D, repeat));
    env.step();
    for (let q = 0; q < m; q++) {
      const g = agents[q];
      // Off-road rates vehicles only, as the metric does (pedestrians walk on sidewalks).
      if (env.typeCode[g] === TYPE_CODE.vehicle) off[g] |= env.offroad[g];
      coll[g] |= env.collided[g];
    }
  }
  const count = chunks.reduce((s, c) => s + c.action.length, 0);
  const obs = new Float32Array(count * D);
  const action = new Int32Array(count);
  let k = 0;
  for (const c of chunks) {
    obs.set(c.obs, k * D);
    action.set(c.action, k);
    k += c.action.length;
  }
  let d = 0;
  let o = 0;
  let c = 0;
  for (let g = 0; g < env.n; g++) {
    d += drove[g];
    o += off[g] & drove[g];
    c += coll[g] & drove[g];
  }
  return {
    obs,
    action,
    count,
    offroadRate: o / Math.max(d, 1),
    collisionRate: c / Math.max(d, 1),
    agreement: agree / Math.max(labelled, 1),
  };
}

/**
 * The rows of a step that carry a label (CAT-K leaves agents without a logged state ahead unlabelled), row q
 * `repeat[q]` times.
 */
function labelledRows(obs: Float32Array, label: Int32Array, D: number, repeat: Int32Array) {
  let n = 0;
  let asIs = true;
  for (let q = 0; q < label.length; q++) {
    const r = label[q] >= 0 ? repeat[q] : 0;
    n += r;
    if (r !== 1) asIs = false;
  }
  if (asIs) return { obs, action: label };
  const o = new Float32Array(n * D);
  const a = new Int32Array(n);
  let k = 0;
  for (let q = 0; q < label.length; q++)
    for (let r = label[q] >= 0 ? repeat[q] : 0; r > 0; r--) {
      o.set(obs.subarray(q * D, (q + 1) * D), k * D);
      a[k++] = label[q];
    }
  return { obs: o, action: a };
}

/** The aggregated DAgger set: a DemoSet that grows up to a cap, then replaces random old samples. */
export class AggregateSet implements DemoSet {
  obs: Float32Array;
  action: Int32Array;
  count = 0;
  expertSteps = 0;
  infeasibleSteps = 0;

  constructor(
    readonly obsSize: number,
    readonly capacity: number,
  ) {
    this.obs = new Float32Array(0);
    this.action = new Int32Array(0);
  }

  add(obs: Float32Array, action: Int32Array, count: number, rng: Rng): void {
    const D = this.obsSize;
    const need = Math.min(this.capacity, this.count + count);
    if (need > this.action.length) {
      const size = Math.min(this.capacity, Math.max(need, Math.ceil(this.action.length * 1.5)));
      const o = new Float32Array(size * D);
      o.set(this.obs.subarray(0, this.count * D));
      const a = new Int32Array(size);
      a.set(this.action.subarray(0, this.count));
      this.obs = o;
      this.action = a;
    }
    for (let i = 0; i < count; i++) {
      const at = this.count < this.capacity ? this.count++ : rng.int(this.capacity);
      this.obs.set(obs.subarray(i * D, (i + 1) * D), at * D);
      this.action[at] = action[i];
    }
  }

  /** Bytes of the set: count, obsSize, then the observations and action bins. */
  toBytes(): Uint8Array {
    const D = this.obsSize;
    const head = new Int32Array([this.count, D]);
    const out = new Uint8Array(8 + this.count * D * 4 + this.count * 4);
    out.set(new Uint8Array(head.buffer), 0);
    out.set(new Uint8Array(this.obs.buffer, 0, this.count * D * 4), 8);
    out.set(new Uint8Array(this.action.buffer, 0, this.count * 4), 8 + this.count * D * 4);
    return out;
  }

  static fromBytes(bytes: Uint8Array, obsSize: number, capacity: number, what: string): AggregateSet {
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const [count, D] = new Int32Array(buf, 0, 2);
    if (D !== obsSize || bytes.byteLength !== 8 + count * D * 4 + count * 4)
      throw new Error(`${what}: not a DAgger set of observation size ${obsSize}`);
    const set = new AggregateSet(obsSize, Math.max(capacity, count));
    set.obs = new Float32Array(buf, 8, count * D).slice();
    set.action = new Int32Array(buf, 8 + count * D * 4, count).slice();
    set.count = count;
    return set;
  }
}
