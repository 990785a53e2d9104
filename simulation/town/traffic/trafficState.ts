// The town traffic's state as struct-of-arrays: every agent's box and motion, the vehicles' lane state, the
// pedestrians' walking state and the behaviour counters. Follows the SimEnv layout (one typed array per field).
import type { IdmConfig } from '../../agents/idm.ts';
import type { Rng } from '../../rng.ts';
import type { AgentClass, AgentSize } from '../agentSizes.ts';
import type { TownLane } from '../laneGraph.ts';
import { type Rect2, rectsOverlap } from '../obb.ts';
import type { PedestrianGraph } from '../pedestrianGraph.ts';
import type { TownConfig } from '../townConfig.ts';
import type { TrafficConfig } from './trafficConfig.ts';

export type AgentRole = 'ego' | 'vehicle' | 'cyclist' | 'pedestrian' | 'parked';

/** Every agent (parked cars, vehicles, cyclists, pedestrians) in the world frame, box centre at ground level. */
export interface AgentState {
  count: number;
  classes: AgentClass[];
  roles: AgentRole[];
  /** Paint / clothing variant (picks the reflectivity). */
  paint: number[];
  x: Float64Array;
  y: Float64Array;
  yaw: Float64Array;
  /** Speed along the heading, m/s. */
  v: Float64Array;
  /** Ground height under the agent (the curb for pedestrians on sidewalks); z is added on recording. */
  z: Float64Array;
  length: Float64Array;
  width: Float64Array;
  height: Float64Array;
  /** The largest box half-diagonal so far, m: no box reaches farther from its centre (overlap pre-check). */
  maxHalfDiagonalM: number;
}

/** Vehicles and cyclists, indexed by vehicle number (their agent index in `agent`). */
export interface VehicleState {
  count: number;
  agent: Int32Array;
  lane: Int32Array;
  /** Arc length of the centre on `lane`. */
  s: Float64Array;
  /** Lane-change offset at its start, and time since its start. */
  lcFrom: Float64Array;
  lcT: Float64Array;
  /** Constant sideways offset from the lane centre (cyclists ride to the right). */
  bias: Float64Array;
  cooldownS: Float64Array;
  canChangeLane: Uint8Array;
  /** Lanes planned after `lane`, and every lane driven (for the ego's route). */
  plan: number[][];
  history: number[][];
  idm: IdmConfig[];
  rng: Rng[];
}

/** Pedestrians on the walking graph, indexed by pedestrian number. */
export interface PedestrianState {
  count: number;
  agent: Int32Array;
  edge: Int32Array;
  s: Float64Array;
  /** +1 walking from the edge's v0 to v1, −1 back. */
  dir: Float64Array;
  speed: Float64Array;
  keepRightM: Float64Array;
  /** Waiting at a crosswalk for a gap, and for how long; blocked by someone ahead, for how long. */
  waiting: Uint8Array;
  waitS: Float64Array;
  blockedS: Float64Array;
  rng: Rng[];
}

/** Behaviour counts over the recorded steps (diagnostics and tests). */
export interface TrafficCounters {
  refusedMoves: number;
  laneChanges: number;
  junctionHolds: number;
  crossings: number;
}

export function allocateAgents(capacity: number): AgentState {
  return {
    count: 0,
    classes: [],
    roles: [],
    paint: [],
    x: new Float64Array(capacity),
    y: new Float64Array(capacity),
    yaw: new Float64Array(capacity),
    v: new Float64Array(capacity),
    z: new Float64Array(capacity),
    length: new Float64Array(capacity),
    width: new Float64Array(capacity),
    height: new Float64Array(capacity),
    maxHalfDiagonalM: 0,
  };
}

export function allocateVehicles(capacity: number): VehicleState {
  return {
    count: 0,
    agent: new Int32Array(capacity),
    lane: new Int32Array(capacity),
    s: new Float64Array(capacity),
    lcFrom: new Float64Array(capacity),
    lcT: new Float64Array(capacity),
    bias: new Float64Array(capacity),
    cooldownS: new Float64Array(capacity),
    canChangeLane: new Uint8Array(capacity),
    plan: [],
    history: [],
    idm: [],
    rng: [],
  };
}

export function allocatePedestrians(capacity: number): PedestrianState {
  return {
    count: 0,
    agent: new Int32Array(capacity),
    edge: new Int32Array(capacity),
    s: new Float64Array(capacity),
    dir: new Float64Array(capacity),
    speed: new Float64Array(capacity),
    keepRightM: new Float64Array(capacity),
    waiting: new Uint8Array(capacity),
    waitS: new Float64Array(capacity),
    blockedS: new Float64Array(capacity),
    rng: [],
  };
}

/** Append an agent standing still at (x, y, yaw); returns its index. */
export function addAgent(
  a: AgentState,
  cls: AgentClass,
  role: AgentRole,
  size: AgentSize,
  paint: number,
  x: number,
  y: number,
  yaw: number,
): number {
  const i = a.count++;
  a.classes.push(cls);
  a.roles.push(role);
  a.paint.push(paint);
  a.length[i] = size.length;
  a.width[i] = size.width;
  a.height[i] = size.height;
  a.maxHalfDiagonalM = Math.max(a.maxHalfDiagonalM, Math.hypot(size.length, size.width) / 2);
  a.x[i] = x;
  a.y[i] = y;
  a.yaw[i] = yaw;
  a.v[i] = 0;
  a.z[i] = 0;
  return i;
}

/** Agent i's box, at its current pose or at a proposed one. */
export function rectOf(a: AgentState, i: number, x = a.x[i], y = a.y[i], yaw = a.yaw[i]): Rect2 {
  return { x, y, yaw, length: a.length[i], width: a.width[i] };
}

/** Does box r (agent i's proposed or a new agent's, i = count) overlap any other agent's box by more than margin? */
export function overlapsAny(a: AgentState, i: number, r: Rect2, margin: number): boolean {
  // Every step asks this of every agent against every other: a box farther than both bounding circles
  // along x or y is skipped without building its rectangle. It is the circle test rectsOverlap starts
  // with, against the largest circle, so the answer is the same to the last bit.
  const reach = Math.hypot(r.length, r.width) / 2 + margin + (a.maxHalfDiagonalM + margin);
  for (let j = 0; j < a.count; j++) {
    if (j === i) continue;
    const dx = a.x[j] - r.x;
    const dy = a.y[j] - r.y;
    if (dx >= reach || -dx >= reach || dy >= reach || -dy >= reach) continue;
    if (rectsOverlap(r, rectOf(a, j), margin)) return true;
  }
  return false;
}

/**
 * Junction reservations: how many vehicles hold each connector lane, and per vehicle the connector it holds,
 * the one it has asked for (and the step it first asked: first come, first served) and where it lets go.
 */
export interface JunctionState {
  /** Per lane: vehicles holding it. */
  held: Int32Array;
  /** Per vehicle: connector held (−1 none), connector asked for (−1 none) and the step of that request. */
  reserved: Int32Array;
  requestLane: Int32Array;
  requestStep: Int32Array;
  /** Per vehicle: the reservation ends once it is on releaseLane at arc length ≥ releaseAtS (rear clear). */
  releaseLane: Int32Array;
  releaseAtS: Float64Array;
}

export function allocateJunctions(numLanes: number, numVehicles: number): JunctionState {
  return {
    held: new Int32Array(numLanes),
    reserved: new Int32Array(numVehicles).fill(-1),
    requestLane: new Int32Array(numVehicles).fill(-1),
    requestStep: new Int32Array(numVehicles),
    releaseLane: new Int32Array(numVehicles).fill(-1),
    releaseAtS: new Float64Array(numVehicles),
  };
}

/** The whole traffic: what each step reads and writes. */
export interface TrafficState {
  agents: AgentState;
  vehicles: VehicleState;
  pedestrians: PedestrianState;
  junctions: JunctionState;
  counters: TrafficCounters;
  /** Current step; negative during the warm-up, whose behaviour is not counted. */
  step: number;
}

/** What the traffic moves on: the town's settings, the behaviour config, lanes and the walking graph. */
export interface TrafficWorld {
  town: TownConfig;
  cfg: TrafficConfig;
  lanes: TownLane[];
  walking: PedestrianGraph;
}
