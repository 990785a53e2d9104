// Observations for learned agents (the input of the RTR policies): per agent, one fixed-size
// Float32Array in its own frame — its state and goal, the K nearest agents, and the nearest lane and
// road-edge points — sorted nearest first, zero-padded with a validity flag, ready for a network.
import { type SimEnv, TYPE_CODE } from './env.ts';
import type { PointSet } from './map/mapIndex.ts';
import { gridBucket } from './map/staticGrid.ts';
import { LIGHT } from './scenario.ts';
import { SpatialGrid } from './spatialGrid.ts';

export interface ObservationConfig {
  /** Nearest agents observed. */
  agents: number;
  /** Nearest sampled lane-centreline points observed (2 m apart). */
  lanePoints: number;
  /** Nearest sampled road-edge points observed. */
  edgePoints: number;
  /** Nothing farther than this is observed, metres. */
  radiusM: number;
}

export const DEFAULT_OBSERVATION: ObservationConfig = {
  agents: 16,
  lanePoints: 32,
  edgePoints: 16,
  radiusM: 40,
};

/**
 * Layout of one observation (all positions and velocities in the agent's frame: x forward, y left,
 * metres and m/s; every block nearest first, unused slots all zero):
 * - own, OWN_FEATURES: speed, v_forward, v_left, length, width, is_vehicle, is_pedestrian,
 *   is_cyclist, is_other, goal_dx, goal_dy, has_goal.
 * - agents × AGENT_FEATURES: valid, dx, dy, cos Δyaw, sin Δyaw, vx, vy, length, width, is_vulnerable.
 * - lanePoints × LANE_FEATURES: valid, dx, dy, cos Δheading, sin Δheading, red_light (its lane's
 *   signal is red now).
 * - edgePoints × EDGE_FEATURES: valid, dx, dy.
 */
export const OWN_FEATURES = 12;
export const AGENT_FEATURES = 10;
export const LANE_FEATURES = 6;
export const EDGE_FEATURES = 3;

export function observationSize(cfg: ObservationConfig = DEFAULT_OBSERVATION): number {
  return (
    OWN_FEATURES +
    cfg.agents * AGENT_FEATURES +
    cfg.lanePoints * LANE_FEATURES +
    cfg.edgePoints * EDGE_FEATURES
  );
}

/** Offsets of the blocks within one observation. */
export function observationOffsets(cfg: ObservationConfig = DEFAULT_OBSERVATION) {
  const agents = OWN_FEATURES;
  const lanes = agents + cfg.agents * AGENT_FEATURES;
  const edges = lanes + cfg.lanePoints * LANE_FEATURES;
  return { own: 0, agents, lanes, edges, size: edges + cfg.edgePoints * EDGE_FEATURES };
}

/** Keeps the k smallest keys seen (with their item ids), sorted ascending. */
class NearestK {
  readonly keys: Float64Array;
  readonly ids: Int32Array;
  count = 0;
  constructor(readonly k: number) {
    this.keys = new Float64Array(k);
    this.ids = new Int32Array(k);
  }
  reset(): void {
    this.count = 0;
  }
  offer(key: number, id: number): void {
    if (this.count === this.k && key >= this.keys[this.k - 1]) return;
    // Hashed grid buckets can be visited twice: never keep an item twice.
    for (let i = 0; i < this.count; i++) if (this.ids[i] === id) return;
    let i = this.count < this.k ? this.count++ : this.k - 1;
    while (i > 0 && this.keys[i - 1] > key) {
      this.keys[i] = this.keys[i - 1];
      this.ids[i] = this.ids[i - 1];
      i--;
    }
    this.keys[i] = key;
    this.ids[i] = id;
  }
}

export class Observer {
  readonly cfg: ObservationConfig;
  readonly size: number;
  private readonly grid = new SpatialGrid();
  private readonly nearAgents: NearestK;
  private readonly nearLanes: NearestK;
  private readonly nearEdges: NearestK;

  constructor(cfg: Partial<ObservationConfig> = {}) {
    this.cfg = { ...DEFAULT_OBSERVATION, ...cfg };
    this.size = observationSize(this.cfg);
    this.nearAgents = new NearestK(this.cfg.agents);
    this.nearLanes = new NearestK(this.cfg.lanePoints);
    this.nearEdges = new NearestK(this.cfg.edgePoints);
  }

  /**
   * Observations of `agents` (global agent indices; default: every controlled agent) into `out`
   * (agents.length × size floats, allocated when omitted). Invalid agents get all zeros.
   */
  observe(env: SimEnv, agents?: Int32Array, out?: Float32Array): { agents: Int32Array; obs: Float32Array } {
    const list =
      agents ?? Int32Array.from({ length: env.n }, (_, g) => g).filter((g) => env.controlled[g] === 1);
    const obs = out ?? new Float32Array(list.length * this.size);
    obs.fill(0);
    const r = this.cfg.radiusM;
    this.grid.build(env.n, env.x, env.y, env.live, env.scenarioOf, Math.max(10, r / 2));
    const off = observationOffsets(this.cfg);
    for (let q = 0; q < list.length; q++) {
      const g = list[q];
      if (!env.live[g]) continue;
      const o = q * this.size;
      const si = env.scenarioOf[g];
      const s = env.scenarios[si];
      const x = env.x[g];
      const y = env.y[g];
      const yaw = env.yaw[g];
      const c = Math.cos(yaw);
      const sn = Math.sin(yaw);
      const toLocal = (wx: number, wy: number, at: number) => {
        const dx = wx - x;
        const dy = wy - y;
        obs[at] = dx * c + dy * sn;
        obs[at + 1] = -dx * sn + dy * c;
      };
      // Own state and goal.
      obs[o] = Math.hypot(env.vx[g], env.vy[g]);
      obs[o + 1] = env.vx[g] * c + env.vy[g] * sn;
      obs[o + 2] = -env.vx[g] * sn + env.vy[g] * c;
      obs[o + 3] = env.length[g];
      obs[o + 4] = env.width[g];
      obs[o + 5 + env.typeCode[g]] = 1;
      const row = env.rowOf[g];
      if (Number.isFinite(s.goalX[row])) {
        toLocal(s.goalX[row], s.goalY[row], o + 9);
        obs[o + 11] = 1;
      }
      // Nearest agents.
      const near = this.nearAgents;
      near.reset();
      const grid = this.grid;
      const cx = grid.cellOf(x);
      const cy = grid.cellOf(y);
      const reach = Math.ceil(r / grid.cellM);
      for (let ox = -reach; ox <= reach; ox++) {
        for (let oy = -reach; oy <= reach; oy++) {
          const b = grid.bucket(cx + ox, cy + oy, si);
          for (let p = grid.start[b]; p < grid.start[b + 1]; p++) {
            const j = grid.items[p];
            if (j === g || env.scenarioOf[j] !== si) continue;
            const d2 = (env.x[j] - x) ** 2 + (env.y[j] - y) ** 2;
            if (d2 <= r * r) near.offer(d2, j);
          }
        }
      }
      for (let k = 0; k < near.count; k++) {
        const j = near.ids[k];
        const at = o + off.agents + k * AGENT_FEATURES;
        obs[at] = 1;
        toLocal(env.x[j], env.y[j], at + 1);
        obs[at + 3] = Math.cos(env.yaw[j] - yaw);
        obs[at + 4] = Math.sin(env.yaw[j] - yaw);
        obs[at + 5] = env.vx[j] * c + env.vy[j] * sn;
        obs[at + 6] = -env.vx[j] * sn + env.vy[j] * c;
        obs[at + 7] = env.length[j];
        obs[at + 8] = env.width[j];
        obs[at + 9] =
          env.typeCode[j] === TYPE_CODE.pedestrian || env.typeCode[j] === TYPE_CODE.cyclist ? 1 : 0;
      }
      // Nearest lane and road-edge points.
      const m = env.maps[si];
      const t = env.currentStepOf(si);
      this.nearestPoints(m.lanePoints, x, y, r, this.nearLanes);
      for (let k = 0; k < this.nearLanes.count; k++) {
        const p = this.nearLanes.ids[k];
        const at = o + off.lanes + k * LANE_FEATURES;
        obs[at] = 1;
        toLocal(m.lanePoints.x[p], m.lanePoints.y[p], at + 1);
        obs[at + 3] = Math.cos(m.lanePoints.heading[p] - yaw);
        obs[at + 4] = Math.sin(m.lanePoints.heading[p] - yaw);
        const light = m.laneLight[m.lanePoints.owner[p]];
        obs[at + 5] = light >= 0 && s.map.trafficLights[light].states[t] === LIGHT.red ? 1 : 0;
      }
      this.nearestPoints(m.edgePoints, x, y, r, this.nearEdges);
      for (let k = 0; k < this.nearEdges.count; k++) {
        const p = this.nearEdges.ids[k];
        const at = o + off.edges + k * EDGE_FEATURES;
        obs[at] = 1;
        toLocal(m.edgePoints.x[p], m.edgePoints.y[p], at + 1);
      }
    }
    return { agents: list, obs };
  }

  private nearestPoints(set: PointSet, x: number, y: number, r: number, near: NearestK): void {
    near.reset();
    const g = set.grid;
    const cx = Math.floor(x / g.cellM);
    const cy = Math.floor(y / g.cellM);
    const reach = Math.ceil(r / g.cellM);
    for (let ox = -reach; ox <= reach; ox++) {
      for (let oy = -reach; oy <= reach; oy++) {
        const b = gridBucket(g, cx + ox, cy + oy);
        for (let p = g.start[b]; p < g.start[b + 1]; p++) {
          const i = g.items[p];
          const d2 = (set.x[i] - x) ** 2 + (set.y[i] - y) ** 2;
          if (d2 <= r * r) near.offer(d2, i);
        }
      }
    }
  }
}
