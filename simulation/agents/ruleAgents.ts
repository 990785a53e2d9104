// The rule-based classes beside a learned driver: parked vehicles and bicycles stay exactly where they
// are; pedestrians walk on at their speed and heading but sidestep, slow or stop for anyone they would
// meet, except the walkers they start beside (a group).
import { ACTION_STRIDE, DYNAMICS, type SimEnv, TYPE_CODE } from '../env.ts';
import { nearestLane } from '../map/mapIndex.ts';
import { agentKey, normalAt, uniformAt } from './agentNoise.ts';
import { DEFAULT_STOCHASTIC } from './stochastic.ts';

export interface RuleAgentsConfig {
  /**
   * A vehicle or bicycle that never moved faster than this over its history and is off every lane is
   * parked (IDM's rule; real logs hold racks of parked bicycles), m/s.
   */
  parkedSpeedMps: number;
  /** Farther than this from any lane counts as off lane, metres (IDM's re-acquisition range). */
  laneLostM: number;
  /** Walkers look this far ahead for someone they would meet, seconds, checked every stepS. */
  horizonS: number;
  stepS: number;
  /** Clearance kept around the two boxes' radii, metres. */
  marginM: number;
  /** Sidestep angles tried (in turn, left and right), rad, before slowing to half speed and stopping. */
  sidestepRad: readonly number[];
  /** Per-rollout spread of a walker's speed (log-normal σ), so that rollouts differ. */
  speedLogStd: number;
  /**
   * A walker's speed factor and walking direction wander as random walks (std per √s: factor, rad), as
   * stochastic IDM's walkers do: a log's walkers never hold one heading exactly, and N rollouts that all
   * do put the log's small turns outside their spread.
   */
  speedWalkPerSqrtS: number;
  headingWalkRadPerSqrtS: number;
  /**
   * A walker turns to face the way it is heading at most this fast, rad/s (a person turns about 90° a
   * second while walking); sidesteps, taken for a step and dropped the next, do not turn it.
   */
  turnRateRadPerS: number;
  /**
   * Walkers that start touching (closer than their two half-diagonals) and at most this fast relative to
   * each other walk as a group: they never give way to each other, m/s. Tracked people side by side have
   * overlapping boxes (nuScenes, WOMD), and pulling them apart is neither what the log shows nor what
   * people do. Walkers merely near each other (the towns' queues) still keep the margin.
   */
  groupSpeedMps: number;
  /**
   * Share of walkers, drawn per rollout, that do not give way to other walkers met slowly (below
   * inattentiveMps; they still do to vehicles and cyclists). People in logged crowds drift close enough for
   * their tracked boxes to overlap, which no rollout of walkers that all give way reproduces. Off (0) by
   * default: on nuScenes it gained as much as it lost on WOMD, and town walkers touched (docs/agents.md).
   */
  inattentiveShare: number;
  /**
   * An inattentive walker still gives way to a walker it would meet faster than this, m/s: logged crowds
   * touch while drifting together (0.04–0.8 m/s on nuScenes), not by walking into someone standing.
   */
  inattentiveMps: number;
}

export const DEFAULT_RULE_AGENTS: RuleAgentsConfig = {
  parkedSpeedMps: 0.3,
  laneLostM: 4,
  horizonS: 2,
  stepS: 0.5,
  marginM: 0.3,
  sidestepRad: [0.35, 0.7],
  speedLogStd: 0.05,
  speedWalkPerSqrtS: DEFAULT_STOCHASTIC.speedWalkPerSqrtS,
  headingWalkRadPerSqrtS: DEFAULT_STOCHASTIC.headingWalkRadPerSqrtS,
  turnRateRadPerS: 1.5,
  groupSpeedMps: 1,
  inattentiveShare: 0,
  inattentiveMps: 0.8,
};

/**
 * Parked vehicles and bicycles, and walkers, of an environment. reset() picks them (and gives them delta
 * dynamics); act() writes their displacements; `ruled[g]` tells the learned driver which agents are not
 * its own.
 */
export class RuleAgents {
  readonly cfg: RuleAgentsConfig;
  ruled = new Uint8Array(0);
  parked = new Uint8Array(0);
  /** A walker's velocity as logged at the start, scaled by its rollout's factor. */
  private baseVx = new Float64Array(0);
  private baseVy = new Float64Array(0);
  /** The velocity it walks at now: the base turned by the heading walk, times the speed walk. */
  private vx = new Float64Array(0);
  private vy = new Float64Array(0);
  private key = new Uint32Array(0);
  /** Walkers that do not give way to other walkers in this rollout (inattentiveShare). */
  inattentive = new Uint8Array(0);
  private speedWalk = new Float64Array(0);
  private headingWalk = new Float64Array(0);
  /** Per walker, the walkers of its group (none: undefined). */
  private group: (number[] | undefined)[] = [];
  private readonly hit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };

  constructor(
    readonly seed = 0,
    cfg: Partial<RuleAgentsConfig> = {},
  ) {
    this.cfg = { ...DEFAULT_RULE_AGENTS, ...cfg };
  }

  /** Pick the parked vehicles and walkers and give them delta dynamics. */
  reset(env: SimEnv): void {
    this.classify(env);
    for (let g = 0; g < env.n; g++) if (this.ruled[g]) env.dynamics[g] = DYNAMICS.delta;
  }

  /** Pick the parked vehicles and walkers (`ruled`, `parked`) without touching the environment. */
  classify(env: SimEnv): void {
    const n = env.n;
    this.ruled = new Uint8Array(n);
    this.parked = new Uint8Array(n);
    this.baseVx = new Float64Array(n);
    this.baseVy = new Float64Array(n);
    this.vx = new Float64Array(n);
    this.vy = new Float64Array(n);
    this.key = new Uint32Array(n);
    this.inattentive = new Uint8Array(n);
    this.speedWalk = new Float64Array(n).fill(1);
    this.headingWalk = new Float64Array(n);
    for (let g = 0; g < n; g++) {
      if (!env.controlled[g]) continue;
      const type = env.typeCode[g];
      if (type === TYPE_CODE.pedestrian || type === TYPE_CODE.other) {
        const si = env.scenarioOf[g];
        const key = agentKey(this.seed, env.scenarios[si].id, env.rollout[si], env.rowOf[g]);
        const f = Math.exp(this.cfg.speedLogStd * normalAt(key, -1, 7));
        this.key[g] = key;
        this.inattentive[g] = uniformAt(key, -1, 12) < this.cfg.inattentiveShare ? 1 : 0;
        this.baseVx[g] = this.vx[g] = env.vx[g] * f;
        this.baseVy[g] = this.vy[g] = env.vy[g] * f;
        this.ruled[g] = 1;
      } else if ((type === TYPE_CODE.vehicle || type === TYPE_CODE.cyclist) && this.isParked(env, g)) {
        this.parked[g] = 1;
        this.ruled[g] = 1;
      }
    }
    this.findGroups(env);
  }

  /** Walkers touching at the start and moving alike form a group. */
  private findGroups(env: SimEnv): void {
    const cfg = this.cfg;
    this.group = new Array(env.n);
    for (let si = 0; si < env.scenarios.length; si++) {
      for (let g = env.offsets[si]; g < env.offsets[si + 1]; g++) {
        if (!this.ruled[g] || this.parked[g] || !env.live[g]) continue;
        for (let j = g + 1; j < env.offsets[si + 1]; j++) {
          if (!this.ruled[j] || this.parked[j] || !env.live[j]) continue;
          const r = clearance(env, g, j, 0);
          const d = Math.hypot(env.x[j] - env.x[g], env.y[j] - env.y[g]);
          const dv = Math.hypot(env.vx[j] - env.vx[g], env.vy[j] - env.vy[g]);
          if (d >= r || dv > cfg.groupSpeedMps) continue;
          (this.group[g] ??= []).push(j);
          (this.group[j] ??= []).push(g);
        }
      }
    }
  }

  /** Stationary through its history and off every lane (IDM's rule for parked cars). */
  private isParked(env: SimEnv, g: number): boolean {
    const si = env.scenarioOf[g];
    const s = env.scenarios[si];
    const a = s.agents;
    const base = env.rowOf[g] * s.numSteps;
    for (let t = 0; t <= s.currentStep; t++) {
      const k = base + t;
      if (a.valid[k] && Math.hypot(a.vx[k], a.vy[k]) > this.cfg.parkedSpeedMps) return false;
    }
    const m = env.maps[si];
    const hit = this.hit;
    if (!nearestLane(m, env.x[g], env.y[g], env.yaw[g], hit, this.cfg.laneLostM)) return true;
    return Math.abs(hit.lateral) > m.laneWidth[hit.lane] / 2 + 0.5;
  }

  act(env: SimEnv): void {
    const dt = env.dtS;
    for (let g = 0; g < env.n; g++) {
      if (!this.ruled[g] || !env.live[g]) continue;
      const o = g * ACTION_STRIDE;
      env.actions[o] = 0;
      env.actions[o + 1] = 0;
      env.actions[o + 2] = 0;
      if (this.parked[g]) continue;
      this.wander(g, env.stepCount, dt);
      const [wx, wy] = this.walk(env, g);
      env.actions[o] = wx * dt;
      env.actions[o + 1] = wy * dt;
      // A walker faces the way it is heading, not each step's sidestep, and turns no faster than a
      // person would.
      const hx = this.vx[g];
      const hy = this.vy[g];
      if (hx * hx + hy * hy > 0.01) {
        const maxTurn = this.cfg.turnRateRadPerS * dt;
        const turn = wrap(Math.atan2(hy, hx) - env.yaw[g]);
        env.actions[o + 2] = Math.max(-maxTurn, Math.min(maxTurn, turn));
      }
    }
  }

  /** One step of walker g's speed and heading walks (draws keyed by agent, rollout and step). */
  private wander(g: number, step: number, dt: number): void {
    const sq = Math.sqrt(dt);
    const k = this.key[g];
    const f = Math.max(0, this.speedWalk[g] + this.cfg.speedWalkPerSqrtS * sq * normalAt(k, step, 8));
    const h = this.headingWalk[g] + this.cfg.headingWalkRadPerSqrtS * sq * normalAt(k, step, 9);
    this.speedWalk[g] = f;
    this.headingWalk[g] = h;
    const c = Math.cos(h) * f;
    const s = Math.sin(h) * f;
    this.vx[g] = c * this.baseVx[g] - s * this.baseVy[g];
    this.vy[g] = s * this.baseVx[g] + c * this.baseVy[g];
  }

  /** The velocity walker g takes now: its own, else the first sidestep, half speed or stop that meets nobody. */
  private walk(env: SimEnv, g: number): [number, number] {
    const vx = this.vx[g];
    const vy = this.vy[g];
    if (vx * vx + vy * vy < 1e-4 || this.clear(env, g, vx, vy)) return [vx, vy];
    for (const a of this.cfg.sidestepRad) {
      for (const side of [-1, 1]) {
        const c = Math.cos(side * a);
        const s = Math.sin(side * a);
        const tx = c * vx - s * vy;
        const ty = s * vx + c * vy;
        if (this.clear(env, g, tx, ty)) return [tx, ty];
      }
    }
    if (this.clear(env, g, vx / 2, vy / 2)) return [vx / 2, vy / 2];
    return [0, 0];
  }

  /** True when walking at (vx, vy) meets nobody (others at their current velocity) within the horizon. */
  private clear(env: SimEnv, g: number, vx: number, vy: number): boolean {
    const cfg = this.cfg;
    const si = env.scenarioOf[g];
    const reach = cfg.horizonS * (Math.hypot(vx, vy) + 15) + 10;
    const group = this.group[g];
    for (let j = env.offsets[si]; j < env.offsets[si + 1]; j++) {
      if (j === g || !env.live[j]) continue;
      const dx0 = env.x[j] - env.x[g];
      const dy0 = env.y[j] - env.y[g];
      if (Math.abs(dx0) > reach || Math.abs(dy0) > reach) continue;
      if (group !== undefined && group.includes(j)) continue;
      const rvx = env.vx[j] - vx;
      const rvy = env.vy[j] - vy;
      if (
        this.inattentive[g] &&
        this.ruled[j] &&
        !this.parked[j] &&
        rvx * rvx + rvy * rvy < cfg.inattentiveMps * cfg.inattentiveMps
      )
        continue;
      const r = clearance(env, g, j, cfg.marginM);
      // Moving apart (or keeping the distance) never brings them closer than now, even if already within r
      // (a group walking together); approaching within r is not fine.
      if (dx0 * rvx + dy0 * rvy >= 0) continue;
      if (dx0 * dx0 + dy0 * dy0 < r * r) return false;
      for (let tau = cfg.stepS; tau <= cfg.horizonS + 1e-9; tau += cfg.stepS) {
        const dx = dx0 + rvx * tau;
        const dy = dy0 + rvy * tau;
        if (dx * dx + dy * dy < r * r) return false;
      }
    }
    return true;
  }
}

/** The distance two agents keep: their half-diagonals and a margin, metres. */
function clearance(env: SimEnv, g: number, j: number, marginM: number): number {
  return (
    0.5 * Math.hypot(env.length[g], env.width[g]) + 0.5 * Math.hypot(env.length[j], env.width[j]) + marginM
  );
}

function wrap(a: number): number {
  return Math.atan2(Math.sin(a), Math.cos(a));
}
