// Observations for learned agents (the input of the RTR policies): per agent, one fixed-size
// Float32Array in its own frame — its state and goal, the K nearest agents, and the nearest lane and
// road-edge points — sorted nearest first, zero-padded with a validity flag, ready for a network.
import { type SimEnv, TYPE_CODE } from './env.ts';
import { CROSSING_FEATURES, crossingFeatures } from './crossingFeatures.ts';
import { EXPERT_FEATURES, ExpertProbe } from './expertFeatures.ts';
import type { PointSet } from './map/mapIndex.ts';
import { groupSalt } from './cellHash.ts';
import { GridWindow, NearestK, nearestInStaticGrid, WINDOW_DONE } from './nearestK.ts';
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
  /**
   * Layout version: 1 (absent in older models' metadata) the blocks below; 2 adds the expert block
   * (expertFeatures.ts: route ahead, lane offset, leader, stop line, history, parked flag) at the end.
   */
  version?: 1 | 2;
  /**
   * The expert block's IDM probe takes as leader only an agent on its planned route too
   * (IdmAgentConfig.leaderOnRoute), as the log expert with that option labels. Absent: false, as in every
   * model trained before it.
   */
  leaderOnRoute?: boolean;
  /**
   * The expert block's IDM probe keeps the lane the agent drives in: it never changes lanes on the agent's
   * behalf. A probe that may (IDM's MOBIL step, desiring the lane's speed limit) moves to the next lane when
   * a slow leader holds it back, and from then on describes that lane — a lateral offset of a lane width, a
   * pursuit curvature towards it and no leader — while the agent stays behind the leader. Absent: false, as
   * in every model trained before it.
   */
  probeHoldsLane?: boolean;
  /**
   * The probe yields at side-by-side merges (IdmAgentConfig.mergeYield): the one behind brakes, where the
   * probe otherwise left both to touch, so IDM's acceleration — the base of residual acceleration — did
   * not brake for a car merging beside the agent. Absent: false, as in every model trained before it.
   */
  probeMergeYield?: boolean;
  /**
   * The probe measures predicted conflicts in the plan point's frame (IdmAgentConfig.planFrameExtents), as
   * the log expert with that option labels. Absent: false, as in every model trained before it.
   */
  probePlanFrameExtents?: boolean;
  /**
   * The probe yields to conflicts predicted within this horizon (IdmAgentConfig.yieldHorizonS), as the log
   * expert with that setting labels. Absent: IDM's 3 s, as in every model trained before it.
   */
  probeYieldHorizonS?: number;
  /**
   * The expert block carries no history: last acceleration and yaw rate 0, the speeds 0.5 s and 1 s ago the
   * current speed. A policy that sees its own recent standstill learns to stay standing (the copycat
   * problem of imitation from histories; Wen et al., NeurIPS 2020). Absent: false, as in every model trained
   * before it.
   */
  omitHistory?: boolean;
  /**
   * Version 2 only: slots of crossing conflicts after the expert block (crossingFeatures.ts: the moving
   * agents among the observed ones whose straight path crosses the route ahead within 8 s, earliest first),
   * so that a wait for cross traffic has a visible cause. Absent: 0, as in every model trained before it.
   */
  crossings?: number;
}

export const DEFAULT_OBSERVATION: ObservationConfig = {
  agents: 16,
  lanePoints: 32,
  edgePoints: 16,
  radiusM: 40,
  version: 2,
};

/** The layout version of a config (metadata written before versions existed is version 1). */
export function observationVersion(cfg: ObservationConfig): 1 | 2 {
  return cfg.version ?? 1;
}

/**
 * Layout of one observation (all positions and velocities in the agent's frame: x forward, y left,
 * metres and m/s; every block nearest first, unused slots all zero):
 * - own, OWN_FEATURES: speed, v_forward, v_left, length, width, is_vehicle, is_pedestrian,
 *   is_cyclist, is_other, goal_dx, goal_dy, has_goal.
 * - agents × AGENT_FEATURES: valid, dx, dy, cos Δyaw, sin Δyaw, vx, vy, length, width, is_vulnerable.
 * - lanePoints × LANE_FEATURES: valid, dx, dy, cos Δheading, sin Δheading, red_light (its lane's
 *   signal is red now).
 * - edgePoints × EDGE_FEATURES: valid, dx, dy.
 * - version 2 only, EXPERT_FEATURES: see expertFeatures.ts.
 * - version 2 with `crossings`, crossings × CROSSING_FEATURES: see crossingFeatures.ts.
 */
export const OWN_FEATURES = 12;
/** Where the own block's type one-hot starts (TYPE_CODE order: vehicle, pedestrian, cyclist, other). */
export const OWN_TYPE_FEATURE = 5;
export const AGENT_FEATURES = 10;
export const LANE_FEATURES = 6;
export const EDGE_FEATURES = 3;

/** The TYPE_CODE an observation row says its agent has (-1 for a row of zeros: an invalid agent). */
export function observedTypeCode(obs: ArrayLike<number>, row: number, size: number): number {
  const o = row * size + OWN_TYPE_FEATURE;
  for (let t = 0; t < 4; t++) if (obs[o + t] === 1) return t;
  return -1;
}

export function observationSize(cfg: ObservationConfig = DEFAULT_OBSERVATION): number {
  return observationOffsets(cfg).size;
}

/** Offsets of the blocks within one observation. */
export function observationOffsets(cfg: ObservationConfig = DEFAULT_OBSERVATION) {
  const agents = OWN_FEATURES;
  const lanes = agents + cfg.agents * AGENT_FEATURES;
  const edges = lanes + cfg.lanePoints * LANE_FEATURES;
  const expert = edges + cfg.edgePoints * EDGE_FEATURES;
  const v2 = observationVersion(cfg) === 2;
  const crossings = expert + (v2 ? EXPERT_FEATURES : 0);
  const size = crossings + (v2 ? crossingSlots(cfg) * CROSSING_FEATURES : 0);
  return { own: 0, agents, lanes, edges, expert, crossings, size };
}

/** Crossing-conflict slots of a config (0 where absent). */
export function crossingSlots(cfg: ObservationConfig): number {
  return cfg.crossings ?? 0;
}

export class Observer {
  readonly cfg: ObservationConfig;
  readonly size: number;
  private readonly grid = new SpatialGrid();
  private readonly nearAgents: NearestK;
  private readonly nearLanes: NearestK;
  private readonly nearEdges: NearestK;
  private readonly window = new GridWindow();
  /** Version 2: the IDM probe behind the expert block. */
  private readonly probe: ExpertProbe | null;

  /** `cfg` is complete as given where it has a version; without one it is a version-1 layout. */
  constructor(cfg: Partial<ObservationConfig> = {}) {
    const version = Object.keys(cfg).length === 0 ? DEFAULT_OBSERVATION.version : (cfg.version ?? 1);
    this.cfg = { ...DEFAULT_OBSERVATION, ...cfg, version };
    this.probe =
      this.cfg.version === 2
        ? new ExpertProbe(
            {
              leaderOnRoute: this.cfg.leaderOnRoute === true,
              mergeYield: this.cfg.probeMergeYield === true,
              planFrameExtents: this.cfg.probePlanFrameExtents === true,
              ...(this.cfg.probeYieldHorizonS !== undefined
                ? { yieldHorizonS: this.cfg.probeYieldHorizonS }
                : {}),
              // An infinite gain: no lane ever offers enough to change to it.
              ...(this.cfg.probeHoldsLane === true ? { laneChangeGainMps2: Infinity } : {}),
            },
            this.cfg.omitHistory === true,
          )
        : null;
    this.size = observationSize(this.cfg);
    this.nearAgents = new NearestK(this.cfg.agents);
    this.nearLanes = new NearestK(this.cfg.lanePoints);
    this.nearEdges = new NearestK(this.cfg.edgePoints);
  }

  /**
   * Observations of `agents` (global agent indices; default: every controlled agent) into `out`
   * (agents.length × size floats, allocated when omitted). Invalid agents get all zeros. `rowsDone`
   * is told every `every` rows how many rows are complete (a consumer may start on them meanwhile).
   */
  observe<F extends Float32Array<ArrayBufferLike> = Float32Array>(
    env: SimEnv,
    agents?: Int32Array,
    out?: F,
    rowsDone?: { every: number; ready: (rows: number) => void },
  ): { agents: Int32Array; obs: F } {
    const list =
      agents ?? Int32Array.from({ length: env.n }, (_, g) => g).filter((g) => env.controlled[g] === 1);
    const obs = out ?? (new Float32Array(list.length * this.size) as F);
    obs.fill(0);
    const r = this.cfg.radiusM;
    this.grid.build(env.n, env.x, env.y, env.live, env.scenarioOf, Math.max(10, r / 2));
    const off = observationOffsets(this.cfg);
    this.probe?.sync(env);
    const every = rowsDone ? rowsDone.every : 0;
    for (let q = 0; q < list.length; q++) {
      if (every > 0 && q > 0 && q % every === 0) rowsDone!.ready(q);
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
      // Own state and goal.
      obs[o] = Math.hypot(env.vx[g], env.vy[g]);
      obs[o + 1] = env.vx[g] * c + env.vy[g] * sn;
      obs[o + 2] = -env.vx[g] * sn + env.vy[g] * c;
      obs[o + 3] = env.length[g];
      obs[o + 4] = env.width[g];
      obs[o + OWN_TYPE_FEATURE + env.typeCode[g]] = 1;
      const row = env.rowOf[g];
      if (Number.isFinite(s.goalX[row])) {
        toLocal(obs, o + 9, s.goalX[row] - x, s.goalY[row] - y, c, sn);
        obs[o + 11] = 1;
      }
      // Nearest agents.
      const near = this.nearAgents;
      near.reset();
      const grid = this.grid;
      const win = this.window;
      const r2 = r * r;
      win.begin(
        x,
        y,
        grid.cellOf(x),
        grid.cellOf(y),
        grid.cellM,
        Math.ceil(r / grid.cellM),
        grid.mask,
        groupSalt(si),
        grid.items.length,
      );
      for (let k = 0; k < win.cells; k++) {
        const b = win.bucketAt(k, near.bound(r2));
        if (b === WINDOW_DONE) break;
        if (b < 0) continue;
        for (let p = grid.start[b]; p < grid.start[b + 1]; p++) {
          const j = grid.items[p];
          if (j === g || env.scenarioOf[j] !== si) continue;
          const dx = env.x[j] - x;
          const dy = env.y[j] - y;
          const d2 = dx * dx + dy * dy;
          if (d2 <= r2) near.offer(d2, win.tieBase + p, j);
        }
      }
      for (let k = 0; k < near.count; k++) {
        const j = near.ids[k];
        const at = o + off.agents + k * AGENT_FEATURES;
        obs[at] = 1;
        toLocal(obs, at + 1, env.x[j] - x, env.y[j] - y, c, sn);
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
        toLocal(obs, at + 1, m.lanePoints.x[p] - x, m.lanePoints.y[p] - y, c, sn);
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
        toLocal(obs, at + 1, m.edgePoints.x[p] - x, m.edgePoints.y[p] - y, c, sn);
      }
      if (this.probe) {
        this.probe.features(env, g, obs, o + off.expert);
        const slots = crossingSlots(this.cfg);
        if (slots > 0)
          crossingFeatures(env, g, this.probe.route, near.ids, near.count, slots, obs, o + off.crossings);
      }
    }
    return { agents: list, obs };
  }

  private nearestPoints(set: PointSet, x: number, y: number, r: number, near: NearestK): void {
    nearestInStaticGrid(this.window, near, set.grid, set.x, set.y, x, y, r);
  }
}

/** Writes the offset (dx, dy) in the frame of heading (cos c, sin sn) at out[at], out[at + 1]. */
function toLocal(
  out: Float32Array<ArrayBufferLike>,
  at: number,
  dx: number,
  dy: number,
  c: number,
  sn: number,
): void {
  out[at] = dx * c + dy * sn;
  out[at + 1] = -dx * sn + dy * c;
}
