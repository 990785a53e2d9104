// The stochastic form of the built-in agents, so that N rollouts of a scenario form a distribution (as
// the Waymo Sim Agents challenge needs): a policy's actions with small noise, IDM with sampled parameters.
import { ACTION_STRIDE, DYNAMICS, type SimEnv } from '../env.ts';
import { agentKey, normalAt } from './agentNoise.ts';
import { IdmPolicy } from './idmAgent.ts';
import type { Policy } from './policy.ts';

/** Noise of the stochastic agents; standard deviations, drawn per agent and rollout (and per step). */
export interface StochasticConfig {
  /** White noise on the acceleration of bicycle-driven agents (IDM vehicles, cyclists), m/s². */
  accelNoiseMps2: number;
  /** White noise on their curvature, 1/m. */
  curvatureNoisePerM: number;
  /**
   * Agents moved by displacement (constant velocity, IDM pedestrians): their speed is scaled by a
   * factor and their heading turned by an offset that both walk randomly — std per √s (factor, rad).
   */
  speedWalkPerSqrtS: number;
  headingWalkRadPerSqrtS: number;
  /** Spread of the speed factor at the start of a rollout (log-normal σ). */
  initialSpeedLogStd: number;
  /** IDM parameters per agent and rollout: the default times a log-normal factor of these σ. */
  desiredSpeedLogStd: number;
  timeHeadwayLogStd: number;
  maxAccelLogStd: number;
  comfortDecelLogStd: number;
  minGapLogStd: number;
}

export const DEFAULT_STOCHASTIC: StochasticConfig = {
  accelNoiseMps2: 0.3,
  curvatureNoisePerM: 0.003,
  speedWalkPerSqrtS: 0.04,
  headingWalkRadPerSqrtS: 0.02,
  initialSpeedLogStd: 0.05,
  desiredSpeedLogStd: 0.12,
  timeHeadwayLogStd: 0.25,
  maxAccelLogStd: 0.2,
  comfortDecelLogStd: 0.2,
  minGapLogStd: 0.25,
};

// Noise channels of one agent (the step is the counter; per-rollout draws use step −1).
const CH = { accel: 0, curvature: 1, speed: 2, heading: 3, v0: 4, headway: 5, amax: 6, decel: 7, gap: 8 };

/**
 * A policy with noisy actions: after the base policy acts, bicycle-driven agents get acceleration and
 * curvature noise, displacement-driven ones a random walk of speed factor and heading (the yaw turns
 * with the displacement). Replay-driven (state) and log agents are untouched.
 */
export class NoisyPolicy implements Policy {
  readonly name: string;
  readonly cfg: StochasticConfig;
  /** Noise key of each agent of the environment (seed, scenario, rollout, row). */
  key = new Uint32Array(0);
  private speedFactor = new Float64Array(0);
  private headingOffset = new Float64Array(0);

  constructor(
    readonly base: Policy,
    readonly seed: number,
    cfg: Partial<StochasticConfig> = {},
  ) {
    this.name = base.name;
    this.cfg = { ...DEFAULT_STOCHASTIC, ...cfg };
  }

  reset(env: SimEnv): void {
    const n = env.n;
    this.key = new Uint32Array(n);
    for (let g = 0; g < n; g++) {
      const si = env.scenarioOf[g];
      this.key[g] = agentKey(this.seed, env.scenarios[si].id, env.rollout[si], env.rowOf[g]);
    }
    this.base.reset(env);
    this.speedFactor = new Float64Array(n);
    this.headingOffset = new Float64Array(n);
    for (let g = 0; g < n; g++)
      this.speedFactor[g] = Math.exp(this.cfg.initialSpeedLogStd * normalAt(this.key[g], -1, CH.speed));
  }

  act(env: SimEnv): void {
    this.base.act(env);
    const cfg = this.cfg;
    const dt = env.dtS;
    const sq = Math.sqrt(dt);
    const act = env.actions;
    for (let g = 0; g < env.n; g++) {
      if (!env.controlled[g] || !env.live[g]) continue;
      const model = env.dynamics[g];
      const o = g * ACTION_STRIDE;
      const k = this.key[g];
      const t = env.stepCount;
      if (model === DYNAMICS.bicycle) {
        act[o] += cfg.accelNoiseMps2 * normalAt(k, t, CH.accel);
        act[o + 1] += cfg.curvatureNoisePerM * normalAt(k, t, CH.curvature);
      } else if (model === DYNAMICS.delta) {
        const f = Math.max(0, this.speedFactor[g] + cfg.speedWalkPerSqrtS * sq * normalAt(k, t, CH.speed));
        const turn = cfg.headingWalkRadPerSqrtS * sq * normalAt(k, t, CH.heading);
        const h = this.headingOffset[g] + turn;
        this.speedFactor[g] = f;
        this.headingOffset[g] = h;
        const c = Math.cos(h) * f;
        const s = Math.sin(h) * f;
        const dx = act[o];
        const dy = act[o + 1];
        act[o] = c * dx - s * dy;
        act[o + 1] = s * dx + c * dy;
        // A moving agent faces where it goes; a standing one keeps its heading.
        if (dx * dx + dy * dy > 1e-6) act[o + 2] += turn;
      }
    }
  }
}

/** IDM with its parameters drawn per agent and rollout (log-normal around the defaults). */
class SampledIdmPolicy extends IdmPolicy {
  private params = new Float64Array(0);

  constructor(
    private readonly keys: () => Uint32Array,
    private readonly spread: StochasticConfig,
  ) {
    super();
    this.agentIdm = (g, idm) => {
      const p = this.params;
      idm.timeHeadwayS = p[4 * g];
      idm.maxAccelMps2 = p[4 * g + 1];
      idm.comfortDecelMps2 = p[4 * g + 2];
      idm.minGapM = p[4 * g + 3];
    };
  }

  override reset(env: SimEnv): void {
    super.reset(env);
    const key = this.keys();
    const c = this.spread;
    const base = this.cfg.idm;
    const p = (this.params = new Float64Array(env.n * 4));
    const draw = (g: number, ch: number, sd: number) => Math.exp(sd * normalAt(key[g], -1, ch));
    for (let g = 0; g < env.n; g++) {
      this.desired[g] *= draw(g, CH.v0, c.desiredSpeedLogStd);
      p[4 * g] = base.timeHeadwayS * draw(g, CH.headway, c.timeHeadwayLogStd);
      p[4 * g + 1] = base.maxAccelMps2 * draw(g, CH.amax, c.maxAccelLogStd);
      p[4 * g + 2] = base.comfortDecelMps2 * draw(g, CH.decel, c.comfortDecelLogStd);
      p[4 * g + 3] = base.minGapM * draw(g, CH.gap, c.minGapLogStd);
    }
  }
}

/** The stochastic IDM: sampled parameters, noisy actions on top. */
export function stochasticIdm(seed: number, cfg: Partial<StochasticConfig> = {}): NoisyPolicy {
  let noisy: NoisyPolicy | null = null;
  const spread = { ...DEFAULT_STOCHASTIC, ...cfg };
  noisy = new NoisyPolicy(new SampledIdmPolicy(() => noisy!.key, spread), seed, spread);
  return noisy;
}
