// The batched closed-loop environment (Waymax-style): struct-of-arrays state of every agent of many
// scenarios in typed arrays; one step() applies each agent's dynamics model, then checks collisions
// (spatial grid) and off-road (signed-distance field) for all agents, and records the rollout.
import { bicycleStep, type BicycleLimits, DEFAULT_BICYCLE_LIMITS } from './dynamics/bicycle.ts';
import { deltaStep } from './dynamics/delta.ts';
import { signedSpeed } from './dynamics/inverse.ts';
import { stateStep } from './dynamics/state.ts';
import { boxRoadDistance, signedDistance } from './map/drivableField.ts';
import { mapIndex, type MapIndex } from './map/mapIndex.ts';
import { markCollisions } from './metrics/collision.ts';
import type { AgentType, Scenario } from './scenario.ts';
import { SpatialGrid } from './spatialGrid.ts';

/** Per-agent dynamics model: `log` agents follow their logged states; the others read env.actions. */
export const DYNAMICS = { log: 0, bicycle: 1, delta: 2, state: 3 } as const;
export type DynamicsName = keyof typeof DYNAMICS;

/**
 * Floats per agent in env.actions: bicycle [accel m/s², curvature 1/m]; delta [dx, dy, dyaw] (world
 * frame, one step); state [x, y, yaw, vx, vy, valid]. Unused slots are ignored.
 */
export const ACTION_STRIDE = 6;

export const TYPE_CODE: Record<AgentType, number> = { vehicle: 0, pedestrian: 1, cyclist: 2, other: 3 };

export interface EnvConfig {
  bicycle: BicycleLimits;
  /** Check collisions every step (the RL reward needs them; default true). */
  collisions: boolean;
  /** Compute road distance / off-road every step (default true). */
  offroad: boolean;
}

export const DEFAULT_ENV: EnvConfig = { bicycle: DEFAULT_BICYCLE_LIMITS, collisions: true, offroad: true };

/** A recorded rollout of every agent: arrays over (agent, step) at base[agent] + step, world frame. */
export interface RolloutRecord {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  yaw: Float32Array;
  vx: Float32Array;
  vy: Float32Array;
  valid: Uint8Array;
}

export class SimEnv {
  readonly scenarios: readonly Scenario[];
  readonly config: EnvConfig;
  readonly dtS: number;
  /** Total agents over all scenarios. */
  readonly n: number;
  /** Agents of scenario s are offsets[s] .. offsets[s + 1]. */
  readonly offsets: Int32Array;
  readonly scenarioOf: Int32Array;
  /** Row of each agent in its scenario's tracks. */
  readonly rowOf: Int32Array;
  readonly length: Float32Array;
  readonly width: Float32Array;
  readonly typeCode: Uint8Array;
  readonly controlled: Uint8Array;
  readonly maps: readonly MapIndex[];
  /** Dynamics model of each agent (DYNAMICS code); policies set it for the agents they drive. */
  readonly dynamics: Uint8Array;
  readonly actions: Float32Array;

  // State (world frame).
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  readonly yaw: Float64Array;
  readonly vx: Float64Array;
  readonly vy: Float64Array;
  /** Signed speed along the heading. */
  readonly speed: Float64Array;
  readonly valid: Uint8Array;
  /** valid and its scenario still running. */
  readonly live: Uint8Array;
  /**
   * Agents in the simulated world: those valid at the current step. As in the Sim Agents challenge,
   * objects that appear only later in the log are left out (they would spawn into the rollout).
   */
  readonly present: Uint8Array;

  // Per-step results.
  readonly collided: Uint8Array;
  /**
   * Signed distance of the most off-road corner to the road boundary (m; −∞ without a map, NaN off
   * the mapped area). Exact within 1 m of the boundary; deeper inside the road, an upper bound.
   */
  readonly roadDistance: Float32Array;
  readonly offroad: Uint8Array;

  /** Steps taken since reset. */
  stepCount = 0;
  /** Where each agent's track starts in `record` (step t of the agent is at recordBase[a] + t). */
  readonly recordBase: Int32Array;
  readonly record: RolloutRecord;

  /** Where scenario s starts in `record`. */
  readonly scenarioRecordBase: Int32Array;
  /**
   * Rollout index of each scenario slot: N seeded rollouts of a scenario are N copies of it in one
   * batch, told apart by this index (stochastic agents draw from it; all 0 by default).
   */
  readonly rollout: Int32Array;
  private readonly grid = new SpatialGrid();
  private readonly scenarioActive: Uint8Array;

  constructor(
    scenarios: readonly Scenario[],
    config: Partial<EnvConfig> = {},
    rollout: ArrayLike<number> = new Int32Array(scenarios.length),
  ) {
    if (scenarios.length === 0) throw new Error('SimEnv: no scenarios');
    if (rollout.length !== scenarios.length)
      throw new Error(`SimEnv: ${rollout.length} rollout indices for ${scenarios.length} scenarios`);
    this.rollout = Int32Array.from(rollout);
    this.scenarios = scenarios;
    this.config = { ...DEFAULT_ENV, ...config };
    this.dtS = scenarios[0].dtS;
    for (const s of scenarios)
      if (Math.abs(s.dtS - this.dtS) > 1e-9)
        throw new Error(`SimEnv: scenario ${s.id} has dt ${s.dtS} s, the batch runs at ${this.dtS} s`);
    const S = scenarios.length;
    this.offsets = new Int32Array(S + 1);
    let recordSize = 0;
    scenarios.forEach((s, i) => {
      this.offsets[i + 1] = this.offsets[i] + s.agents.ids.length;
      recordSize += s.agents.ids.length * s.numSteps;
    });
    const n = (this.n = this.offsets[S]);
    this.scenarioOf = new Int32Array(n);
    this.rowOf = new Int32Array(n);
    this.length = new Float32Array(n);
    this.width = new Float32Array(n);
    this.typeCode = new Uint8Array(n);
    this.controlled = new Uint8Array(n);
    this.recordBase = new Int32Array(n);
    this.scenarioRecordBase = new Int32Array(S);
    let base = 0;
    scenarios.forEach((s, si) => {
      this.scenarioRecordBase[si] = base;
      const a = s.agents;
      for (let r = 0; r < a.ids.length; r++) {
        const g = this.offsets[si] + r;
        this.scenarioOf[g] = si;
        this.rowOf[g] = r;
        this.length[g] = a.length[r];
        this.width[g] = a.width[r];
        this.typeCode[g] = TYPE_CODE[a.types[r]] ?? 3;
        this.controlled[g] = s.controlled[r];
        this.recordBase[g] = base + r * s.numSteps;
      }
      base += a.ids.length * s.numSteps;
    });
    this.maps = scenarios.map((s) => mapIndex(s.map));
    this.dynamics = new Uint8Array(n);
    this.actions = new Float32Array(n * ACTION_STRIDE);
    this.x = new Float64Array(n);
    this.y = new Float64Array(n);
    this.z = new Float64Array(n);
    this.yaw = new Float64Array(n);
    this.vx = new Float64Array(n);
    this.vy = new Float64Array(n);
    this.speed = new Float64Array(n);
    this.valid = new Uint8Array(n);
    this.live = new Uint8Array(n);
    this.present = new Uint8Array(n);
    this.collided = new Uint8Array(n);
    this.roadDistance = new Float32Array(n);
    this.offroad = new Uint8Array(n);
    this.scenarioActive = new Uint8Array(S);
    this.record = {
      x: new Float32Array(recordSize),
      y: new Float32Array(recordSize),
      z: new Float32Array(recordSize),
      yaw: new Float32Array(recordSize),
      vx: new Float32Array(recordSize),
      vy: new Float32Array(recordSize),
      valid: new Uint8Array(recordSize),
    };
    this.reset();
  }

  /** Absolute step (index into the scenario's tracks) that scenario s is at now. */
  currentStepOf(s: number): number {
    return this.scenarios[s].currentStep + this.stepCount;
  }

  /** Steps the batch runs: until the longest scenario ends. */
  get horizon(): number {
    let h = 0;
    for (const s of this.scenarios) h = Math.max(h, s.numSteps - 1 - s.currentStep);
    return h;
  }

  get done(): boolean {
    return this.stepCount >= this.horizon;
  }

  /**
   * Back to each scenario's current step: state from the log, history (steps ≤ current) copied into
   * the record, future steps cleared; controlled agents invalid at the current step stay out.
   */
  reset(): void {
    this.stepCount = 0;
    this.record.valid.fill(0);
    this.scenarios.forEach((s, si) => {
      this.scenarioActive[si] = s.currentStep < s.numSteps - 1 ? 1 : 0;
      const a = s.agents;
      const T = s.numSteps;
      for (let r = 0; r < a.ids.length; r++) {
        const g = this.offsets[si] + r;
        const base = this.recordBase[g];
        for (let t = 0; t <= s.currentStep; t++) this.copyLogToRecord(s, r, t, base + t);
        this.loadFromLog(g, s, r * T + s.currentStep);
        this.present[g] = this.valid[g];
        this.dynamics[g] = DYNAMICS.log;
      }
    });
    this.afterMove();
  }

  private copyLogToRecord(s: Scenario, r: number, t: number, k: number): void {
    const a = s.agents;
    const j = r * s.numSteps + t;
    const rec = this.record;
    rec.x[k] = a.x[j];
    rec.y[k] = a.y[j];
    rec.z[k] = a.z[j];
    rec.yaw[k] = a.yaw[j];
    rec.vx[k] = a.vx[j];
    rec.vy[k] = a.vy[j];
    rec.valid[k] = a.valid[j];
  }

  private loadFromLog(g: number, s: Scenario, j: number): void {
    const a = s.agents;
    this.x[g] = a.x[j];
    this.y[g] = a.y[j];
    this.z[g] = a.z[j];
    this.yaw[g] = a.yaw[j];
    this.vx[g] = a.vx[j];
    this.vy[g] = a.vy[j];
    this.speed[g] = signedSpeed(a.vx[j], a.vy[j], a.yaw[j]);
    this.valid[g] = a.valid[j];
  }

  /** Set the dynamics model of agents (all controlled ones when `which` is omitted). */
  setDynamics(model: DynamicsName, which?: (g: number) => boolean): void {
    for (let g = 0; g < this.n; g++)
      if (which ? which(g) : this.controlled[g]) this.dynamics[g] = DYNAMICS[model];
  }

  /** Advance every running scenario by one step using env.actions for non-log agents. */
  step(): void {
    if (this.done) return;
    const dt = this.dtS;
    const act = this.actions;
    const lim = this.config.bicycle;
    this.stepCount++;
    for (let si = 0; si < this.scenarios.length; si++) {
      const s = this.scenarios[si];
      const t = s.currentStep + this.stepCount;
      const active = t < s.numSteps;
      this.scenarioActive[si] = active ? 1 : 0;
      if (!active) continue;
      const T = s.numSteps;
      const end = this.offsets[si + 1];
      for (let g = this.offsets[si]; g < end; g++) {
        const model = this.dynamics[g];
        const o = g * ACTION_STRIDE;
        if (!this.present[g]) {
          continue;
        } else if (model === DYNAMICS.log) {
          this.loadFromLog(g, s, this.rowOf[g] * T + t);
        } else if (model === DYNAMICS.state) {
          stateStep(g, this.x, this.y, this.yaw, this.vx, this.vy, this.speed, this.valid, act, o);
        } else if (!this.valid[g]) {
          continue;
        } else if (model === DYNAMICS.bicycle) {
          bicycleStep(g, this.x, this.y, this.yaw, this.speed, act[o], act[o + 1], dt, lim);
          this.vx[g] = this.speed[g] * Math.cos(this.yaw[g]);
          this.vy[g] = this.speed[g] * Math.sin(this.yaw[g]);
        } else {
          deltaStep(
            g,
            this.x,
            this.y,
            this.yaw,
            this.vx,
            this.vy,
            this.speed,
            act[o],
            act[o + 1],
            act[o + 2],
            dt,
          );
        }
        const k = this.recordBase[g] + t;
        const rec = this.record;
        rec.x[k] = this.x[g];
        rec.y[k] = this.y[g];
        rec.z[k] = this.z[g];
        rec.yaw[k] = this.yaw[g];
        rec.vx[k] = this.vx[g];
        rec.vy[k] = this.vy[g];
        rec.valid[k] = this.valid[g];
      }
    }
    this.afterMove();
  }

  /** Collision and road checks of the current state. */
  private afterMove(): void {
    const n = this.n;
    for (let g = 0; g < n; g++) this.live[g] = this.valid[g] & this.scenarioActive[this.scenarioOf[g]];
    if (this.config.collisions) {
      markCollisions(
        n,
        {
          x: this.x,
          y: this.y,
          yaw: this.yaw,
          length: this.length,
          width: this.width,
          valid: this.live,
          group: this.scenarioOf,
        },
        this.grid,
        this.collided,
      );
    }
    if (this.config.offroad) {
      for (let g = 0; g < n; g++) {
        if (!this.live[g]) {
          this.offroad[g] = 0;
          continue;
        }
        const field = this.maps[this.scenarioOf[g]].field;
        // The distance is 1-Lipschitz: a box whose centre lies deeper inside the road than its half
        // diagonal (plus 1 m) has every corner on the road, and one lookup replaces four.
        const bound =
          signedDistance(field, this.x[g], this.y[g]) + Math.hypot(this.length[g], this.width[g]) / 2;
        const d =
          bound < -1
            ? bound
            : boxRoadDistance(field, this.x[g], this.y[g], this.yaw[g], this.length[g], this.width[g]);
        this.roadDistance[g] = d;
        this.offroad[g] = d > 0 ? 1 : 0;
      }
    }
  }

  /** The rollout of scenario s as AgentTracks-shaped views (agent-major, numSteps per agent). */
  rolloutOf(s: number): RolloutRecord {
    const sc = this.scenarios[s];
    const from = this.scenarioRecordBase[s];
    const to = from + sc.agents.ids.length * sc.numSteps;
    const r = this.record;
    return {
      x: r.x.subarray(from, to),
      y: r.y.subarray(from, to),
      z: r.z.subarray(from, to),
      yaw: r.yaw.subarray(from, to),
      vx: r.vx.subarray(from, to),
      vy: r.vy.subarray(from, to),
      valid: r.valid.subarray(from, to),
    };
  }
}
