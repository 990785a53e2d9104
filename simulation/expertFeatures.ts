// The expert's inputs as observation features (observation version 2): the route ahead by arc length, lane
// offset and heading error, leader on the path, stop line, signal, speed history, parked flag — read off IDM.
import { type IdmAgentConfig, IdmPolicy } from './agents/idmAgent.ts';
import { routePolyline } from './crossingFeatures.ts';
import { type SimEnv, TYPE_CODE } from './env.ts';

/** Arc lengths of the route points ahead, metres. */
export const ROUTE_AHEAD_M = [3, 6, 10, 15, 20, 30, 40, 50] as const;

/**
 * Layout of the expert block (agent frame: x forward, y left; metres, m/s, rad; zero where absent):
 * on_lane, lateral offset, heading error, lane speed limit, curve-limited desired speed, pure-pursuit
 * curvature, IDM free-road acceleration, IDM acceleration (leader, yielding, lights), has_leader,
 * leader gap (≤ 60), closing speed, has_stop, stop-line gap (≤ 60), in_intersection, parked,
 * last acceleration, last yaw rate (both from the recorded states), speed 0.5 s and 1 s ago;
 * then per route point: valid, dx, dy, cos Δheading, sin Δheading.
 */
export const EXPERT_SCALAR_FEATURES = 19;
export const ROUTE_POINT_FEATURES = 5;
export const EXPERT_FEATURES = EXPERT_SCALAR_FEATURES + ROUTE_AHEAD_M.length * ROUTE_POINT_FEATURES;
/** Index of the pure-pursuit curvature in the block (what residual steering corrects). */
export const PURSUIT_CURVATURE_FEATURE = 5;
/** Index of IDM's acceleration in the block (what residual acceleration corrects). */
export const IDM_ACCEL_FEATURE = 7;
/** Index of the parked flag in the block. */
export const PARKED_FEATURE = 14;

/** Input scales of the expert block (so that the network sees O(1) values). */
export function expertFeatureScale(): number[] {
  const s = [1, 0.5, 1, 0.1, 0.1, 10, 0.5, 0.5, 1, 0.05, 0.1, 1, 0.05, 1, 1, 0.5, 1, 0.1, 0.1];
  for (let i = 0; i < ROUTE_AHEAD_M.length; i++) s.push(1, 0.05, 0.05, 1, 1);
  return s;
}

/**
 * Computes the expert block with a deterministic IDM agent run alongside the environment as a probe
 * (it tracks each agent's lane and route, never acts). Follows the environment it is given: a new
 * environment or a reset one (step count going back) restarts the probe.
 */
export class ExpertProbe {
  readonly idm: IdmPolicy;
  private env: SimEnv | null = null;
  private lastStep = -1;
  private readonly pt = { x: 0, y: 0, heading: 0 };
  /** The route of the last features() call: the agent's position, then the route points found (none off a lane). */
  readonly route = routePolyline(ROUTE_AHEAD_M.length + 1);

  /** `omitHistory`: the history features read as a steady state (ObservationConfig.omitHistory). */
  constructor(
    idm: Partial<IdmAgentConfig> = {},
    private readonly omitHistory = false,
  ) {
    this.idm = new IdmPolicy(idm);
  }

  /** Start tracking env (its dynamics are left as they are). */
  reset(env: SimEnv): void {
    const saved = env.dynamics.slice();
    this.idm.reset(env);
    env.dynamics.set(saved);
    this.env = env;
    this.lastStep = env.stepCount;
    this.idm.prepare(env);
  }

  /** Before the first features() of a step. */
  sync(env: SimEnv): void {
    if (env !== this.env || env.stepCount < this.lastStep) this.reset(env);
    else if (env.stepCount !== this.lastStep) {
      // Observed every k-th step (demonstrations): the cooldowns run down by the k steps.
      this.idm.prepare(env, (env.stepCount - this.lastStep) * env.dtS);
      this.lastStep = env.stepCount;
    }
  }

  /** Write agent g's expert block at out[at …]. */
  features(env: SimEnv, g: number, out: Float32Array, at: number): void {
    this.route.count = 0;
    const si = env.scenarioOf[g];
    const m = env.maps[si];
    const isVehicle = env.typeCode[g] === TYPE_CODE.vehicle || env.typeCode[g] === TYPE_CODE.cyclist;
    const yaw = env.yaw[g];
    const c = Math.cos(yaw);
    const sn = Math.sin(yaw);
    // Recorded history: acceleration and yaw rate over the last step, speeds 0.5 s and 1 s ago.
    const dt = env.dtS;
    const t = env.currentStepOf(si);
    const rec = env.record;
    const base = env.recordBase[g];
    const v = Math.hypot(env.vx[g], env.vy[g]);
    const v1 = this.omitHistory ? NaN : recordedSpeed(env, base, t - 1);
    if (Number.isFinite(v1)) {
      out[at + 15] = (v - v1) / dt;
      out[at + 16] = wrapPi(yaw - rec.yaw[base + t - 1]) / dt;
    }
    const v5 = this.omitHistory ? NaN : recordedSpeed(env, base, t - 5);
    const v10 = this.omitHistory ? NaN : recordedSpeed(env, base, t - 10);
    out[at + 17] = Number.isFinite(v5) ? v5 : v;
    out[at + 18] = Number.isFinite(v10) ? v10 : v;
    out[at + PARKED_FEATURE] = this.idm.parked[g] ?? 0;
    if (!isVehicle) return;
    const st = this.idm.decide(env, g);
    const li = this.idm.lane[g];
    if (li < 0) return;
    out[at] = 1;
    out[at + 1] = st.lateral;
    out[at + 2] = st.headingError;
    out[at + 3] = m.laneSpeed[li];
    out[at + 4] = st.v0;
    out[at + PURSUIT_CURVATURE_FEATURE] = st.curvature;
    out[at + 6] = st.free;
    out[at + IDM_ACCEL_FEATURE] = st.accel;
    if (Number.isFinite(st.leaderGap)) {
      out[at + 8] = 1;
      out[at + 9] = Math.min(60, Math.max(-5, st.leaderGap));
      out[at + 10] = st.leaderClosing;
    }
    if (Number.isFinite(st.stopGap)) {
      out[at + 11] = 1;
      out[at + 12] = Math.min(60, Math.max(-5, st.stopGap));
    }
    out[at + 13] = m.laneInIntersection[li];
    const x = env.x[g];
    const y = env.y[g];
    const route = this.route;
    route.x[0] = x;
    route.y[0] = y;
    route.s[0] = 0;
    route.count = 1;
    for (let k = 0; k < ROUTE_AHEAD_M.length; k++) {
      if (!this.idm.routePoint(env, g, ROUTE_AHEAD_M[k], this.pt)) break;
      route.x[route.count] = this.pt.x;
      route.y[route.count] = this.pt.y;
      route.s[route.count] = ROUTE_AHEAD_M[k];
      route.count++;
      const o = at + EXPERT_SCALAR_FEATURES + k * ROUTE_POINT_FEATURES;
      const dx = this.pt.x - x;
      const dy = this.pt.y - y;
      out[o] = 1;
      out[o + 1] = dx * c + dy * sn;
      out[o + 2] = -dx * sn + dy * c;
      out[o + 3] = Math.cos(this.pt.heading - yaw);
      out[o + 4] = Math.sin(this.pt.heading - yaw);
    }
  }
}

/** Recorded speed of the agent whose record starts at `base`, `k` steps in; NaN before 0 or where invalid. */
function recordedSpeed(env: SimEnv, base: number, k: number): number {
  const rec = env.record;
  return k >= 0 && rec.valid[base + k] ? Math.hypot(rec.vx[base + k], rec.vy[base + k]) : NaN;
}

function wrapPi(a: number): number {
  return Math.atan2(Math.sin(a), Math.cos(a));
}
