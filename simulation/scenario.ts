// The scenario model of the simulator (docs/architecture.md): a road map plus agent tracks at a fixed
// step (10 Hz), struct-of-arrays over agents × steps, with the ego, goals/routes and controlled agents.

export type AgentType = 'vehicle' | 'pedestrian' | 'cyclist' | 'other';

/** A lane centreline with its topology; `xy` is a polyline [x0, y0, x1, y1, …] in the world frame. */
export interface Lane {
  id: number;
  xy: Float32Array;
  /** Lane width in metres (used for off-road and lane-keeping where the map has no road edges). */
  widthM: number;
  speedLimitMps: number;
  successors: number[];
  predecessors: number[];
  /** Parallel lanes one may change into. */
  leftNeighbors: number[];
  rightNeighbors: number[];
  /** True for lanes inside an intersection. */
  inIntersection: boolean;
  // What a source map states beyond the simulator's needs (WOMD map.proto), kept for a faithful export.
  /** Height of each polyline point, metres (absent: unknown). */
  z?: Float32Array;
  /** The source's lane type ('freeway', 'surface_street', 'bike_lane', 'undefined'). */
  laneType?: LaneType;
  /** WOMD: the lane is an interpolated connector, not a painted one. */
  interpolating?: boolean;
  /** Road lines / edges along stretches of the lane (WOMD left_boundaries, right_boundaries). */
  leftBoundaries?: LaneBoundary[];
  rightBoundaries?: LaneBoundary[];
  /** The neighbours with the stretches where they run beside the lane (same order as *Neighbors). */
  leftNeighborSpans?: LaneNeighborSpan[];
  rightNeighborSpans?: LaneNeighborSpan[];
}

export const LANE_TYPES = ['undefined', 'freeway', 'surface_street', 'bike_lane'] as const;
export type LaneType = (typeof LANE_TYPES)[number];

/** Road-line types (WOMD RoadLineType, in its code order); road edges use ROAD_EDGE_TYPES. */
export const ROAD_LINE_TYPES = [
  'unknown',
  'broken_single_white',
  'solid_single_white',
  'solid_double_white',
  'broken_single_yellow',
  'broken_double_yellow',
  'solid_single_yellow',
  'solid_double_yellow',
  'passing_double_yellow',
] as const;
export const ROAD_EDGE_TYPES = ['unknown', 'road_edge_boundary', 'road_edge_median'] as const;

/** A stretch of a lane [laneStartIndex, laneEndIndex] (point indices) bounded by a road line or edge. */
export interface LaneBoundary {
  laneStartIndex: number;
  laneEndIndex: number;
  /** The road line / edge feature id. */
  featureId: number;
  /** A ROAD_LINE_TYPES name. */
  type: string;
}

/** A neighbouring lane beside the stretch [selfStart, selfEnd] of this lane ([neighborStart, neighborEnd] of it). */
export interface LaneNeighborSpan {
  laneId: number;
  selfStartIndex: number;
  selfEndIndex: number;
  neighborStartIndex: number;
  neighborEndIndex: number;
  /** The lines between the two lanes along the stretch. */
  boundaries: LaneBoundary[];
}

/** A polyline or polygon feature of the map ([x0, y0, …], world frame). */
export interface MapFeature {
  id: number;
  xy: Float32Array;
  /** Height of each point, metres (absent: unknown). */
  z?: Float32Array;
  /** The source's type of the feature (road lines: ROAD_LINE_TYPES; road edges: ROAD_EDGE_TYPES). */
  type?: string;
}

/** A stop sign (WOMD): its position and the lanes it controls (stop lines are derived from it). */
export interface StopSign {
  id: number;
  lanes: number[];
  x: number;
  y: number;
  z: number;
}

export interface StopLine extends MapFeature {
  /** The lane this stop line controls. */
  laneId: number;
}

/** Traffic-light state codes per step (WOMD's simplified: unknown, red, yellow, green). */
export const LIGHT = { unknown: 0, red: 1, yellow: 2, green: 3 } as const;
/** Names of the LIGHT codes, by code. */
export const LIGHT_NAMES = ['unknown', 'red', 'yellow', 'green'] as const;

/**
 * A signal's full state as the source names it (WOMD TrafficSignalLaneState.State, by code): arrows and
 * flashing kept apart from plain lights. `NO_SIGNAL_STATE` marks a step at which the source lists no state.
 */
export const SIGNAL_STATE_NAMES = [
  'unknown',
  'arrow_stop',
  'arrow_caution',
  'arrow_go',
  'stop',
  'caution',
  'go',
  'flashing_stop',
  'flashing_caution',
] as const;
export const NO_SIGNAL_STATE = 255;

export interface TrafficLight {
  laneId: number;
  /** Where vehicles on the lane must stop (x, y). */
  stopX: number;
  stopY: number;
  /** One state code per scenario step. */
  states: Uint8Array;
  /** Height of the stop point, metres (absent: unknown). */
  stopZ?: number;
  /** The source's state per step (SIGNAL_STATE_NAMES codes, NO_SIGNAL_STATE where none is listed). */
  signalStates?: Uint8Array;
}

export interface RoadMap {
  lanes: Lane[];
  /** Road boundaries (curbs): polylines that vehicles must not cross. */
  roadEdges: MapFeature[];
  /** Drivable surface as polygons, when known (the synthetic town has them; WOMD does not). */
  drivableAreas: MapFeature[];
  crosswalks: MapFeature[];
  /** Sidewalk polygons, when known. */
  sidewalks: MapFeature[];
  stopLines: StopLine[];
  trafficLights: TrafficLight[];
  /** Painted road lines (WOMD), with their types. */
  roadLines?: MapFeature[];
  /** Speed-bump and driveway polygons (WOMD). */
  speedBumps?: MapFeature[];
  driveways?: MapFeature[];
  /** Stop signs as the source gives them (the stop lines above are derived from them). */
  stopSigns?: StopSign[];
}

/** Agent tracks: per-agent attributes and per (agent, step) states at index `a * numSteps + t`. */
export interface AgentTracks {
  ids: Int32Array;
  types: AgentType[];
  length: Float32Array;
  width: Float32Array;
  height: Float32Array;
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  yaw: Float32Array;
  vx: Float32Array;
  vy: Float32Array;
  valid: Uint8Array;
  /**
   * Per (agent, step) sizes where the source has them (WOMD states each step's box); absent: the
   * per-agent sizes above hold at every step. The simulator uses the per-agent sizes.
   */
  stepLength?: Float32Array;
  stepWidth?: Float32Array;
  stepHeight?: Float32Array;
  /** GPUDrive's mark_as_expert per agent (1: the source asks for log replay of it), where given. */
  markAsExpert?: Uint8Array;
}

export interface Scenario {
  id: string;
  dtS: number;
  numSteps: number;
  /** Index of the "current" step: steps ≤ it are history (WOMD: 10 of 91). */
  currentStep: number;
  map: RoadMap;
  agents: AgentTracks;
  /** Row of the ego (self-driving) vehicle in `agents` (WOMD's `sdc_track_index`). */
  egoIndex: number;
  /**
   * Rows of the agents a benchmark scores besides the ego (WOMD's `tracks_to_predict`); absent when
   * the source names none (then every controlled agent valid at the current step is scored).
   */
  tracksToPredict?: Int32Array;
  /** WOMD difficulty of each tracks_to_predict row (0 none, 1 level 1, 2 level 2). */
  predictionDifficulty?: Uint8Array;
  /** Ids of the agents the source marks as interesting (WOMD objects_of_interest). */
  objectsOfInterest?: Int32Array;
  /** The source's time of each step, seconds (WOMD timestamps_seconds; absent: t · dtS). */
  timestampsS?: Float64Array;
  /** Agents the simulator (or a learned policy) controls; the rest replay the log. */
  controlled: Uint8Array;
  /** Per-agent goal position (x, y), NaN when none. */
  goalX: Float32Array;
  goalY: Float32Array;
  /** Per-agent route as lane ids, empty when none. */
  routes: number[][];
  /** Where the scenario came from ('womd', 'synthetic', 'av2', 'longtail:cut-in', …). */
  source: string;
}

export function agentCount(s: Scenario): number {
  return s.agents.ids.length;
}

export function allocateAgentTracks(numAgents: number, numSteps: number): AgentTracks {
  const n = numAgents * numSteps;
  return {
    ids: new Int32Array(numAgents),
    types: new Array<AgentType>(numAgents).fill('vehicle'),
    length: new Float32Array(numAgents),
    width: new Float32Array(numAgents),
    height: new Float32Array(numAgents),
    x: new Float32Array(n),
    y: new Float32Array(n),
    z: new Float32Array(n),
    yaw: new Float32Array(n),
    vx: new Float32Array(n),
    vy: new Float32Array(n),
    valid: new Uint8Array(n),
  };
}

export function emptyMap(): RoadMap {
  return {
    lanes: [],
    roadEdges: [],
    drivableAreas: [],
    crosswalks: [],
    sidewalks: [],
    stopLines: [],
    trafficLights: [],
  };
}
