// The IDM agent's per-agent interaction steps (3, 3b): each other agent within range becomes my leader, a
// neighbour-lane gap or follower for lane changes, or a predicted conflict on my planned path to yield to.
import { type SimEnv, TYPE_CODE } from '../env.ts';
import { halfExtentAcross, halfExtentAlong } from './boxExtent.ts';
import { idmAcceleration, type IdmConfig } from './idm.ts';
import type { ControlScratch, IdmAgentConfig } from './idmAgent.ts';
import { idmStopAcceleration } from './idmStop.ts';
import type { SpatialGrid } from '../spatialGrid.ts';

/** With IdmAgentConfig.mergeYield, the one yielding at a side-by-side merge brakes as behind a leader this far ahead, m. */
export const MERGE_GAP_M = 0.5;

/** My planned positions and headings at the yield-check times (the first `count` entries). */
export interface YieldPlan {
  x: Float64Array;
  y: Float64Array;
  yaw: Float64Array;
  count: number;
}

/** What the interaction steps read (config, IDM parameters, my plan) and update (the control scratch). */
export interface InteractionContext {
  cfg: IdmAgentConfig;
  idm: IdmConfig;
  st: ControlScratch;
  plan: YieldPlan;
}

/**
 * Steps 3 and 3b for agent g over every visible agent within st.range, nearest cells first, one interact()
 * call each: the per-neighbour reference that idmScan.ts batches (the same trajectories bit for bit).
 */
export function scanReference(
  ctx: InteractionContext,
  env: SimEnv,
  grid: SpatialGrid,
  g: number,
  li: number,
  occluded: (j: number) => boolean,
): void {
  const { cfg, st } = ctx;
  const si = env.scenarioOf[g];
  const range = st.range;
  const reach = Math.ceil(range / grid.cellM);
  const cx = grid.cellOf(st.x);
  const cy = grid.cellOf(st.y);
  const { start, items } = grid;
  for (let ox = -reach; ox <= reach; ox++) {
    for (let oy = -reach; oy <= reach; oy++) {
      const b = grid.bucket(cx + ox, cy + oy, si);
      for (let p = start[b]; p < start[b + 1]; p++) {
        const j = items[p];
        if (j === g || env.scenarioOf[j] !== si) continue;
        const dx = env.x[j] - st.x;
        const dy = env.y[j] - st.y;
        if (dx * dx + dy * dy > range * range) continue;
        if (cfg.occlusion && env.typeCode[j] === TYPE_CODE.pedestrian && occluded(j)) continue;
        interact(ctx, env, g, j, li, dx, dy);
      }
    }
  }
}

/** 3, one agent j (dx, dy from me): my leader, a neighbour-lane gap for lane changes, or a conflict to yield to. */
/**
 * Whether (x, y) lies less than `clear` across the planned path, measured at the plan point it is nearest to
 * along the path (true without a plan: nothing to measure against).
 */
export function withinPlanCorridor(plan: YieldPlan, x: number, y: number, clear: number): boolean {
  if (plan.count === 0) return true;
  let nearestAlong = Infinity;
  let across = Infinity;
  for (let k = 0; k < plan.count; k++) {
    const hh = plan.yaw[k];
    const ex = x - plan.x[k];
    const ey = y - plan.y[k];
    const along = Math.abs(ex * Math.cos(hh) + ey * Math.sin(hh));
    if (along < nearestAlong) {
      nearestAlong = along;
      across = Math.abs(-ex * Math.sin(hh) + ey * Math.cos(hh));
    }
  }
  return across < clear;
}

export function interact(
  ctx: InteractionContext,
  env: SimEnv,
  g: number,
  j: number,
  li: number,
  dx: number,
  dy: number,
): void {
  const { cfg, st, idm } = ctx;
  const v = st.v;
  const c = Math.cos(st.yaw);
  const sn = Math.sin(st.yaw);
  const Lg = env.length[g];
  const Wg = env.width[g];
  const u = dx * c + dy * sn;
  const w = -dx * sn + dy * c;
  const wPath = w - 0.5 * st.curvature * u * u;
  const dh = env.yaw[j] - st.yaw;
  const cosDh = Math.cos(dh);
  const sinDh = Math.sin(dh);
  // j's half extents along and across my heading.
  const hu = halfExtentAlong(env.length[j], env.width[j], cosDh, sinDh);
  const hw = halfExtentAcross(env.length[j], env.width[j], cosDh, sinDh);
  const vj = env.vx[j] * c + env.vy[j] * sn;
  const gap = u - Lg / 2 - hu;
  const lateralClear = Wg / 2 + hw + cfg.corridorMarginM;
  if (
    u > 0 &&
    Math.abs(wPath) < lateralClear &&
    (!cfg.leaderOnRoute || withinPlanCorridor(ctx.plan, env.x[j], env.y[j], lateralClear))
  ) {
    st.accelLeader = Math.min(st.accelLeader, idmAcceleration(idm, v, gap, v - vj));
    if (gap < st.leaderGap) {
      st.leaderGap = gap;
      st.leaderClosing = v - vj;
    }
    return;
  }
  // Neighbouring lanes, for lane changes: who is ahead there, and would a follower brake hard?
  if (li >= 0) {
    const laneW = st.laneW;
    const side = Math.abs(wPath - laneW) < lateralClear ? 1 : Math.abs(wPath + laneW) < lateralClear ? -1 : 0;
    if (side !== 0 && u > 0) {
      if (side > 0 && gap < st.leftGap) {
        st.leftGap = gap;
        st.leftClosing = v - vj;
      } else if (side < 0 && gap < st.rightGap) {
        st.rightGap = gap;
        st.rightClosing = v - vj;
      }
    } else if (side !== 0) {
      const back = -u - Lg / 2 - hu;
      const fv = Math.max(0, vj);
      const followerAccel = back <= 0 ? -Infinity : idmAcceleration(idm, fv, back, fv - v);
      if (followerAccel < -cfg.laneChangeSafeDecelMps2) {
        if (side > 0) st.leftSafe = false;
        else st.rightSafe = false;
      }
    }
  }
  // Agents clearly behind me going my way are theirs to handle, not mine.
  if (u < -(Lg / 2 + hu) && cosDh > 0.7) return;
  yieldToPredicted(ctx, env, g, j, u, gap, vj, hu, hw, cosDh);
}

/** 3b. Predicted conflicts: j moving at constant velocity meets my planned path; the first one decides. */
function yieldToPredicted(
  ctx: InteractionContext,
  env: SimEnv,
  g: number,
  j: number,
  u: number,
  gap: number,
  vj: number,
  hu: number,
  hw: number,
  cosDh: number,
): void {
  const { cfg, st, idm, plan } = ctx;
  const v = st.v;
  const vPlan = st.vPlan;
  const Lg = env.length[g];
  const Wg = env.width[g];
  const jvx = env.vx[j];
  const jvy = env.vy[j];
  const rj = hw + cfg.corridorMarginM;
  const planFrame = cfg.planFrameExtents;
  let huK = hu;
  const cj = planFrame ? Math.cos(env.yaw[j]) : 0;
  const sj = planFrame ? Math.sin(env.yaw[j]) : 0;
  for (let k = 0; k < plan.count; k++) {
    const tau = (k + 1) * cfg.yieldStepS;
    const hh = plan.yaw[k];
    const ex = env.x[j] + jvx * tau - plan.x[k];
    const ey = env.y[j] + jvy * tau - plan.y[k];
    const ck = Math.cos(hh);
    const sk = Math.sin(hh);
    const along = ex * ck + ey * sk;
    const across = Math.abs(-ex * sk + ey * ck);
    if (planFrame) {
      // j's extents in this plan point's frame (IdmAgentConfig.planFrameExtents).
      const cr = Math.abs(cj * ck + sj * sk);
      const sr = Math.abs(sj * ck - cj * sk);
      huK = (env.length[j] / 2) * cr + (env.width[j] / 2) * sr;
      const hwK = (env.length[j] / 2) * sr + (env.width[j] / 2) * cr;
      if (across > Wg / 2 + hwK + cfg.corridorMarginM) continue;
    } else if (across > Wg / 2 + rj) continue;
    if (cosDh > 0.7) {
      // Same direction, entering my lane ahead of me (cut-in, merge): it is my leader from now
      // on. One still beside me is left alone (braking hard would not help), unless the merge has a rule:
      // the one behind yields (IdmAgentConfig.mergeYield).
      if (gap <= 0) {
        if (cfg.mergeYield && (u > 0 || (u === 0 && j < g)))
          st.accel = Math.min(st.accel, idmAcceleration(idm, v, MERGE_GAP_M, v - vj));
        break;
      }
      if (along < -(Lg / 2 + huK)) continue;
      st.accel = Math.min(st.accel, idmAcceleration(idm, v, gap, v - vj));
    } else {
      // Overlap in my predicted frame: along ±(L/2 + j's extent + 1 m).
      if (Math.abs(along) > Lg / 2 + huK + 1) continue;
      // Crossing or oncoming: I go first only if I clear the conflict a second before j gets
      // there; pedestrians and cyclists always have the way. A stopped car on my path is
      // simply an obstacle there.
      const d = vPlan * tau;
      const distJ = Math.hypot(plan.x[k] - env.x[j], plan.y[k] - env.y[j]);
      const tJ = distJ / Math.max(Math.hypot(jvx, jvy), 0.1);
      const clearS = (Lg + 2 * huK) / vPlan;
      const vulnerable = env.typeCode[j] === TYPE_CODE.pedestrian || env.typeCode[j] === TYPE_CODE.cyclist;
      if (vulnerable || tau + clearS + 1 > tJ)
        st.accel = Math.min(st.accel, idmStopAcceleration(idm, v, d - Lg / 2 - huK - 1));
    }
    break;
  }
}
