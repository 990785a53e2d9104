// Per (agent, step) features of a scenario's trajectories, computed the same way for the log and for
// a rollout (the Sim Agents features): speed, acceleration, yaw rate and its change by finite
// differences; signed distance to the nearest object; time to collision; distance to the road edge.
import { boxRoadDistance } from '../map/drivableField.ts';
import type { MapIndex } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';
import { SpatialGrid } from '../spatialGrid.ts';
import { boxDistance } from './boxDistance.ts';
import { wrapAngleLow } from '../../core/geometry/pose.ts';

/** Agent-major arrays over (agent, step) at a * numSteps + t, like Scenario.agents. */
export interface Trajectories {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  yaw: ArrayLike<number>;
  valid: ArrayLike<number>;
}

export interface FeatureConfig {
  /** Nearest-object distances are searched (and capped) within this radius, metres. */
  nearestRadiusM: number;
  /** Time to collision is capped here, seconds (also its value with nothing ahead). */
  ttcMaxS: number;
  /** Objects farther ahead than this are not considered for time to collision, metres. */
  ttcRangeM: number;
  /** Grid cell size (raised to the nearest-object radius and the largest box diagonal), metres. */
  gridCellM: number;
}

export const DEFAULT_FEATURES: FeatureConfig = {
  nearestRadiusM: 20,
  ttcMaxS: 5,
  ttcRangeM: 60,
  gridCellM: 15,
};

/** NaN where a feature is undefined (agent or the step before it invalid). */
export interface TrajectoryFeatures {
  speed: Float32Array;
  accel: Float32Array;
  yawRate: Float32Array;
  yawAccel: Float32Array;
  nearest: Float32Array;
  ttc: Float32Array;
  road: Float32Array;
  collided: Uint8Array;
  offroad: Uint8Array;
}

/**
 * Features of the `evaluated` agents over steps [from, to) of scenario `s`, for trajectories `tr`
 * (other agents take part as obstacles). Arrays are sized numAgents × numSteps.
 */
export function trajectoryFeatures(
  s: Scenario,
  tr: Trajectories,
  evaluated: Uint8Array,
  from: number,
  to: number,
  map: MapIndex,
  cfg: FeatureConfig = DEFAULT_FEATURES,
  grid: SpatialGrid = new SpatialGrid(),
): TrajectoryFeatures {
  const n = s.agents.ids.length;
  const T = s.numSteps;
  const dt = s.dtS;
  const len = n * T;
  const f: TrajectoryFeatures = {
    speed: new Float32Array(len).fill(NaN),
    accel: new Float32Array(len).fill(NaN),
    yawRate: new Float32Array(len).fill(NaN),
    yawAccel: new Float32Array(len).fill(NaN),
    nearest: new Float32Array(len).fill(NaN),
    ttc: new Float32Array(len).fill(NaN),
    road: new Float32Array(len).fill(NaN),
    collided: new Uint8Array(len),
    offroad: new Uint8Array(len),
  };
  const L = s.agents.length;
  const W = s.agents.width;
  // Finite-difference kinematics of every agent (obstacles need velocities for TTC).
  const vxAll = new Float32Array(len).fill(NaN);
  const vyAll = new Float32Array(len).fill(NaN);
  for (let a = 0; a < n; a++) {
    for (let t = Math.max(1, from - 2); t < to; t++) {
      const k = a * T + t;
      if (!tr.valid[k] || !tr.valid[k - 1]) continue;
      vxAll[k] = (tr.x[k] - tr.x[k - 1]) / dt;
      vyAll[k] = (tr.y[k] - tr.y[k - 1]) / dt;
      if (!evaluated[a]) continue;
      f.speed[k] = Math.hypot(vxAll[k], vyAll[k]);
      f.yawRate[k] = wrapAngleLow(tr.yaw[k] - tr.yaw[k - 1]) / dt;
      f.accel[k] = (f.speed[k] - f.speed[k - 1]) / dt; // NaN propagates when the step before is unknown
      f.yawAccel[k] = (f.yawRate[k] - f.yawRate[k - 1]) / dt;
    }
  }
  for (let a = 0; a < n; a++) {
    if (!evaluated[a]) continue;
    for (let t = 0; t < from; t++) {
      const k = a * T + t;
      f.speed[k] = f.accel[k] = f.yawRate[k] = f.yawAccel[k] = NaN;
    }
  }
  // Interactions, step by step through a grid over the agents valid at that step.
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  const valid = new Uint8Array(n);
  const group = new Uint8Array(n);
  // Cells at least as large as the nearest-object radius and the largest box, so 3 × 3 cells hold
  // every object within the radius and every overlapping box.
  let maxW = 0;
  let maxDiag = 0;
  for (let a = 0; a < n; a++) {
    maxW = Math.max(maxW, W[a]);
    maxDiag = Math.max(maxDiag, Math.hypot(L[a], W[a]));
  }
  const cell = Math.max(cfg.gridCellM, cfg.nearestRadiusM, maxDiag);
  const strip = new Int32Array(Math.ceil((3 * (cfg.ttcRangeM + cell)) / (cell / 2)) + 6);
  for (let t = from; t < to; t++) {
    for (let a = 0; a < n; a++) {
      const k = a * T + t;
      xs[a] = tr.x[k];
      ys[a] = tr.y[k];
      // Only agents present at the current step take part (late arrivals are not simulated).
      valid[a] = tr.valid[k] && s.agents.valid[a * T + s.currentStep] ? 1 : 0;
    }
    grid.build(n, xs, ys, valid, group, cell);
    const { start, items } = grid;
    for (let a = 0; a < n; a++) {
      const k = a * T + t;
      if (!evaluated[a] || !valid[a]) continue;
      const x = xs[a];
      const y = ys[a];
      const yaw = tr.yaw[k];
      const c = Math.cos(yaw);
      const sn = Math.sin(yaw);
      const cx = grid.cellOf(x);
      const cy = grid.cellOf(y);
      const ra = Math.hypot(L[a], W[a]) / 2;
      let nearest = cfg.nearestRadiusM;
      // Nearest object (and overlap): the 3 × 3 cells around (cells ≥ the search radius). A first
      // pass bounds the answer from above (boxes contain their width circles), so the exact
      // box distance is computed only for the few objects that can beat it.
      for (let pass = 0; pass < 2; pass++) {
        for (let ox = -1; ox <= 1; ox++) {
          for (let oy = -1; oy <= 1; oy++) {
            const b = grid.bucket(cx + ox, cy + oy, 0);
            for (let p = start[b]; p < start[b + 1]; p++) {
              const j = items[p];
              if (j === a) continue;
              const centre = Math.hypot(xs[j] - x, ys[j] - y);
              if (pass === 0) {
                const upper = centre - W[a] / 2 - W[j] / 2;
                if (upper < nearest) nearest = Math.max(upper, -ra);
                continue;
              }
              if (centre - ra - Math.hypot(L[j], W[j]) / 2 >= nearest) continue;
              const d = boxDistance(x, y, yaw, L[a], W[a], xs[j], ys[j], tr.yaw[j * T + t], L[j], W[j]);
              if (d < nearest) nearest = d;
            }
          }
        }
      }
      // Time to collision with the closest object ahead whose box overlaps my lane of travel: only
      // the cells of the strip ahead are searched (sampled every half cell, centre and both sides).
      let nb = 0;
      const half = W[a] / 2 + maxW / 2;
      for (let d = 0; d <= cfg.ttcRangeM + cell / 2; d += cell / 2) {
        for (let side = -1; side <= 1; side++) {
          const px = x + d * c - side * half * sn;
          const py = y + d * sn + side * half * c;
          const b = grid.bucket(grid.cellOf(px), grid.cellOf(py), 0);
          let seen = false;
          for (let q = 0; q < nb; q++) if (strip[q] === b) seen = true;
          if (!seen) strip[nb++] = b;
        }
      }
      let aheadU = Infinity;
      let ttc = cfg.ttcMaxS;
      const speedA = Number.isNaN(vxAll[k]) ? 0 : vxAll[k] * c + vyAll[k] * sn;
      for (let q = 0; q < nb; q++) {
        const b = strip[q];
        for (let p = start[b]; p < start[b + 1]; p++) {
          const j = items[p];
          if (j === a) continue;
          const dx = xs[j] - x;
          const dy = ys[j] - y;
          const u = dx * c + dy * sn;
          const v = -dx * sn + dy * c;
          if (u <= 0 || u >= aheadU || u > cfg.ttcRangeM || Math.abs(v) >= (W[a] + W[j]) / 2) continue;
          aheadU = u;
          const kj = j * T + t;
          const gap = u - (L[a] + L[j]) / 2;
          const speedJ = Number.isNaN(vxAll[kj]) ? 0 : vxAll[kj] * c + vyAll[kj] * sn;
          const closing = speedA - speedJ;
          ttc = gap <= 0 ? 0 : closing > 0 ? Math.min(cfg.ttcMaxS, gap / closing) : cfg.ttcMaxS;
        }
      }
      f.nearest[k] = nearest;
      f.collided[k] = nearest < 0 ? 1 : 0;
      f.ttc[k] = ttc;
      const road = boxRoadDistance(map.field, x, y, yaw, L[a], W[a]);
      f.road[k] = road;
      f.offroad[k] = road > 0 ? 1 : 0;
    }
  }
  return f;
}
