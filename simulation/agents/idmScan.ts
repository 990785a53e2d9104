// The IDM agent's scan of the agents around it (steps 3 and 3b of idmAgent.ts), batched on typed arrays: what
// depends only on me (my heading's cosine and sine, my plan's, IDM's free-road term) is computed once per agent and
// step instead of once per neighbour, with the arithmetic of idmInteraction.ts in the same order, so trajectories
// are bit-identical to that per-neighbour reference (test/simulation/idmBatched.test.ts).
import { type SimEnv, TYPE_CODE } from '../env.ts';
import { idmAcceleration, type IdmConfig } from './idm.ts';
import type { ControlScratch, IdmAgentConfig } from './idmAgent.ts';
import { MERGE_GAP_M, withinPlanCorridor, type YieldPlan } from './idmInteraction.ts';
import type { SpatialGrid } from '../spatialGrid.ts';

/** What stays fixed while one agent scans its neighbours (filled by `beginScan`). */
export interface ScanScratch {
  cos: number;
  sin: number;
  /** My length and width, their halves. */
  lengthM: number;
  widthM: number;
  halfLengthM: number;
  halfWidthM: number;
  /** IDM terms of my own speed: 1 − (v/v0)^δ, v·T, 2·√(a·b), and the parameters they combine with. */
  free: number;
  vHeadway: number;
  den: number;
  minGapM: number;
  maxAccel: number;
  maxBrake: number;
  /** cos and sin of my plan's headings (the first plan.count entries). */
  planCos: Float64Array;
  planSin: Float64Array;
}

export function scanScratch(): ScanScratch {
  return {
    cos: 0,
    sin: 0,
    lengthM: 0,
    widthM: 0,
    halfLengthM: 0,
    halfWidthM: 0,
    free: 0,
    vHeadway: 0,
    den: 0,
    minGapM: 0,
    maxAccel: 0,
    maxBrake: 0,
    planCos: new Float64Array(64),
    planSin: new Float64Array(64),
  };
}

/** Fill the per-agent terms for agent g at speed st.v with IDM parameters idm and plan. */
export function beginScan(
  sc: ScanScratch,
  env: SimEnv,
  g: number,
  st: ControlScratch,
  idm: IdmConfig,
  plan: YieldPlan,
): void {
  sc.cos = Math.cos(st.yaw);
  sc.sin = Math.sin(st.yaw);
  sc.lengthM = env.length[g];
  sc.widthM = env.width[g];
  sc.halfLengthM = sc.lengthM / 2;
  sc.halfWidthM = sc.widthM / 2;
  // As idmAcceleration computes them for v = st.v (≥ 0, so max(0, v) = v).
  const v = Math.max(0, st.v);
  const v0 = Math.max(idm.desiredSpeedMps, 1e-3);
  sc.free = 1 - Math.pow(v / v0, idm.accelExponent);
  sc.vHeadway = v * idm.timeHeadwayS;
  sc.den = 2 * Math.sqrt(idm.maxAccelMps2 * idm.comfortDecelMps2);
  sc.minGapM = idm.minGapM;
  sc.maxAccel = idm.maxAccelMps2;
  sc.maxBrake = idm.maxBrakeMps2;
  for (let k = 0; k < plan.count; k++) {
    sc.planCos[k] = Math.cos(plan.yaw[k]);
    sc.planSin[k] = Math.sin(plan.yaw[k]);
  }
}

/** idmAcceleration(idm, st.v, Infinity): the free-road acceleration (the interaction term is 0). */
export function freeRoadAccel(sc: ScanScratch): number {
  return Math.max(sc.maxBrake, sc.maxAccel * (sc.free - 0));
}

/**
 * Whether idmAcceleration(idm, fv, backM, fv − v) < thresholdMps2, for a follower at speed fv ≥ 0 behind me in
 * a neighbour lane. Decided from (fv/v0)⁴ by multiplications (Math.pow costs ~100 ns); only when that lands within
 * rounding of the threshold is the reference called, so the answer is always the reference's.
 */
function followerBelow(
  idm: IdmConfig,
  sc: ScanScratch,
  fv: number,
  backM: number,
  v: number,
  thresholdMps2: number,
): boolean {
  const v0 = Math.max(idm.desiredSpeedMps, 1e-3);
  if (idm.accelExponent !== 4) return idmAcceleration(idm, fv, backM, fv - v) < thresholdMps2;
  const r = fv / v0;
  const r2 = r * r;
  const r4 = r2 * r2;
  let interaction = 0;
  if (Number.isFinite(backM)) {
    const sStar = idm.minGapM + Math.max(0, fv * idm.timeHeadwayS + (fv * (fv - v)) / sc.den);
    const s = Math.max(backM, 0.01);
    interaction = (sStar / s) * (sStar / s);
  }
  const a = Math.max(idm.maxBrakeMps2, idm.maxAccelMps2 * (1 - r4 - interaction));
  const tol = 1e-9 * (1 + Math.abs(idm.maxAccelMps2) * (r4 + interaction + 1));
  if (a < thresholdMps2 - tol) return true;
  if (a > thresholdMps2 + tol) return false;
  return idmAcceleration(idm, fv, backM, fv - v) < thresholdMps2;
}

/** idmAcceleration(idm, st.v, gapM, closingMps) from the per-agent terms: the same operations in the same order. */
function accelBehind(sc: ScanScratch, v: number, gapM: number, closingMps: number): number {
  let interaction = 0;
  if (Number.isFinite(gapM)) {
    const sStar = sc.minGapM + Math.max(0, sc.vHeadway + (v * closingMps) / sc.den);
    const s = Math.max(gapM, 0.01);
    interaction = (sStar / s) * (sStar / s);
  }
  const a = sc.maxAccel * (sc.free - interaction);
  return Math.max(sc.maxBrake, a);
}

/**
 * Steps 3 and 3b for agent g over every visible agent within st.range, nearest cells first (the order of
 * IdmPolicy's reference scan): leader, neighbour-lane gaps and followers, predicted conflicts. `occluded`
 * decides pedestrians hidden behind vehicles.
 */
export function scanNeighbours(
  sc: ScanScratch,
  cfg: IdmAgentConfig,
  idm: IdmConfig,
  st: ControlScratch,
  plan: YieldPlan,
  env: SimEnv,
  grid: SpatialGrid,
  g: number,
  li: number,
  occluded: (j: number) => boolean,
): void {
  const si = env.scenarioOf[g];
  const X = env.x;
  const Y = env.y;
  const YAW = env.yaw;
  const VX = env.vx;
  const VY = env.vy;
  const LEN = env.length;
  const WID = env.width;
  const TYPE = env.typeCode;
  const SCEN = env.scenarioOf;
  const { start, items } = grid;
  const range = st.range;
  const range2 = range * range;
  const x = st.x;
  const y = st.y;
  const v = st.v;
  const c = sc.cos;
  const sn = sc.sin;
  const curv = st.curvature;
  const Lg = sc.lengthM;
  const halfLg = sc.halfLengthM;
  const halfWg = sc.halfWidthM;
  const margin = cfg.corridorMarginM;
  const leaderOnRoute = cfg.leaderOnRoute;
  const mergeYield = cfg.mergeYield;
  const planFrame = cfg.planFrameExtents;
  const laneW = st.laneW;
  const occlusion = cfg.occlusion;
  const pedestrian = TYPE_CODE.pedestrian;
  const cyclist = TYPE_CODE.cyclist;
  const reach = Math.ceil(range / grid.cellM);
  const cx = grid.cellOf(x);
  const cy = grid.cellOf(y);
  for (let ox = -reach; ox <= reach; ox++) {
    for (let oy = -reach; oy <= reach; oy++) {
      const b = grid.bucket(cx + ox, cy + oy, si);
      const end = start[b + 1];
      for (let p = start[b]; p < end; p++) {
        const j = items[p];
        if (j === g || SCEN[j] !== si) continue;
        const dx = X[j] - x;
        const dy = Y[j] - y;
        if (dx * dx + dy * dy > range2) continue;
        if (occlusion && TYPE[j] === pedestrian && occluded(j)) continue;
        // interact() of idmInteraction.ts, term for term.
        const u = dx * c + dy * sn;
        const w = -dx * sn + dy * c;
        const wPath = w - 0.5 * curv * u * u;
        const dh = YAW[j] - st.yaw;
        const cosDh = Math.cos(dh);
        const sinDh = Math.sin(dh);
        const lj = LEN[j];
        const wj = WID[j];
        const ac = Math.abs(cosDh);
        const as = Math.abs(sinDh);
        const hu = (lj / 2) * ac + (wj / 2) * as;
        const hw = (lj / 2) * as + (wj / 2) * ac;
        const jvx = VX[j];
        const jvy = VY[j];
        const vj = jvx * c + jvy * sn;
        const gap = u - Lg / 2 - hu;
        const lateralClear = halfWg + hw + margin;
        if (
          u > 0 &&
          Math.abs(wPath) < lateralClear &&
          (!leaderOnRoute || withinPlanCorridor(plan, X[j], Y[j], lateralClear))
        ) {
          st.accelLeader = Math.min(st.accelLeader, accelBehind(sc, v, gap, v - vj));
          if (gap < st.leaderGap) {
            st.leaderGap = gap;
            st.leaderClosing = v - vj;
          }
          continue;
        }
        if (li >= 0) {
          const side =
            Math.abs(wPath - laneW) < lateralClear ? 1 : Math.abs(wPath + laneW) < lateralClear ? -1 : 0;
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
            const unsafe = back <= 0 || followerBelow(idm, sc, fv, back, v, -cfg.laneChangeSafeDecelMps2);
            if (unsafe) {
              if (side > 0) st.leftSafe = false;
              else st.rightSafe = false;
            }
          }
        }
        if (u < -(Lg / 2 + hu) && cosDh > 0.7) continue;
        // yieldToPredicted() of idmInteraction.ts, term for term.
        const rj = hw + margin;
        const xj = X[j];
        const yj = Y[j];
        const acrossMax = halfWg + rj;
        const cj = planFrame ? Math.cos(YAW[j]) : 0;
        const sj = planFrame ? Math.sin(YAW[j]) : 0;
        let huK = hu;
        for (let k = 0; k < plan.count; k++) {
          const tau = (k + 1) * cfg.yieldStepS;
          const ex = xj + jvx * tau - plan.x[k];
          const ey = yj + jvy * tau - plan.y[k];
          const ck = sc.planCos[k];
          const sk = sc.planSin[k];
          const along = ex * ck + ey * sk;
          const across = Math.abs(-ex * sk + ey * ck);
          if (planFrame) {
            const cr = Math.abs(cj * ck + sj * sk);
            const sr = Math.abs(sj * ck - cj * sk);
            huK = (lj / 2) * cr + (wj / 2) * sr;
            const hwK = (lj / 2) * sr + (wj / 2) * cr;
            if (across > halfWg + hwK + margin) continue;
          } else if (across > acrossMax) continue;
          if (cosDh > 0.7) {
            if (gap <= 0) {
              if (mergeYield && (u > 0 || (u === 0 && j < g)))
                st.accel = Math.min(st.accel, accelBehind(sc, v, MERGE_GAP_M, v - vj));
              break;
            }
            if (along < -(halfLg + huK)) continue;
            st.accel = Math.min(st.accel, accelBehind(sc, v, gap, v - vj));
          } else {
            if (Math.abs(along) > halfLg + huK + 1) continue;
            const d = st.vPlan * tau;
            const distJ = Math.hypot(plan.x[k] - xj, plan.y[k] - yj);
            const tJ = distJ / Math.max(Math.hypot(jvx, jvy), 0.1);
            const clearS = (Lg + 2 * huK) / st.vPlan;
            const vulnerable = TYPE[j] === pedestrian || TYPE[j] === cyclist;
            if (vulnerable || tau + clearS + 1 > tJ)
              st.accel = Math.min(st.accel, accelBehind(sc, v, Math.max(0.01, d - Lg / 2 - huK - 1), v));
          }
          break;
        }
      }
    }
  }
}
