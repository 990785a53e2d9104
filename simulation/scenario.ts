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
}

/** A polyline or polygon feature of the map ([x0, y0, …], world frame). */
export interface MapFeature {
  id: number;
  xy: Float32Array;
}

export interface StopLine extends MapFeature {
  /** The lane this stop line controls. */
  laneId: number;
}

/** Traffic-light state codes per step (WOMD's simplified: unknown, red, yellow, green). */
export const LIGHT = { unknown: 0, red: 1, yellow: 2, green: 3 } as const;

export interface TrafficLight {
  laneId: number;
  /** Where vehicles on the lane must stop (x, y). */
  stopX: number;
  stopY: number;
  /** One state code per scenario step. */
  states: Uint8Array;
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
