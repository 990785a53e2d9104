// DAgger's expert on logged scenarios: IDM's car-following, yielding and red-light logic, conditioned on
// the log — each agent follows the lanes its logged track drove, at the speed the log had a moment later.
import { IdmPolicy } from '../agents/idmAgent.ts';
import type { SimEnv } from '../env.ts';
import { type LaneHit, mapIndex, nearestLane } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';

export interface LogExpertConfig {
  /** The desired speed is the logged speed this far ahead of the current step, seconds. */
  lookaheadS: number;
  /** A logged position farther than this from every lane adds no lane to the route, metres. */
  laneSnapM: number;
}

export const DEFAULT_LOG_EXPERT: LogExpertConfig = { lookaheadS: 1, laneSnapM: 3 };

/**
 * A copy of the scenario whose routes are the lanes each agent's whole logged track passes, in order
 * (IDM takes the successor on its route at a fork, so the expert turns where the log turned).
 */
export function withLogRoutes(s: Scenario, cfg: LogExpertConfig = DEFAULT_LOG_EXPERT): Scenario {
  const m = mapIndex(s.map);
  const a = s.agents;
  const T = s.numSteps;
  const hit: LaneHit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };
  const routes = Array.from({ length: a.ids.length }, (_, r) => {
    const lanes: number[] = [];
    for (let t = 0; t < T; t++) {
      const k = r * T + t;
      if (!a.valid[k] || !nearestLane(m, a.x[k], a.y[k], a.yaw[k], hit, cfg.laneSnapM)) continue;
      const id = m.laneIds[hit.lane];
      if (lanes[lanes.length - 1] !== id) lanes.push(id);
    }
    return lanes;
  });
  return { ...s, routes };
}

/** The log-conditioned IDM: call reset(env) after the environment's, then decide per agent and step. */
export class LogExpert {
  readonly idm = new IdmPolicy();
  readonly cfg: LogExpertConfig;

  constructor(cfg: Partial<LogExpertConfig> = {}) {
    this.cfg = { ...DEFAULT_LOG_EXPERT, ...cfg };
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
    const st = this.idm.decide(env, g);
    return { accel: st.accel, curvature: st.curvature };
  }
}
