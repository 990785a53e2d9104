// Save and load a Scenario: as one JSON file (`*.json`, format drivekit.scenario/2, reads /1) or as a directory
// of Arrow IPC files (agents, agent_info, lanes, map_features, traffic_lights, lane_links; see scenarioTables.ts).
import fs from 'node:fs';
import path from 'node:path';
import { RecordBatchFileWriter, type RecordBatch, Table } from 'apache-arrow';
import { writeFileAtomicSync } from '../core/atomic.ts';
import { readArrowFile } from '../core/arrow/ipc.ts';
import { SchemaError } from '../core/arrow/validate.ts';
import { InputError } from '../core/errors.ts';
import {
  type AgentType,
  allocateAgentTracks,
  emptyMap,
  type MapFeature,
  type Lane,
  type Scenario,
  type StopLine,
  type StopSign,
  LIGHT_NAMES,
  NO_SIGNAL_STATE,
  SIGNAL_STATE_NAMES,
} from './scenario.ts';
import {
  batchesToScenario,
  SCENARIO_TABLES,
  type ScenarioTableName,
  scenarioToBatches,
} from './scenarioTables.ts';
import { validateScenario, type ValidationReport } from './validateScenario.ts';
import { makeDirs } from '../core/dirs.ts';

/**
 * The JSON document's format. /2: every key snake_case (lane boundaries and neighbour spans too), `valid` as
 * booleans, light states by name, `scenario_id`, agents' `agent_id`, the SDC as `sdc_agent_id` and
 * `tracks_to_predict` as agent ids (the export tables' header). /1 (still read): `id`, 0/1 validity, light
 * codes, `ego_index` and `tracks_to_predict` as agent rows, camelCase boundary keys.
 */
export const SCENARIO_JSON_FORMAT = 'drivekit.scenario/2';
const SCENARIO_JSON_FORMATS = [SCENARIO_JSON_FORMAT, 'drivekit.scenario/1'];
/** The prefix every version of the format starts with (how a folder's scenario files are recognised). */
export const SCENARIO_JSON_PREFIX = 'drivekit.scenario/';

/** True when `p` is a scenario stored as Arrow tables (a directory holding agents.arrow). */
export function isScenarioDir(p: string): boolean {
  return fs.existsSync(path.join(p, 'agents.arrow')) && fs.existsSync(path.join(p, 'agent_info.arrow'));
}

/**
 * Save a scenario: `*.json` → one JSON file; anything else → a directory of Arrow tables. Validates
 * first; writes atomically (a JSON temp file, or a temp directory renamed into place).
 */
export function saveScenario(s: Scenario, target: string): void {
  validateScenario(s, target, { requireValidAgent: false, repair: false });
  makeDirs(path.dirname(path.resolve(target)));
  if (target.endsWith('.json')) {
    writeFileAtomicSync(target, JSON.stringify(scenarioToJson(s)));
    return;
  }
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${Date.now()}`);
  makeDirs(tmp);
  try {
    const batches = scenarioToBatches(s);
    for (const name of Object.keys(SCENARIO_TABLES) as ScenarioTableName[]) {
      const bytes = RecordBatchFileWriter.writeAll(new Table([batches[name]])).toUint8Array(true);
      fs.writeFileSync(path.join(tmp, `${name}.arrow`), bytes);
    }
    // Replace an older scenario at the target only once the new one is complete.
    const old = fs.existsSync(target) ? `${tmp}.old` : null;
    if (old) fs.renameSync(target, old);
    fs.renameSync(tmp, target);
    if (old) fs.rmSync(old, { recursive: true, force: true });
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** Load a scenario from a `.json` file or an Arrow scenario directory, validated. */
export function loadScenario(source: string, report?: ValidationReport): Scenario {
  if (!fs.existsSync(source)) throw new InputError(source, 'no such file or directory');
  let s: Scenario;
  if (fs.statSync(source).isDirectory()) {
    if (!isScenarioDir(source))
      throw new InputError(source, 'not a scenario directory (agents.arrow and agent_info.arrow expected)');
    const tables = {} as Record<ScenarioTableName, RecordBatch[]>;
    for (const name of Object.keys(SCENARIO_TABLES) as ScenarioTableName[]) {
      const file = path.join(source, `${name}.arrow`);
      // Map tables are optional: a scenario without a map (AV2 tracks) may omit them.
      if (name !== 'agents' && name !== 'agent_info' && !fs.existsSync(file)) tables[name] = [];
      else tables[name] = readArrowTable(file);
    }
    try {
      s = batchesToScenario(tables, (name) => path.join(source, `${name}.arrow`));
    } catch (e) {
      if (e instanceof SchemaError) {
        const [file, ...rest] = e.message.split(': ');
        throw new InputError(file, rest.join(': '));
      }
      throw e;
    }
  } else {
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(source, 'utf8'));
    } catch (e) {
      throw new InputError(source, `not valid JSON (${(e as Error).message})`);
    }
    s = scenarioFromJson(json, source);
  }
  const r = validateScenario(s, source);
  if (report) report.invalidatedStates = r.invalidatedStates;
  return s;
}

/** Batches of an Arrow IPC file, refusing files that are not Arrow (apache-arrow reads them as empty). */
function readArrowTable(file: string): RecordBatch[] {
  const fd = fs.openSync(file, 'r');
  const magic = Buffer.alloc(6);
  try {
    fs.readSync(fd, magic, 0, 6, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (magic.toString('latin1') !== 'ARROW1')
    throw new InputError(file, 'not an Arrow IPC file (no ARROW1 magic)');
  const { batches } = readArrowFile(file);
  if (batches.length === 0) throw new InputError(file, 'holds no record batch');
  return batches;
}

// ---- JSON ----------------------------------------------------------------------------------------

interface JsonFeature {
  id: number;
  xy: number[];
  lane_id?: number;
  z?: number[];
  type?: string;
}

/** The source facts a scenario may keep (WOMD), as JSON values; absent keys stay absent. */
function sourceFactsToJson(s: Scenario): { top: Record<string, unknown>; map: Record<string, unknown> } {
  const top: Record<string, unknown> = {};
  if (s.predictionDifficulty) top.prediction_difficulty = Array.from(s.predictionDifficulty);
  if (s.objectsOfInterest) top.objects_of_interest = Array.from(s.objectsOfInterest);
  if (s.timestampsS) top.timestamps_s = Array.from(s.timestampsS);
  const a = s.agents;
  if (a.stepLength && a.stepWidth && a.stepHeight)
    top.step_sizes = {
      length: Array.from(a.stepLength),
      width: Array.from(a.stepWidth),
      height: Array.from(a.stepHeight),
    };
  const m = s.map;
  const feat = (f: MapFeature) => ({
    id: f.id,
    xy: Array.from(f.xy),
    ...(f.z ? { z: Array.from(f.z) } : {}),
    ...(f.type ? { type: f.type } : {}),
  });
  const map: Record<string, unknown> = {};
  if (m.roadLines) map.road_lines = m.roadLines.map(feat);
  if (m.speedBumps) map.speed_bumps = m.speedBumps.map(feat);
  if (m.driveways) map.driveways = m.driveways.map(feat);
  if (m.stopSigns) map.stop_signs = m.stopSigns;
  return { top, map };
}

type Boundary = NonNullable<Lane['leftBoundaries']>[number];
type Span = NonNullable<Lane['leftNeighborSpans']>[number];
const boundaryToJson = (b: Boundary) => ({
  lane_start_index: b.laneStartIndex,
  lane_end_index: b.laneEndIndex,
  feature_id: b.featureId,
  type: b.type,
});
const spanToJson = (n: Span) => ({
  lane_id: n.laneId,
  self_start_index: n.selfStartIndex,
  self_end_index: n.selfEndIndex,
  neighbor_start_index: n.neighborStartIndex,
  neighbor_end_index: n.neighborEndIndex,
  boundaries: n.boundaries.map(boundaryToJson),
});
/** A boundary or span as /2 (snake_case) or /1 (camelCase) wrote it. */
const pick = (o: Record<string, unknown>, snake: string, camel: string) => (o[snake] ?? o[camel]) as never;
const boundaryFromJson = (o: Record<string, unknown>): Boundary => ({
  laneStartIndex: pick(o, 'lane_start_index', 'laneStartIndex'),
  laneEndIndex: pick(o, 'lane_end_index', 'laneEndIndex'),
  featureId: pick(o, 'feature_id', 'featureId'),
  type: o.type as string,
});
const spanFromJson = (o: Record<string, unknown>): Span => ({
  laneId: pick(o, 'lane_id', 'laneId'),
  selfStartIndex: pick(o, 'self_start_index', 'selfStartIndex'),
  selfEndIndex: pick(o, 'self_end_index', 'selfEndIndex'),
  neighborStartIndex: pick(o, 'neighbor_start_index', 'neighborStartIndex'),
  neighborEndIndex: pick(o, 'neighbor_end_index', 'neighborEndIndex'),
  boundaries: ((o.boundaries ?? []) as Record<string, unknown>[]).map(boundaryFromJson),
});

/** Lane and light facts beyond the simulator's (WOMD), as JSON keys. */
function laneFactsToJson(l: Lane): Record<string, unknown> {
  return {
    ...(l.z ? { z: Array.from(l.z) } : {}),
    ...(l.laneType ? { lane_type: l.laneType, interpolating: !!l.interpolating } : {}),
    ...(l.leftBoundaries
      ? {
          left_boundaries: l.leftBoundaries.map(boundaryToJson),
          right_boundaries: (l.rightBoundaries ?? []).map(boundaryToJson),
        }
      : {}),
    ...(l.leftNeighborSpans
      ? {
          left_neighbor_spans: l.leftNeighborSpans.map(spanToJson),
          right_neighbor_spans: (l.rightNeighborSpans ?? []).map(spanToJson),
        }
      : {}),
  };
}

/** Read back what laneFactsToJson / sourceFactsToJson wrote (trusted shapes: written by drivekit). */
function applySourceFacts(
  s: Scenario,
  d: Record<string, unknown>,
  m: Record<string, unknown>,
  lanes: Record<string, unknown>[],
): void {
  const nums = (v: unknown) => (v as number[]).map((x) => (x === null ? NaN : x));
  if (Array.isArray(d.prediction_difficulty))
    s.predictionDifficulty = Uint8Array.from(nums(d.prediction_difficulty));
  if (Array.isArray(d.objects_of_interest))
    s.objectsOfInterest = Int32Array.from(nums(d.objects_of_interest));
  if (Array.isArray(d.timestamps_s)) s.timestampsS = Float64Array.from(nums(d.timestamps_s));
  const sizes = d.step_sizes as Record<string, number[]> | undefined;
  if (sizes) {
    s.agents.stepLength = Float32Array.from(sizes.length);
    s.agents.stepWidth = Float32Array.from(sizes.width);
    s.agents.stepHeight = Float32Array.from(sizes.height);
  }
  const feat = (f: JsonFeature): MapFeature => ({
    id: f.id,
    xy: Float32Array.from(f.xy),
    ...(f.z ? { z: Float32Array.from(nums(f.z)) } : {}),
    ...(f.type ? { type: f.type } : {}),
  });
  if (Array.isArray(m.road_lines)) s.map.roadLines = (m.road_lines as JsonFeature[]).map(feat);
  if (Array.isArray(m.speed_bumps)) s.map.speedBumps = (m.speed_bumps as JsonFeature[]).map(feat);
  if (Array.isArray(m.driveways)) s.map.driveways = (m.driveways as JsonFeature[]).map(feat);
  if (Array.isArray(m.stop_signs)) s.map.stopSigns = m.stop_signs as StopSign[];
  for (const k of ['road_edges', 'crosswalks'] as const) {
    const list = (m[k] ?? []) as JsonFeature[];
    const into = k === 'road_edges' ? s.map.roadEdges : s.map.crosswalks;
    list.forEach((f, i) => Object.assign(into[i], feat(f)));
  }
  lanes.forEach((l, i) => {
    const lane = s.map.lanes[i];
    if (Array.isArray(l.z)) lane.z = Float32Array.from(nums(l.z));
    if (typeof l.lane_type === 'string') {
      lane.laneType = l.lane_type as Lane['laneType'];
      lane.interpolating = !!l.interpolating;
    }
    const list = (v: unknown) => (v ?? []) as Record<string, unknown>[];
    if (Array.isArray(l.left_boundaries)) {
      lane.leftBoundaries = list(l.left_boundaries).map(boundaryFromJson);
      lane.rightBoundaries = list(l.right_boundaries).map(boundaryFromJson);
    }
    if (Array.isArray(l.left_neighbor_spans)) {
      lane.leftNeighborSpans = list(l.left_neighbor_spans).map(spanFromJson);
      lane.rightNeighborSpans = list(l.right_neighbor_spans).map(spanFromJson);
    }
  });
  const lights = (m.traffic_lights ?? []) as Record<string, unknown>[];
  lights.forEach((l, i) => {
    const light = s.map.trafficLights[i];
    if (typeof l.stop_z === 'number') light.stopZ = l.stop_z;
    if (Array.isArray(l.signal_states))
      light.signalStates = Uint8Array.from(l.signal_states as (number | string | null)[], (v) =>
        v === null ? NO_SIGNAL_STATE : typeof v === 'string' ? SIGNAL_STATE_NAMES.indexOf(v as never) : v,
      );
  });
}

/** The JSON document of a scenario: readable, one object per agent and per map feature. */
export function scenarioToJson(s: Scenario): Record<string, unknown> {
  const a = s.agents;
  const T = s.numSteps;
  const feat = (f: MapFeature): JsonFeature => ({
    id: f.id,
    xy: Array.from(f.xy),
    ...(f.z ? { z: Array.from(f.z) } : {}),
    ...(f.type ? { type: f.type } : {}),
  });
  const facts = sourceFactsToJson(s);
  return {
    format: SCENARIO_JSON_FORMAT,
    scenario_id: s.id,
    source: s.source,
    dt_s: s.dtS,
    num_steps: T,
    current_step: s.currentStep,
    sdc_agent_id: s.egoIndex >= 0 ? a.ids[s.egoIndex] : null,
    ...(s.tracksToPredict ? { tracks_to_predict: Array.from(s.tracksToPredict, (row) => a.ids[row]) } : {}),
    ...facts.top,
    agents: Array.from(a.ids, (id, i) => {
      const span = <A extends Float32Array | Uint8Array>(arr: A) =>
        Array.from(arr.subarray(i * T, (i + 1) * T));
      return {
        agent_id: id,
        type: a.types[i],
        length: a.length[i],
        width: a.width[i],
        height: a.height[i],
        controlled: s.controlled[i] === 1,
        goal: Number.isFinite(s.goalX[i]) ? [s.goalX[i], s.goalY[i]] : null,
        route: s.routes[i],
        x: span(a.x),
        y: span(a.y),
        z: span(a.z),
        yaw: span(a.yaw),
        vx: span(a.vx),
        vy: span(a.vy),
        valid: Array.from(a.valid.subarray(i * T, (i + 1) * T), (v) => v === 1),
      };
    }),
    map: {
      lanes: s.map.lanes.map((l) => ({
        id: l.id,
        xy: Array.from(l.xy),
        width_m: l.widthM,
        speed_limit_mps: l.speedLimitMps,
        successors: l.successors,
        predecessors: l.predecessors,
        left_neighbors: l.leftNeighbors,
        right_neighbors: l.rightNeighbors,
        in_intersection: l.inIntersection,
        ...laneFactsToJson(l),
      })),
      road_edges: s.map.roadEdges.map(feat),
      drivable_areas: s.map.drivableAreas.map(feat),
      crosswalks: s.map.crosswalks.map(feat),
      sidewalks: s.map.sidewalks.map(feat),
      stop_lines: s.map.stopLines.map((f) => ({ ...feat(f), lane_id: f.laneId })),
      traffic_lights: s.map.trafficLights.map((l) => ({
        lane_id: l.laneId,
        stop_x: l.stopX,
        stop_y: l.stopY,
        states: Array.from(l.states, (c) => LIGHT_NAMES[c] ?? 'unknown'),
        ...(l.stopZ === undefined ? {} : { stop_z: l.stopZ }),
        ...(l.signalStates
          ? {
              signal_states: Array.from(l.signalStates, (c) =>
                c === NO_SIGNAL_STATE ? null : (SIGNAL_STATE_NAMES[c] ?? null),
              ),
            }
          : {}),
      })),
      ...facts.map,
    },
  };
}

/** Parse the JSON document (as produced by scenarioToJson), naming `file` and the field on error. */
export function scenarioFromJson(doc: unknown, file: string): Scenario {
  const fail = (problem: string): never => {
    throw new InputError(file, problem);
  };
  const obj = (v: unknown, what: string): Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : fail(`${what} is not an object`);
  const num = (v: unknown, what: string): number =>
    typeof v === 'number' ? v : fail(`${what} is not a number`);
  const arr = (v: unknown, what: string): unknown[] =>
    Array.isArray(v) ? v : fail(`${what} is not an array`);
  const nums = (v: unknown, what: string): number[] =>
    arr(v, what).map((x, i) =>
      typeof x === 'number' ? x : x === null ? NaN : fail(`${what}[${i}] is not a number`),
    );
  const d = obj(doc, 'the document');
  if (!SCENARIO_JSON_FORMATS.includes(d.format as string))
    fail(`format is ${JSON.stringify(d.format)}, expected ${SCENARIO_JSON_FORMATS.join(' or ')}`);
  const v1 = d.format !== SCENARIO_JSON_FORMAT;
  /** Validity as booleans (/2) or 0/1 (/1). */
  const flags = (v: unknown, what: string): number[] =>
    arr(v, what).map((x, i) =>
      typeof x === 'boolean'
        ? x
          ? 1
          : 0
        : typeof x === 'number'
          ? x
          : fail(`${what}[${i}] is not a boolean`),
    );
  /** Light states by name (/2) or code (/1). */
  const lightCodes = (v: unknown, what: string): number[] =>
    arr(v, what).map((x, i) => {
      const k = typeof x === 'string' ? LIGHT_NAMES.indexOf(x as never) : typeof x === 'number' ? x : -1;
      return k >= 0 ? k : fail(`${what}[${i}] is not a light state (${LIGHT_NAMES.join(', ')})`);
    });
  const T = num(d.num_steps, 'num_steps');
  if (!Number.isInteger(T) || T < 1) fail(`num_steps ${T} is not a positive integer`);
  const agents = arr(d.agents, 'agents');
  const n = agents.length;
  const tracks = allocateAgentTracks(n, T);
  const controlled = new Uint8Array(n);
  const goalX = new Float32Array(n).fill(NaN);
  const goalY = new Float32Array(n).fill(NaN);
  const routes: number[][] = [];
  agents.forEach((raw, i) => {
    const a = obj(raw, `agents[${i}]`);
    const w = `agents[${i}]`;
    tracks.ids[i] = v1 ? num(a.id, `${w}.id`) : num(a.agent_id, `${w}.agent_id`);
    tracks.types[i] = String(a.type) as AgentType;
    tracks.length[i] = num(a.length, `${w}.length`);
    tracks.width[i] = num(a.width, `${w}.width`);
    tracks.height[i] = num(a.height, `${w}.height`);
    controlled[i] = a.controlled ? 1 : 0;
    if (a.goal !== null && a.goal !== undefined) {
      const g = nums(a.goal, `${w}.goal`);
      if (g.length !== 2) fail(`${w}.goal must be [x, y]`);
      goalX[i] = g[0];
      goalY[i] = g[1];
    }
    routes.push(a.route === undefined ? [] : nums(a.route, `${w}.route`));
    for (const key of ['x', 'y', 'z', 'yaw', 'vx', 'vy', 'valid'] as const) {
      const v = key === 'valid' ? flags(a[key], `${w}.${key}`) : nums(a[key], `${w}.${key}`);
      if (v.length !== T) fail(`${w}.${key} has ${v.length} values, expected num_steps = ${T}`);
      tracks[key].set(v, i * T);
    }
  });
  const m = obj(d.map ?? {}, 'map');
  const map = emptyMap();
  const feats = (key: string): MapFeature[] =>
    arr(m[key] ?? [], `map.${key}`).map((raw, i) => {
      const f = obj(raw, `map.${key}[${i}]`);
      return {
        id: num(f.id, `map.${key}[${i}].id`),
        xy: Float32Array.from(nums(f.xy, `map.${key}[${i}].xy`)),
      };
    });
  map.lanes = arr(m.lanes ?? [], 'map.lanes').map((raw, i) => {
    const l = obj(raw, `map.lanes[${i}]`);
    const w = `map.lanes[${i}]`;
    return {
      id: num(l.id, `${w}.id`),
      xy: Float32Array.from(nums(l.xy, `${w}.xy`)),
      widthM: num(l.width_m, `${w}.width_m`),
      speedLimitMps: num(l.speed_limit_mps, `${w}.speed_limit_mps`),
      successors: nums(l.successors ?? [], `${w}.successors`),
      predecessors: nums(l.predecessors ?? [], `${w}.predecessors`),
      leftNeighbors: nums(l.left_neighbors ?? [], `${w}.left_neighbors`),
      rightNeighbors: nums(l.right_neighbors ?? [], `${w}.right_neighbors`),
      inIntersection: !!l.in_intersection,
    };
  });
  map.roadEdges = feats('road_edges');
  map.drivableAreas = feats('drivable_areas');
  map.crosswalks = feats('crosswalks');
  map.sidewalks = feats('sidewalks');
  map.stopLines = arr(m.stop_lines ?? [], 'map.stop_lines').map((raw, i): StopLine => {
    const f = obj(raw, `map.stop_lines[${i}]`);
    return {
      id: num(f.id, `map.stop_lines[${i}].id`),
      xy: Float32Array.from(nums(f.xy, `map.stop_lines[${i}].xy`)),
      laneId: num(f.lane_id, `map.stop_lines[${i}].lane_id`),
    };
  });
  map.trafficLights = arr(m.traffic_lights ?? [], 'map.traffic_lights').map((raw, i) => {
    const l = obj(raw, `map.traffic_lights[${i}]`);
    const w = `map.traffic_lights[${i}]`;
    return {
      laneId: num(l.lane_id, `${w}.lane_id`),
      stopX: num(l.stop_x, `${w}.stop_x`),
      stopY: num(l.stop_y, `${w}.stop_y`),
      states: Uint8Array.from(lightCodes(l.states, `${w}.states`)),
    };
  });
  const rowOf = (id: number, what: string) => {
    const k = tracks.ids.indexOf(id);
    return k >= 0 ? k : fail(`${what}: agent ${id} is not in agents`);
  };
  const egoIndex = v1
    ? num(d.ego_index ?? -1, 'ego_index')
    : d.sdc_agent_id === null || d.sdc_agent_id === undefined
      ? -1
      : rowOf(num(d.sdc_agent_id, 'sdc_agent_id'), 'sdc_agent_id');
  const toPredict =
    d.tracks_to_predict === undefined
      ? undefined
      : nums(d.tracks_to_predict, 'tracks_to_predict').map((x) => (v1 ? x : rowOf(x, 'tracks_to_predict')));
  const out: Scenario = {
    id: String((v1 ? d.id : d.scenario_id) ?? path.basename(file, '.json')),
    source: String(d.source ?? 'json'),
    dtS: num(d.dt_s ?? 0.1, 'dt_s'),
    numSteps: T,
    currentStep: num(d.current_step ?? 0, 'current_step'),
    map,
    agents: tracks,
    egoIndex,
    ...(toPredict === undefined ? {} : { tracksToPredict: Int32Array.from(toPredict) }),
    controlled,
    goalX,
    goalY,
    routes,
  };
  applySourceFacts(out, d, m, arr(m.lanes ?? [], 'map.lanes') as Record<string, unknown>[]);
  return out;
}
