// The RL reward of the learned traffic agents (RTR): −collision, −off-road, −red light each step, plus
// progress towards the agent's goal; episodes continue after an infraction (removing agents biases metrics).
import { type SimEnv, TYPE_CODE } from '../env.ts';
import { crossesRedLine, type SignalLines, signalLines } from '../metrics/redLight.ts';

export interface RewardConfig {
  collision: number;
  offroad: number;
  redLight: number;
  /**
   * Reward per metre gained towards the goal (capped per step by maxGainM). At 0.05 PPO learned to stop
   * (held-out progress 0.16 after 9 iterations): a typical 60 m episode must outweigh a collision.
   */
  progressPerM: number;
  maxGainM: number;
  /**
   * Once the goal lies behind the agent (along its heading) within this distance, it is reached: driving
   * on earns and costs nothing, metres (0: never reached, every metre away from it costs — the reward the
   * shipped models were trained with). The goal is the log's last position, which most town agents do not
   * observe; in town training agents seldom pass it, and 10 m did not give a better model
   * (docs/agents.md), so it stays an option.
   */
  goalPassM: number;
}

export const DEFAULT_REWARD: RewardConfig = {
  collision: 1,
  offroad: 1,
  redLight: 1,
  progressPerM: 0.2,
  maxGainM: 2,
  goalPassM: 0,
};

/** Per-step infractions of the driven agents, for the rates the trainers report. */
export interface StepInfractions {
  collided: Uint8Array;
  offroad: Uint8Array;
  redLight: Uint8Array;
}

/**
 * Scores the driven agents after each env.step(). The goal is the scenario's goal point, else the
 * agent's last valid logged position.
 */
export class RewardTracker {
  private readonly goalX: Float64Array;
  private readonly goalY: Float64Array;
  private readonly lines: SignalLines[];
  private readonly prevX: Float64Array;
  private readonly prevY: Float64Array;
  /** 1 once agent g has passed its goal (see goalPassM). */
  private readonly reached: Uint8Array;

  constructor(
    env: SimEnv,
    readonly cfg: RewardConfig = DEFAULT_REWARD,
  ) {
    const n = env.n;
    this.goalX = new Float64Array(n).fill(NaN);
    this.goalY = new Float64Array(n).fill(NaN);
    for (let g = 0; g < n; g++) {
      const s = env.scenarios[env.scenarioOf[g]];
      const r = env.rowOf[g];
      if (Number.isFinite(s.goalX[r])) {
        this.goalX[g] = s.goalX[r];
        this.goalY[g] = s.goalY[r];
        continue;
      }
      for (let t = s.numSteps - 1; t >= 0; t--) {
        const k = r * s.numSteps + t;
        if (s.agents.valid[k]) {
          this.goalX[g] = s.agents.x[k];
          this.goalY[g] = s.agents.y[k];
          break;
        }
      }
    }
    this.lines = env.scenarios.map((s, i) => signalLines(s, env.maps[i]));
    this.prevX = Float64Array.from(env.x);
    this.prevY = Float64Array.from(env.y);
    this.reached = new Uint8Array(n);
  }

  /** Remember the positions before a step (call before env.step()). */
  before(env: SimEnv): void {
    this.prevX.set(env.x);
    this.prevY.set(env.y);
  }

  /** Rewards of `agents` after the step into `out`, and their infractions. */
  after(env: SimEnv, agents: Int32Array, out: Float32Array, inf: StepInfractions): void {
    const c = this.cfg;
    for (let q = 0; q < agents.length; q++) {
      const g = agents[q];
      const dx = this.goalX[g] - env.x[g];
      const dy = this.goalY[g] - env.y[g];
      const left = Math.hypot(dx, dy);
      const gain = Math.hypot(this.goalX[g] - this.prevX[g], this.goalY[g] - this.prevY[g]) - left;
      const progress =
        Number.isFinite(gain) && !this.reached[g] ? Math.max(-c.maxGainM, Math.min(c.maxGainM, gain)) : 0;
      if (
        c.goalPassM > 0 &&
        left <= c.goalPassM &&
        dx * Math.cos(env.yaw[g]) + dy * Math.sin(env.yaw[g]) <= 0
      )
        this.reached[g] = 1;
      const red = this.ranRed(env, g) ? 1 : 0;
      // Off-road is a vehicle infraction (as the metric rates it): pedestrians belong on the sidewalks,
      // and counting them held the RTR constraint at ~35 % whatever the policy did.
      const off = env.typeCode[g] === TYPE_CODE.vehicle ? env.offroad[g] : 0;
      inf.collided[q] = env.collided[g];
      inf.offroad[q] = off;
      inf.redLight[q] = red;
      out[q] = c.progressPerM * progress - c.collision * env.collided[g] - c.offroad * off - c.redLight * red;
    }
  }

  /** Did vehicle/cyclist g cross a red signal's stop line heading its way during the last step? */
  private ranRed(env: SimEnv, g: number): boolean {
    if (env.typeCode[g] === TYPE_CODE.pedestrian) return false;
    const si = env.scenarioOf[g];
    const L = this.lines[si];
    if (L.count === 0) return false;
    const s = env.scenarios[si];
    const t = env.currentStepOf(si);
    return crossesRedLine(s, L, t, this.prevX[g], this.prevY[g], env.x[g], env.y[g], env.yaw[g]);
  }
}
