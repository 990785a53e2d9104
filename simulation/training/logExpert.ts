// DAgger's expert on logged scenarios: IDM's car-following, yielding and red-light logic, conditioned on
// the log — each agent follows the lanes its logged track drove, at the speed the log had a moment later.
import { type ControlScratch, DEFAULT_IDM_AGENT, IdmPolicy } from '../agents/idmAgent.ts';
import type { Policy } from '../agents/policy.ts';
import { RuleAgents } from '../agents/ruleAgents.ts';
import { ACTION_STRIDE, type SimEnv, TYPE_CODE } from '../env.ts';
import { drivenLanes } from '../map/drivenLanes.ts';
import { mapIndex } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';
import { drivenAgents } from './policyStep.ts';

export interface LogExpertConfig {
  /** The desired speed is the logged speed this far ahead of the current step, seconds. */
  lookaheadS: number;
  /** A logged position farther than this from every lane adds no lane to the route, metres. */
  laneSnapM: number;
  /**
   * On a free road, close the gap to the desired speed within this time, seconds (0: IDM's own free-road
   * law, whose 1 m/s² approach made the agents lag the log: held-out progress 0.82 against IDM's 0.85).
   */
  trackTimeS: number;
  /**
   * Cap of that tracking acceleration, m/s². Only speeding up on a straight road is tracked: above the
   * desired speed IDM's own, firmer braking stays, as do its leader, yielding and red-light limits.
   */
  trackMaxAccelMps2: number;
  /**
   * Catch up with the log: where the logged position now lies Δ metres ahead along the heading, the
   * desired speed rises by Δ / catchUpS (0: off), by at most catchUpMaxMps. Without it an agent held up by
   * a yield or a leader never regains the ground (the expert's moving vehicles reach 0.74 of the log's
   * progress on towns 211–213; with 2 s, 0.76, and its cyclists 0.77 → 0.84).
   */
  catchUpS: number;
  catchUpMaxMps: number;
  /**
   * Where the log stands (desired speed below waitSpeedMps), desire the speed it moves at next instead:
   * IDM then still holds the agent for a leader, a yield or a light, but not for what the observation does
   * not carry (a town's junction reservations). Off by default: tried against the students' waits at a
   * standstill (tools/report/startHesitation.ts), it did not reduce them and slowed the students.
   */
  startUnobservedWaits: boolean;
  waitSpeedMps: number;
  /** IDM's leader must lie on the planned route too (IdmAgentConfig.leaderOnRoute). */
  leaderOnRoute: boolean;
  /** Of two vehicles side by side whose paths merge, the one behind yields (IdmAgentConfig.mergeYield). */
  mergeYield: boolean;
  /** A predicted conflict is measured in the plan point's frame (IdmAgentConfig.planFrameExtents). */
  planFrameExtents: boolean;
  /**
   * IDM yields to conflicts predicted within this horizon, seconds (IdmAgentConfig.yieldHorizonS). The log's
   * traffic settles its junctions by reservations, so an expert that keeps the log's pace and yields only to
   * near conflicts reproduces it without touching, where IDM's 3 s yields wait for conflicts the log never
   * had (towns 211–213: moving vehicles 0.82 of the log's progress at 3 s, 0.85 at 1.5 s).
   */
  yieldHorizonS: number;
}

export const DEFAULT_LOG_EXPERT: LogExpertConfig = {
  lookaheadS: 1,
  laneSnapM: 3,
  trackTimeS: 1,
  trackMaxAccelMps2: 2,
  catchUpS: 0,
  catchUpMaxMps: 5,
  startUnobservedWaits: false,
  waitSpeedMps: 0.5,
  leaderOnRoute: false,
  mergeYield: false,
  planFrameExtents: false,
  yieldHorizonS: DEFAULT_IDM_AGENT.yieldHorizonS,
};

/**
 * A copy of the scenario whose routes are the lanes each agent's whole logged track drove, in order
 * (map/drivenLanes.ts; IDM takes the successor on its route at a fork, so the expert turns where the log
 * turned — with one branch per fork on the route, as the overlapping branches' flicker is collapsed).
 */
export function withLogRoutes(s: Scenario, cfg: LogExpertConfig = DEFAULT_LOG_EXPERT): Scenario {
  const m = mapIndex(s.map);
  const routes = Array.from({ length: s.agents.ids.length }, (_, r) =>
    drivenLanes(m, s, r, cfg.laneSnapM).map((d) => m.laneIds[d.lane]),
  );
  return { ...s, routes };
}

/** The log-conditioned IDM: call reset(env) after the environment's, then decide per agent and step. */
export class LogExpert {
  readonly idm: IdmPolicy;
  readonly cfg: LogExpertConfig;

  constructor(cfg: Partial<LogExpertConfig> = {}) {
    this.cfg = { ...DEFAULT_LOG_EXPERT, ...cfg };
    this.idm = new IdmPolicy({
      leaderOnRoute: this.cfg.leaderOnRoute,
      mergeYield: this.cfg.mergeYield,
      planFrameExtents: this.cfg.planFrameExtents,
      yieldHorizonS: this.cfg.yieldHorizonS,
    });
  }

  /** Track env's agents (their dynamics are left as they are). */
  reset(env: SimEnv): void {
    const saved = env.dynamics.slice();
    this.idm.reset(env);
    env.dynamics.set(saved);
  }

  /** Before the agents of a step. */
  prepare(env: SimEnv): void {
    this.idm.prepare(env);
  }

  /** IDM's terms behind the last decide() (free road, leader, light), for reports on what bound it. */
  get lastControl(): Readonly<ControlScratch> | null {
    return this.last;
  }

  private last: Readonly<ControlScratch> | null = null;

  /** IDM's (acceleration, curvature) for agent g now, desiring the logged speed. */
  decide(env: SimEnv, g: number): { accel: number; curvature: number } {
    const si = env.scenarioOf[g];
    const s = env.scenarios[si];
    const a = s.agents;
    const row = env.rowOf[g];
    const T = s.numSteps;
    const want = Math.min(T - 1, env.currentStepOf(si) + Math.round(this.cfg.lookaheadS / s.dtS));
    for (let t = want; t >= 0; t--) {
      const k = row * T + t;
      if (a.valid[k]) {
        this.idm.desired[g] = Math.hypot(a.vx[k], a.vy[k]);
        break;
      }
    }
    const now = row * T + env.currentStepOf(si);
    if (this.cfg.startUnobservedWaits && this.idm.desired[g] < this.cfg.waitSpeedMps) {
      for (let t = want + 1; t < T; t++) {
        const k = row * T + t;
        const v = a.valid[k] ? Math.hypot(a.vx[k], a.vy[k]) : 0;
        if (v >= this.cfg.waitSpeedMps) {
          this.idm.desired[g] = v;
          break;
        }
      }
    }
    if (this.cfg.catchUpS > 0 && a.valid[now] && this.idm.desired[g] > 0.5) {
      const ahead =
        (a.x[now] - env.x[g]) * Math.cos(env.yaw[g]) + (a.y[now] - env.y[g]) * Math.sin(env.yaw[g]);
      if (ahead > 0) this.idm.desired[g] += Math.min(this.cfg.catchUpMaxMps, ahead / this.cfg.catchUpS);
    }
    const st = this.idm.decide(env, g);
    this.last = st;
    const c = this.cfg;
    if (c.trackTimeS <= 0 || st.v0 <= 0) return { accel: st.accel, curvature: st.curvature };
    // Not above the desired speed, nor where a curve ahead lowers it: pure pursuit lags in a turn taken
    // briskly, and the car ran wide of its lane (long-tail left turns left the road 4 of 4 times).
    if (st.v >= st.v0 || st.v0 < this.idm.desired[g] - 1e-6)
      return { accel: st.accel, curvature: st.curvature };
    const track = Math.max(st.free, Math.min(c.trackMaxAccelMps2, (st.v0 - st.v) / c.trackTimeS));
    // The free-road term is raised to the tracking law; a binding leader, yield or light limit stays.
    const bound = st.accel < st.free - 1e-9 ? st.accel : Infinity;
    return { accel: Math.min(bound, track), curvature: st.curvature };
  }
}

/**
 * The expert as a traffic policy (to score it as the ceiling DAgger imitates): it drives moving vehicles
 * and cyclists of scenarios with log routes (withLogRoutes); parked vehicles and walkers follow the rules.
 */
export class LogExpertPolicy implements Policy {
  readonly name = 'log-expert';
  private readonly expert: LogExpert;
  private readonly rules = new RuleAgents(1);

  constructor(cfg: Partial<LogExpertConfig> = {}) {
    this.expert = new LogExpert(cfg);
  }

  reset(env: SimEnv): void {
    env.setDynamics('bicycle');
    this.rules.reset(env);
    this.expert.reset(env);
  }

  act(env: SimEnv): void {
    this.rules.act(env);
    this.expert.prepare(env);
    for (const g of drivenAgents(env, undefined, this.rules.ruled)) {
      const t = env.typeCode[g];
      const e =
        t === TYPE_CODE.vehicle || t === TYPE_CODE.cyclist
          ? this.expert.decide(env, g)
          : { accel: 0, curvature: 0 };
      env.actions[g * ACTION_STRIDE] = e.accel;
      env.actions[g * ACTION_STRIDE + 1] = e.curvature;
    }
  }
}
