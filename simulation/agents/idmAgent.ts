// IDM + lane-following traffic agent (the Waymax/nuPlan-style rule-based baseline): follows its lane
// centreline by pure pursuit, keeps distance with the Intelligent Driver Model to whatever is in its
// path (agents, red lights, crossing traffic it should yield to) and changes lanes when it gains.
import { wrapAngle } from '../../core/geometry/pose.ts';
import { ACTION_STRIDE, DYNAMICS, type SimEnv, TYPE_CODE } from '../env.ts';
import {
  type LaneHit,
  lanePointAt,
  type MapIndex,
  nearestLane,
  projectNear,
  projectOnSegment,
} from '../map/mapIndex.ts';
import { LIGHT } from '../scenario.ts';
import { SpatialGrid } from '../spatialGrid.ts';
import { DEFAULT_IDM, idmAcceleration, type IdmConfig } from './idm.ts';
import { type InteractionContext, scanReference, type YieldPlan } from './idmInteraction.ts';
import { beginScan, freeRoadAccel, scanNeighbours, scanScratch } from './idmScan.ts';
import { brakingDistance, idmStopAcceleration } from './idmStop.ts';
import type { Policy } from './policy.ts';
import { lineOfSightBlocked } from './lineOfSight.ts';

export interface IdmAgentConfig {
  /** The car-following law; its desired speed is replaced per agent (lane speed limit / own speed). */
  idm: IdmConfig;
  /** Desired speed where the lane has no speed limit, m/s. */
  defaultSpeedMps: number;
  /** Desired-speed cap of cyclists, m/s. */
  cyclistSpeedMps: number;
  /** Pure-pursuit lookahead: clamp(min + gain·v, min, max) metres. */
  lookaheadMinM: number;
  lookaheadGainS: number;
  lookaheadMaxM: number;
  /** Speed on curves is limited so that v²·κ stays below this, m/s². */
  maxLateralAccelMps2: number;
  /** Farther than this from its lane, an agent looks for a new lane, metres. */
  laneLostM: number;
  /** Lateral clearance added to the half widths when deciding what is in the path, metres. */
  corridorMarginM: number;
  /**
   * A leader must also lie within that clearance of the planned route (the lanes ahead), not only of the
   * parabola of the current curvature, which swings over parked cars and the next lane in curves and lane
   * changes. Off for IDM (its published figures); an option of the log expert.
   */
  leaderOnRoute: boolean;
  /**
   * Of two vehicles side by side whose paths merge (going the same way, the other predicted in my path
   * within the yield horizon), the one behind — or, level, the one with the higher index — yields: it
   * brakes as behind a leader 0.5 m ahead. Without it neither does ("braking hard would not help") and
   * they touch in the merge. Off for IDM (its published figures); an option of the log expert and of the
   * observation's probe.
   */
  mergeYield: boolean;
  /**
   * A predicted conflict is measured with the other agent's half extents seen in the frame of the plan point
   * it is checked against, not in my current heading's. In a curve the two differ: a car parked along the
   * kerb ahead, turned 0.5 rad from my heading now, is 2.2 m wide across it but 1 m across the road where my
   * path passes it, so it held a car that the log drove past for the rest of the rollout (selection towns:
   * the log expert's moving vehicles 0.82 → 0.83 of the log's progress, IDM's 0.76 → 0.78). Off for IDM
   * (its published figures); an option of the log expert and of the observation's probe.
   */
  planFrameExtents: boolean;
  /** Obstacles and conflicts are searched within clamp(minRange + rangeGain·v, …, maxRange) metres. */
  minRangeM: number;
  rangeGainS: number;
  maxRangeM: number;
  /** Yielding: predicted conflicts within this horizon (s), checked every yieldStepS. */
  yieldHorizonS: number;
  yieldStepS: number;
  /** Lane change (MOBIL-like): required acceleration gain, m/s², and the follower's safe braking. */
  laneChangeGainMps2: number;
  laneChangeSafeDecelMps2: number;
  laneChangeCooldownS: number;
  /** An agent stationary through its history and off every lane is parked and stays so. */
  parkedSpeedMps: number;
  /** Pedestrians hidden behind a vehicle (line of sight from my front blocked) are not seen. */
  occlusion: boolean;
  /** Desired speed = max(limitFactor × speed limit, own speed at the start). */
  limitFactor: number;
  gridCellM: number;
}

export const DEFAULT_IDM_AGENT: IdmAgentConfig = {
  idm: DEFAULT_IDM,
  defaultSpeedMps: 13.9,
  cyclistSpeedMps: 7,
  lookaheadMinM: 4,
  lookaheadGainS: 0.8,
  lookaheadMaxM: 20,
  maxLateralAccelMps2: 3,
  laneLostM: 4,
  corridorMarginM: 0.3,
  leaderOnRoute: false,
  mergeYield: false,
  planFrameExtents: false,
  minRangeM: 20,
  rangeGainS: 4,
  maxRangeM: 60,
  yieldHorizonS: 3,
  yieldStepS: 0.5,
  laneChangeGainMps2: 0.5,
  laneChangeSafeDecelMps2: 3,
  laneChangeCooldownS: 4,
  parkedSpeedMps: 0.3,
  limitFactor: 0.8,
  occlusion: true,
  gridCellM: 20,
};

/** State passed between the steps of IdmPolicy.control for one agent. */
export interface ControlScratch {
  /** My pose and speed (≥ 0) at the start of the step. */
  x: number;
  y: number;
  yaw: number;
  v: number;
  /** Arc length on my lane (0 without one), pure-pursuit curvature, curve-limited desired speed. */
  s: number;
  curvature: number;
  v0: number;
  /** Speed of the planned path (at least walking pace) and the range searched for others, metres. */
  vPlan: number;
  range: number;
  /** Width of my lane (3.5 m without one): where the neighbour lanes are. */
  laneW: number;
  /** Acceleration so far, the free-road one, and the one behind my leader. */
  accel: number;
  free: number;
  accelLeader: number;
  /** Nearest agent ahead in each neighbour lane and whether a follower there would brake hard. */
  leftGap: number;
  leftClosing: number;
  rightGap: number;
  rightClosing: number;
  leftSafe: boolean;
  rightSafe: boolean;
  /** The nearest agent in my path: bumper gap (Infinity: none) and closing speed, m and m/s. */
  leaderGap: number;
  leaderClosing: number;
  /** Gap to the stop line of a red (or stoppable yellow) light ahead (Infinity: none), metres. */
  stopGap: number;
  /** Signed offset from my lane's centreline (left positive) and heading error to it, m and rad. */
  lateral: number;
  headingError: number;
}

export class IdmPolicy implements Policy {
  readonly name = 'idm';
  readonly cfg: IdmAgentConfig;
  /** Map lane index each agent follows (−1: none), its current segment and the chosen next lane. */
  lane = new Int32Array(0);
  private seg = new Int32Array(0);
  private next = new Int32Array(0);
  /** Desired speed of each agent (m/s), set by reset(); the stochastic form rescales it. */
  desired = new Float64Array(0);
  /** Per-agent IDM parameters (the stochastic form samples them), or null: cfg.idm for every agent. */
  agentIdm: ((g: number, idm: IdmConfig) => void) | null = null;
  /** 1 for a vehicle stationary through its history and off every lane: parked, it stays so. */
  parked = new Uint8Array(0);
  private cooldown = new Float64Array(0);
  private cvx = new Float64Array(0);
  private cvy = new Float64Array(0);
  private readonly grid = new SpatialGrid();
  private readonly hit: LaneHit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };
  private readonly pt = { x: 0, y: 0, heading: 0 };
  /** My planned positions and headings at the yield-check times (scratch, per agent in turn). */
  private readonly plan: YieldPlan = {
    x: new Float64Array(64),
    y: new Float64Array(64),
    yaw: new Float64Array(64),
    count: 0,
  };
  /** Scratch copy of the IDM parameters (the desired speed changes per agent). */
  private readonly idm: IdmConfig;
  /** What the steps of control() hand on to each other, for the agent being controlled. */
  private readonly st: ControlScratch = {
    x: 0,
    y: 0,
    yaw: 0,
    v: 0,
    s: 0,
    curvature: 0,
    v0: 0,
    vPlan: 0,
    range: 0,
    laneW: 0,
    accel: 0,
    free: 0,
    accelLeader: 0,
    leftGap: Infinity,
    leftClosing: 0,
    rightGap: Infinity,
    rightClosing: 0,
    leftSafe: true,
    rightSafe: true,
    leaderGap: Infinity,
    leaderClosing: 0,
    stopGap: Infinity,
    lateral: 0,
    headingError: 0,
  };
  /** What the interaction steps (idmInteraction.ts) read and update. */
  private readonly ctx: InteractionContext;
  /**
   * Scan the neighbours with the batched loop (idmScan.ts, per-agent terms hoisted out of the per-neighbour
   * work); false: the per-neighbour reference (idmInteraction.ts). Both give the same trajectories bit for bit.
   */
  batched = true;
  private readonly scan = scanScratch();
  /** The agent being scanned, for the occlusion test the batched scan calls back (bound once, no closure per agent). */
  private scanEnv: SimEnv | null = null;
  private scanG = 0;
  private readonly occludedForScan = (j: number): boolean => {
    const env = this.scanEnv!;
    return lineOfSightBlocked(env, this.grid, this.scanG, j);
  };

  constructor(cfg: Partial<IdmAgentConfig> = {}) {
    this.cfg = { ...DEFAULT_IDM_AGENT, ...cfg };
    this.idm = { ...this.cfg.idm };
    this.ctx = { cfg: this.cfg, idm: this.idm, st: this.st, plan: this.plan };
  }

  reset(env: SimEnv): void {
    const n = env.n;
    this.lane = new Int32Array(n).fill(-1);
    this.seg = new Int32Array(n);
    this.next = new Int32Array(n).fill(-1);
    this.desired = new Float64Array(n);
    this.cooldown = new Float64Array(n);
    this.parked = new Uint8Array(n);
    this.cvx = Float64Array.from(env.vx);
    this.cvy = Float64Array.from(env.vy);
    const cfg = this.cfg;
    for (let g = 0; g < n; g++) {
      if (!env.controlled[g]) continue;
      const type = env.typeCode[g];
      // Pedestrians and unknown objects keep their velocity; vehicles and cyclists drive.
      if (type === TYPE_CODE.pedestrian || type === TYPE_CODE.other) {
        env.dynamics[g] = DYNAMICS.delta;
        continue;
      }
      env.dynamics[g] = DYNAMICS.bicycle;
      const si = env.scenarioOf[g];
      const m = env.maps[si];
      const onLane = nearestLane(m, env.x[g], env.y[g], env.yaw[g], this.hit, cfg.laneLostM);
      if (onLane) {
        this.lane[g] = this.hit.lane;
        this.seg[g] = this.hit.segment;
        this.next[g] = this.chooseNext(env, g, this.hit.lane);
      }
      const limit =
        onLane && m.laneSpeed[this.hit.lane] > 0 ? m.laneSpeed[this.hit.lane] : cfg.defaultSpeedMps;
      // Drivers keep to about the limit, and never want to be slower than they are now.
      let v0 = Math.max(cfg.limitFactor * limit, env.speed[g]);
      if (type === TYPE_CODE.cyclist) v0 = Math.min(v0, Math.max(cfg.cyclistSpeedMps, env.speed[g]));
      const offLane = !onLane || Math.abs(this.hit.lateral) > m.laneWidth[this.hit.lane] / 2 + 0.5;
      if (offLane && this.stationaryHistory(env, g)) {
        v0 = 0;
        this.parked[g] = type === TYPE_CODE.vehicle ? 1 : 0;
      }
      this.desired[g] = v0;
    }
  }

  /** True when the agent never moved faster than parkedSpeedMps over its history. */
  private stationaryHistory(env: SimEnv, g: number): boolean {
    const si = env.scenarioOf[g];
    const s = env.scenarios[si];
    const a = s.agents;
    const base = env.rowOf[g] * s.numSteps;
    for (let t = 0; t <= s.currentStep; t++) {
      const k = base + t;
      if (a.valid[k] && Math.hypot(a.vx[k], a.vy[k]) > this.cfg.parkedSpeedMps) return false;
    }
    return true;
  }

  /** The successor to take after lane li: along the agent's route, else towards its goal, else straightest. */
  private chooseNext(env: SimEnv, g: number, li: number): number {
    const si = env.scenarioOf[g];
    const m = env.maps[si];
    const succ = m.successors[li];
    if (succ.length === 0) return -1;
    if (succ.length === 1) return succ[0];
    const s = env.scenarios[si];
    const r = env.rowOf[g];
    const route = s.routes[r];
    if (route.length > 0) {
      for (const c of succ) if (route.includes(m.laneIds[c])) return c;
    }
    const gx = s.goalX[r];
    const gy = s.goalY[r];
    let best = succ[0];
    let bestCost = Infinity;
    const endHeading = this.headingAtEnd(m, li);
    for (const c of succ) {
      const xy = m.laneXy[c];
      const n = xy.length >> 1;
      const cost = Number.isFinite(gx)
        ? Math.hypot(xy[2 * n - 2] - gx, xy[2 * n - 1] - gy)
        : Math.abs(wrapAngle(this.headingAtEnd(m, c) - endHeading));
      if (cost < bestCost) {
        bestCost = cost;
        best = c;
      }
    }
    return best;
  }

  private headingAtEnd(m: MapIndex, li: number): number {
    lanePointAt(m, li, m.laneLength[li], this.pt);
    return this.pt.heading;
  }

  /**
   * Point at arc length `ahead` beyond s along lane li and then its chosen successors; past the end
   * of a dead-end lane (a cropped map) the path continues straight.
   */
  private pathPoint(env: SimEnv, g: number, m: MapIndex, li: number, s: number, ahead: number): void {
    let lane = li;
    let at = s + ahead;
    let next = this.next[g];
    for (let hop = 0; hop < 3 && at > m.laneLength[lane] && next >= 0; hop++) {
      at -= m.laneLength[lane];
      lane = next;
      next = hop === 0 ? this.chooseNext(env, g, lane) : -1;
    }
    const beyond = at - m.laneLength[lane];
    lanePointAt(m, lane, at, this.pt);
    if (beyond > 0) {
      this.pt.x += beyond * Math.cos(this.pt.heading);
      this.pt.y += beyond * Math.sin(this.pt.heading);
    }
  }

  act(env: SimEnv): void {
    const cfg = this.cfg;
    const dt = env.dtS;
    this.grid.build(env.n, env.x, env.y, env.live, env.scenarioOf, cfg.gridCellM);
    for (let g = 0; g < env.n; g++) {
      const o = g * ACTION_STRIDE;
      if (env.dynamics[g] === DYNAMICS.delta) {
        env.actions[o] = this.cvx[g] * dt;
        env.actions[o + 1] = this.cvy[g] * dt;
        env.actions[o + 2] = 0;
        continue;
      }
      if (env.dynamics[g] !== DYNAMICS.bicycle || !env.live[g]) continue;
      this.decide(env, g);
      env.actions[o] = this.st.accel;
      env.actions[o + 1] = this.st.curvature;
      this.cooldown[g] -= dt;
    }
  }

  /**
   * What IDM would do for agent g now, without acting: the control scratch after the numbered steps
   * (accel, curvature, leader, stop line, lane offset). Call `prepare` once per step first; it advances
   * g's lane state as act() does (the expert features of learned agents and DAgger's expert use it).
   */
  decide(env: SimEnv, g: number): Readonly<ControlScratch> {
    this.control(env, g);
    return this.st;
  }

  /** Per-step set-up of decide(): the agent grid, and the lane-change cooldowns run down by `elapsedS`. */
  prepare(env: SimEnv, elapsedS = env.dtS): void {
    this.grid.build(env.n, env.x, env.y, env.live, env.scenarioOf, this.cfg.gridCellM);
    for (let g = 0; g < env.n; g++) this.cooldown[g] -= elapsedS;
  }

  /**
   * Point `ahead` metres along agent g's path (its lane, then its chosen successors) from where the
   * last decide(env, g) found it; false when g has no lane.
   */
  routePoint(env: SimEnv, g: number, ahead: number, out: { x: number; y: number; heading: number }): boolean {
    const li = this.lane[g];
    if (li < 0) return false;
    this.pathPoint(env, g, env.maps[env.scenarioOf[g]], li, this.st.s, ahead);
    out.x = this.pt.x;
    out.y = this.pt.y;
    out.heading = this.pt.heading;
    return true;
  }

  /** The acceleration and curvature of agent g (in the control scratch): the numbered steps in turn. */
  private control(env: SimEnv, g: number): void {
    const st = this.st;
    st.x = env.x[g];
    st.y = env.y[g];
    st.yaw = env.yaw[g];
    st.v = Math.max(0, env.speed[g]);
    const li = this.locate(env, g);
    this.steer(env, g, li);
    this.planAhead(env, g, li);
    const cfg = this.cfg;
    const idm = this.idm;
    this.agentIdm?.(g, idm);
    idm.desiredSpeedMps = Math.max(st.v0, 0.01);
    // The batched scan's per-agent terms include the free-road acceleration: computed once, used twice.
    if (this.batched) beginScan(this.scan, env, g, st, idm, this.plan);
    if (st.v0 <= 0) st.accel = -cfg.idm.comfortDecelMps2 * Math.min(1, st.v);
    else st.accel = this.batched ? freeRoadAccel(this.scan) : idmAcceleration(idm, st.v, Infinity);
    st.free = st.accel;
    st.accelLeader = st.free;
    this.scanAround(env, g, li);
    st.accel = Math.min(st.accel, st.accelLeader);
    this.stopForLights(env, g, li);
    this.changeLaneWhenHeldBack(env, g, li);
  }

  /** 1. Where am I on my lane? Advance to the next lane past the end; re-acquire when lost. Returns the lane (−1: none). */
  private locate(env: SimEnv, g: number): number {
    const cfg = this.cfg;
    const st = this.st;
    const m = env.maps[env.scenarioOf[g]];
    const hit = this.hit;
    let li = this.lane[g];
    if (li >= 0) {
      let d2 = projectNear(m, li, this.seg[g], st.x, st.y, hit);
      for (let hop = 0; hop < 2 && hit.s >= m.laneLength[li] - 0.05 && this.next[g] >= 0; hop++) {
        li = this.next[g];
        this.lane[g] = li;
        this.next[g] = this.chooseNext(env, g, li);
        d2 = projectNear(m, li, 0, st.x, st.y, hit);
      }
      if (d2 > cfg.laneLostM * cfg.laneLostM) li = -1;
    }
    if (li < 0 && this.desired[g] > 0 && nearestLane(m, st.x, st.y, st.yaw, hit, cfg.laneLostM)) {
      li = hit.lane;
      this.next[g] = this.chooseNext(env, g, li);
    }
    this.lane[g] = li;
    return li;
  }

  /** 2. Steering by pure pursuit on the lane path; desired speed limited on curves. */
  private steer(env: SimEnv, g: number, li: number): void {
    const cfg = this.cfg;
    const st = this.st;
    const hit = this.hit;
    st.s = 0;
    st.curvature = 0;
    st.lateral = 0;
    st.headingError = 0;
    st.v0 = this.desired[g];
    if (li < 0) return;
    const m = env.maps[env.scenarioOf[g]];
    this.seg[g] = hit.segment;
    st.s = hit.s;
    st.lateral = hit.lateral;
    st.headingError = wrapAngle(st.yaw - hit.heading);
    const look = Math.min(
      cfg.lookaheadMaxM,
      Math.max(cfg.lookaheadMinM, cfg.lookaheadMinM + cfg.lookaheadGainS * st.v),
    );
    this.pathPoint(env, g, m, li, st.s, look);
    const alpha = wrapAngle(Math.atan2(this.pt.y - st.y, this.pt.x - st.x) - st.yaw);
    const dist = Math.hypot(this.pt.x - st.x, this.pt.y - st.y);
    st.curvature = dist > 0.1 ? (2 * Math.sin(alpha)) / dist : 0;
    // Path curvature over the next 15 m bounds the speed.
    const h0 = hit.heading;
    this.pathPoint(env, g, m, li, st.s, 15);
    const kPath = Math.abs(wrapAngle(this.pt.heading - h0)) / 15;
    if (kPath > 1e-3) st.v0 = Math.min(st.v0, Math.sqrt(cfg.maxLateralAccelMps2 / kPath));
  }

  /**
   * 3a. My planned path for the next seconds at (at least) walking pace: along the lane when I have one (so
   * turns are foreseen), else straight ahead.
   */
  private planAhead(env: SimEnv, g: number, li: number): void {
    const cfg = this.cfg;
    const st = this.st;
    const m = env.maps[env.scenarioOf[g]];
    st.vPlan = Math.max(st.v, 2);
    this.plan.count = Math.round(cfg.yieldHorizonS / cfg.yieldStepS);
    for (let k = 0; k < this.plan.count; k++) {
      const d = st.vPlan * (k + 1) * cfg.yieldStepS;
      if (li >= 0) {
        this.pathPoint(env, g, m, li, st.s, d);
        this.plan.x[k] = this.pt.x;
        this.plan.y[k] = this.pt.y;
        this.plan.yaw[k] = this.pt.heading;
      } else {
        this.plan.x[k] = st.x + d * Math.cos(st.yaw);
        this.plan.y[k] = st.y + d * Math.sin(st.yaw);
        this.plan.yaw[k] = st.yaw;
      }
    }
  }

  /** 3. Obstacles in the path and conflicts to yield to: every visible agent within range, nearest cells first. */
  private scanAround(env: SimEnv, g: number, li: number): void {
    const cfg = this.cfg;
    const st = this.st;
    const si = env.scenarioOf[g];
    const m = env.maps[si];
    st.range = Math.min(cfg.maxRangeM, Math.max(cfg.minRangeM, cfg.minRangeM + cfg.rangeGainS * st.v));
    st.leftGap = Infinity;
    st.leftClosing = 0;
    st.rightGap = Infinity;
    st.rightClosing = 0;
    st.leftSafe = true;
    st.rightSafe = true;
    st.leaderGap = Infinity;
    st.leaderClosing = 0;
    st.stopGap = Infinity;
    st.laneW = li >= 0 ? m.laneWidth[li] : 3.5;
    this.scanEnv = env;
    this.scanG = g;
    if (this.batched) {
      scanNeighbours(this.scan, cfg, this.idm, st, this.plan, env, this.grid, g, li, this.occludedForScan);
      this.scanEnv = null;
      return;
    }
    scanReference(this.ctx, env, this.grid, g, li, this.occludedForScan);
    this.scanEnv = null;
  }

  /** 4. Red (and yellow, when stopping is comfortable) lights on this lane or the next. */
  private stopForLights(env: SimEnv, g: number, li: number): void {
    if (li < 0) return;
    const cfg = this.cfg;
    const st = this.st;
    const si = env.scenarioOf[g];
    const m = env.maps[si];
    const v = st.v;
    const Lg = env.length[g];
    const t = env.currentStepOf(si);
    let ahead = -st.s;
    let lane = li;
    for (let hop = 0; hop < 2 && lane >= 0 && ahead < st.range; hop++) {
      const k = m.laneLight[lane];
      if (k >= 0 && m.laneStopS[lane] + ahead > -0.5) {
        const state = env.scenarios[si].map.trafficLights[k].states[t];
        const gap = m.laneStopS[lane] + ahead - Lg / 2;
        const stopDist = brakingDistance(v, cfg.idm.comfortDecelMps2);
        if (state === LIGHT.red || (state === LIGHT.yellow && gap > stopDist)) {
          if (gap > -Lg / 2) st.accel = Math.min(st.accel, idmStopAcceleration(this.idm, v, gap));
          st.stopGap = gap;
          break;
        }
      }
      ahead += m.laneLength[lane];
      lane = hop === 0 ? this.next[g] : -1;
    }
  }

  /**
   * 5. Lane change when a slower agent ahead (not a light, not a yield) holds me back and a neighbour lane
   * lets me go faster safely (MOBIL without politeness); never in intersections.
   */
  private changeLaneWhenHeldBack(env: SimEnv, g: number, li: number): void {
    const cfg = this.cfg;
    const st = this.st;
    const m = env.maps[env.scenarioOf[g]];
    const heldBack = st.accelLeader < st.free - cfg.laneChangeGainMps2 && st.accelLeader <= st.accel;
    if (li < 0 || !heldBack || this.cooldown[g] > 0 || m.laneInIntersection[li]) return;
    for (const side of [1, -1]) {
      const target = side > 0 ? m.leftNeighbor[li] : m.rightNeighbor[li];
      if (target < 0 || !(side > 0 ? st.leftSafe : st.rightSafe)) continue;
      const gap = side > 0 ? st.leftGap : st.rightGap;
      const closing = side > 0 ? st.leftClosing : st.rightClosing;
      const there = Number.isFinite(gap) ? idmAcceleration(this.idm, st.v, gap, closing) : st.free;
      if (gap > 0 && there > st.accelLeader + cfg.laneChangeGainMps2) {
        this.switchLane(env, g, m, target);
        this.cooldown[g] = cfg.laneChangeCooldownS;
        break;
      }
    }
  }

  private switchLane(env: SimEnv, g: number, m: MapIndex, target: number): void {
    let best = Infinity;
    const segs = Math.max(1, (m.laneXy[target].length >> 1) - 1);
    for (let k = 0; k < segs; k++) {
      const d2 = projectOnSegment(m, target, k, env.x[g], env.y[g], this.hit);
      if (d2 < best) {
        best = d2;
        this.seg[g] = k;
      }
    }
    this.lane[g] = target;
    this.next[g] = this.chooseNext(env, g, target);
  }
}
