// A Scenario as five Arrow tables: agent states (the shared AgentStates record), per-agent attributes,
// lanes, other map features and traffic lights (schemas below, versioned like core/arrow/schemas.ts).
import {
  Bool,
  type Data,
  type DataType,
  Field,
  Float32,
  Int32,
  List,
  makeData,
  type RecordBatch,
  Schema,
  Type,
  Uint8,
  Utf8,
} from 'apache-arrow';
import { agentStatesToBatch, batchToAgentStates } from '../core/arrow/codec.ts';
import {
  batchFromColumns,
  boolData,
  numericData,
  readBool,
  readUtf8,
  utf8Data,
} from '../core/arrow/columns.ts';
import type { AgentStates } from '../core/arrow/records.ts';
import { SCHEMA_KEY } from '../core/arrow/schemas.ts';
import { SchemaError } from '../core/arrow/validate.ts';
import {
  allocateAgentTracks,
  type AgentType,
  emptyMap,
  type Lane,
  type MapFeature,
  type Scenario,
  type StopLine,
  type TrafficLight,
} from './scenario.ts';

/**
 * Table names (file stems of a scenario directory) and their schema versions:
 * - `agents` (agent_states/1): one row per (agent, step), agent-major in track order; the schema
 *   metadata `drivekit.scenario` holds the header {id, source, dt_s, num_steps, current_step}.
 * - `agent_info` (scenario_agents/1): one row per agent in track order: agent_id, type, length,
 *   width, height, is_ego, controlled, goal_x, goal_y (NaN when none), route (list<int32> lane ids).
 * - `lanes` (scenario_lanes/1): lane_id, xy (list<float32>, interleaved x0,y0,x1,y1,…), width_m,
 *   speed_limit_mps, successors, predecessors, left_neighbors, right_neighbors (list<int32>),
 *   in_intersection.
 * - `map_features` (scenario_map_features/1): kind ('road_edge' | 'drivable_area' | 'crosswalk' |
 *   'sidewalk' | 'stop_line'), feature_id, lane_id (the controlled lane of a stop line, else −1), xy.
 * - `traffic_lights` (scenario_traffic_lights/1): lane_id, stop_x, stop_y, states (list<uint8>, one
 *   code per step: 0 unknown, 1 red, 2 yellow, 3 green).
 */
export const SCENARIO_TABLES = {
  agents: 'agent_states/1',
  agent_info: 'scenario_agents/1',
  lanes: 'scenario_lanes/1',
  map_features: 'scenario_map_features/1',
  traffic_lights: 'scenario_traffic_lights/1',
} as const;

export type ScenarioTableName = keyof typeof SCENARIO_TABLES;
export const HEADER_KEY = 'drivekit.scenario';

export const FEATURE_KINDS = ['road_edge', 'drivable_area', 'crosswalk', 'sidewalk', 'stop_line'] as const;
type FeatureKind = (typeof FEATURE_KINDS)[number];

const fld = (name: string, type: DataType) => new Field(name, type, false);
const listOf = (t: DataType) => new List(new Field('item', t, false));

const TABLE_FIELDS: Record<Exclude<ScenarioTableName, 'agents'>, Field[]> = {
  agent_info: [
    fld('agent_id', new Int32()),
    fld('type', new Utf8()),
    fld('length', new Float32()),
    fld('width', new Float32()),
    fld('height', new Float32()),
    fld('is_ego', new Bool()),
    fld('controlled', new Bool()),
    fld('goal_x', new Float32()),
    fld('goal_y', new Float32()),
    fld('route', listOf(new Int32())),
  ],
  lanes: [
    fld('lane_id', new Int32()),
    fld('xy', listOf(new Float32())),
    fld('width_m', new Float32()),
    fld('speed_limit_mps', new Float32()),
    fld('successors', listOf(new Int32())),
    fld('predecessors', listOf(new Int32())),
    fld('left_neighbors', listOf(new Int32())),
    fld('right_neighbors', listOf(new Int32())),
    fld('in_intersection', new Bool()),
  ],
  map_features: [
    fld('kind', new Utf8()),
    fld('feature_id', new Int32()),
    fld('lane_id', new Int32()),
    fld('xy', listOf(new Float32())),
  ],
  traffic_lights: [
    fld('lane_id', new Int32()),
    fld('stop_x', new Float32()),
    fld('stop_y', new Float32()),
    fld('states', listOf(new Uint8())),
  ],
};

function tableSchema(name: Exclude<ScenarioTableName, 'agents'>): Schema {
  return new Schema(TABLE_FIELDS[name], new Map([[SCHEMA_KEY, SCENARIO_TABLES[name]]]));
}

type ListValues = Float32Array | Int32Array | Uint8Array;

/** A list column from per-row arrays (concatenated into one child buffer plus offsets). */
function listData(rows: readonly ArrayLike<number>[], make: (n: number) => ListValues): Data {
  const offsets = new Int32Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) offsets[i + 1] = offsets[i] + rows[i].length;
  const values = make(offsets[rows.length]);
  for (let i = 0; i < rows.length; i++) values.set(rows[i], offsets[i]);
  const childType =
    values instanceof Float32Array ? new Float32() : values instanceof Int32Array ? new Int32() : new Uint8();
  const child = makeData({ type: childType, length: values.length, nullCount: 0, data: values } as never);
  return makeData({
    type: listOf(childType),
    length: rows.length,
    nullCount: 0,
    valueOffsets: offsets,
    child,
  });
}

/** The rows of a list column as copies of the right typed array. */
function readList<T extends ListValues>(batch: RecordBatch, name: string): T[] {
  const out: T[] = [];
  const col = batch.getChild(name)!;
  for (const d of col.data) {
    const offsets = d.valueOffsets as Int32Array;
    const child = d.children[0];
    const values = child.values as T;
    for (let i = 0; i < d.length; i++) {
      const a = offsets[d.offset + i] + child.offset;
      const b = offsets[d.offset + i + 1] + child.offset;
      out.push(values.slice(a, b) as T);
    }
  }
  return out;
}

function readNumbers(batch: RecordBatch, name: string): Float64Array {
  const col = batch.getChild(name)!;
  const out = new Float64Array(col.length);
  let k = 0;
  for (const d of col.data) {
    const v = d.values as Float32Array | Int32Array;
    for (let i = 0; i < d.length; i++) out[k++] = v[d.offset + i];
  }
  return out;
}

function checkTable(batch: RecordBatch, name: Exclude<ScenarioTableName, 'agents'>, where: string): void {
  const version = batch.schema.metadata.get(SCHEMA_KEY);
  if (version !== undefined && version !== SCENARIO_TABLES[name])
    throw new SchemaError(`${where}: schema is ${version}, expected ${SCENARIO_TABLES[name]}`);
  for (const f of TABLE_FIELDS[name]) {
    const c = batch.schema.fields.find((x) => x.name === f.name);
    if (!c) throw new SchemaError(`${where}: column '${f.name}' is missing (${SCENARIO_TABLES[name]})`);
    const ok =
      c.type.typeId === f.type.typeId &&
      (f.type.typeId !== Type.List || String(c.type.children[0].type) === String(f.type.children[0].type));
    if (!ok || (c.type.typeId !== Type.List && String(c.type) !== String(f.type)))
      throw new SchemaError(
        `${where}: column '${f.name}' has type ${String(c.type)}, expected ${String(f.type)}`,
      );
  }
}

export interface ScenarioHeader {
  id: string;
  source: string;
  dt_s: number;
  num_steps: number;
  current_step: number;
  /** Rows of WOMD's tracks_to_predict (absent when the source names none). */
  tracks_to_predict?: number[];
}

/** Agent tracks as AgentStates rows, agent-major (the memory order of Scenario.agents). */
export function scenarioToAgentStates(s: Scenario): AgentStates {
  const a = s.agents;
  const n = a.ids.length;
  const T = s.numSteps;
  const rows = n * T;
  const step = new Int32Array(rows);
  const agentId = new Int32Array(rows);
  const length = new Float32Array(rows);
  const width = new Float32Array(rows);
  const height = new Float32Array(rows);
  const type = new Array<string>(rows);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < T; t++) {
      const k = i * T + t;
      step[k] = t;
      agentId[k] = a.ids[i];
      type[k] = a.types[i];
      length[k] = a.length[i];
      width[k] = a.width[i];
      height[k] = a.height[i];
    }
  }
  return {
    scenarioId: new Array<string>(rows).fill(s.id),
    step,
    agentId,
    type,
    x: a.x,
    y: a.y,
    z: a.z,
    yaw: a.yaw,
    vx: a.vx,
    vy: a.vy,
    length,
    width,
    height,
    valid: a.valid,
  };
}

export function scenarioToBatches(s: Scenario): Record<ScenarioTableName, RecordBatch> {
  const header: ScenarioHeader = {
    id: s.id,
    source: s.source,
    dt_s: s.dtS,
    num_steps: s.numSteps,
    current_step: s.currentStep,
    ...(s.tracksToPredict ? { tracks_to_predict: Array.from(s.tracksToPredict) } : {}),
  };
  const a = s.agents;
  const n = a.ids.length;
  const isEgo = new Uint8Array(n);
  if (s.egoIndex >= 0) isEgo[s.egoIndex] = 1;
  const m = s.map;
  const feats: { kind: FeatureKind; f: MapFeature; laneId: number }[] = [
    ...m.roadEdges.map((f) => ({ kind: 'road_edge' as const, f, laneId: -1 })),
    ...m.drivableAreas.map((f) => ({ kind: 'drivable_area' as const, f, laneId: -1 })),
    ...m.crosswalks.map((f) => ({ kind: 'crosswalk' as const, f, laneId: -1 })),
    ...m.sidewalks.map((f) => ({ kind: 'sidewalk' as const, f, laneId: -1 })),
    ...m.stopLines.map((f) => ({ kind: 'stop_line' as const, f, laneId: f.laneId })),
  ];
  const f32 = (n: number) => new Float32Array(n);
  const i32 = (n: number) => new Int32Array(n);
  return {
    agents: agentStatesToBatch(scenarioToAgentStates(s), { [HEADER_KEY]: JSON.stringify(header) }),
    agent_info: batchFromColumns(tableSchema('agent_info'), [
      numericData(a.ids),
      utf8Data(a.types),
      numericData(a.length),
      numericData(a.width),
      numericData(a.height),
      boolData(isEgo),
      boolData(s.controlled),
      numericData(s.goalX),
      numericData(s.goalY),
      listData(s.routes, i32),
    ]),
    lanes: batchFromColumns(tableSchema('lanes'), [
      numericData(Int32Array.from(m.lanes, (l) => l.id)),
      listData(
        m.lanes.map((l) => l.xy),
        f32,
      ),
      numericData(Float32Array.from(m.lanes, (l) => l.widthM)),
      numericData(Float32Array.from(m.lanes, (l) => l.speedLimitMps)),
      listData(
        m.lanes.map((l) => l.successors),
        i32,
      ),
      listData(
        m.lanes.map((l) => l.predecessors),
        i32,
      ),
      listData(
        m.lanes.map((l) => l.leftNeighbors),
        i32,
      ),
      listData(
        m.lanes.map((l) => l.rightNeighbors),
        i32,
      ),
      boolData(Uint8Array.from(m.lanes, (l) => (l.inIntersection ? 1 : 0))),
    ]),
    map_features: batchFromColumns(tableSchema('map_features'), [
      utf8Data(feats.map((x) => x.kind)),
      numericData(Int32Array.from(feats, (x) => x.f.id)),
      numericData(Int32Array.from(feats, (x) => x.laneId)),
      listData(
        feats.map((x) => x.f.xy),
        f32,
      ),
    ]),
    traffic_lights: batchFromColumns(tableSchema('traffic_lights'), [
      numericData(Int32Array.from(m.trafficLights, (l) => l.laneId)),
      numericData(Float32Array.from(m.trafficLights, (l) => l.stopX)),
      numericData(Float32Array.from(m.trafficLights, (l) => l.stopY)),
      listData(
        m.trafficLights.map((l) => l.states),
        (k) => new Uint8Array(k),
      ),
    ]),
  };
}

/** Rebuild a Scenario from its tables (each may hold several record batches). */
export function batchesToScenario(
  tables: Record<ScenarioTableName, RecordBatch[]>,
  where: (name: ScenarioTableName) => string,
): Scenario {
  const agentBatches = tables.agents;
  if (agentBatches.length === 0) throw new SchemaError(`${where('agents')}: no record batch`);
  const rawHeader = agentBatches[0].schema.metadata.get(HEADER_KEY);
  if (rawHeader === undefined)
    throw new SchemaError(`${where('agents')}: metadata '${HEADER_KEY}' is missing`);
  let header: ScenarioHeader;
  try {
    header = JSON.parse(rawHeader) as ScenarioHeader;
  } catch {
    throw new SchemaError(`${where('agents')}: metadata '${HEADER_KEY}' is not JSON`);
  }
  const T = header.num_steps;
  if (!Number.isInteger(T) || T < 1) throw new SchemaError(`${where('agents')}: num_steps ${T} is invalid`);

  // Per-agent attributes fix the track order.
  const ids: number[] = [];
  const types: string[] = [];
  const size: number[][] = [[], [], []];
  const ego: number[] = [];
  const controlled: number[] = [];
  const gx: number[] = [];
  const gy: number[] = [];
  const routes: number[][] = [];
  for (const b of tables.agent_info) {
    checkTable(b, 'agent_info', where('agent_info'));
    ids.push(...readNumbers(b, 'agent_id'));
    types.push(...readUtf8(b, 'type'));
    size[0].push(...readNumbers(b, 'length'));
    size[1].push(...readNumbers(b, 'width'));
    size[2].push(...readNumbers(b, 'height'));
    ego.push(...readBool(b, 'is_ego'));
    controlled.push(...readBool(b, 'controlled'));
    gx.push(...readNumbers(b, 'goal_x'));
    gy.push(...readNumbers(b, 'goal_y'));
    routes.push(...readList<Int32Array>(b, 'route').map((r) => Array.from(r)));
  }
  const n = ids.length;
  const tracks = allocateAgentTracks(n, T);
  tracks.ids.set(ids);
  tracks.types = types as AgentType[];
  tracks.length.set(size[0]);
  tracks.width.set(size[1]);
  tracks.height.set(size[2]);
  const row = new Map<number, number>();
  ids.forEach((id, i) => row.set(id, i));
  for (const b of agentBatches) {
    const st = batchToAgentStates(b, where('agents'));
    for (let k = 0; k < st.step.length; k++) {
      const i = row.get(st.agentId[k]);
      const t = st.step[k];
      if (i === undefined)
        throw new SchemaError(`${where('agents')}: agent ${st.agentId[k]} is not in agent_info`);
      if (!(t >= 0 && t < T)) throw new SchemaError(`${where('agents')}: step ${t} outside [0, ${T})`);
      const j = i * T + t;
      tracks.x[j] = st.x[k];
      tracks.y[j] = st.y[k];
      tracks.z[j] = st.z[k];
      tracks.yaw[j] = st.yaw[k];
      tracks.vx[j] = st.vx[k];
      tracks.vy[j] = st.vy[k];
      tracks.valid[j] = st.valid[k];
    }
  }

  const map = emptyMap();
  for (const b of tables.lanes) {
    checkTable(b, 'lanes', where('lanes'));
    const laneId = readNumbers(b, 'lane_id');
    const xy = readList<Float32Array>(b, 'xy');
    const w = readNumbers(b, 'width_m');
    const v = readNumbers(b, 'speed_limit_mps');
    const succ = readList<Int32Array>(b, 'successors');
    const pred = readList<Int32Array>(b, 'predecessors');
    const left = readList<Int32Array>(b, 'left_neighbors');
    const right = readList<Int32Array>(b, 'right_neighbors');
    const inter = readBool(b, 'in_intersection');
    for (let i = 0; i < laneId.length; i++) {
      const lane: Lane = {
        id: laneId[i],
        xy: xy[i],
        widthM: w[i],
        speedLimitMps: v[i],
        successors: Array.from(succ[i]),
        predecessors: Array.from(pred[i]),
        leftNeighbors: Array.from(left[i]),
        rightNeighbors: Array.from(right[i]),
        inIntersection: inter[i] === 1,
      };
      map.lanes.push(lane);
    }
  }
  for (const b of tables.map_features) {
    checkTable(b, 'map_features', where('map_features'));
    const kind = readUtf8(b, 'kind');
    const fid = readNumbers(b, 'feature_id');
    const lane = readNumbers(b, 'lane_id');
    const xy = readList<Float32Array>(b, 'xy');
    for (let i = 0; i < kind.length; i++) {
      const f: MapFeature = { id: fid[i], xy: xy[i] };
      switch (kind[i] as FeatureKind) {
        case 'road_edge':
          map.roadEdges.push(f);
          break;
        case 'drivable_area':
          map.drivableAreas.push(f);
          break;
        case 'crosswalk':
          map.crosswalks.push(f);
          break;
        case 'sidewalk':
          map.sidewalks.push(f);
          break;
        case 'stop_line':
          map.stopLines.push({ ...f, laneId: lane[i] } as StopLine);
          break;
        default:
          throw new SchemaError(`${where('map_features')}: unknown feature kind '${kind[i]}'`);
      }
    }
  }
  for (const b of tables.traffic_lights) {
    checkTable(b, 'traffic_lights', where('traffic_lights'));
    const lane = readNumbers(b, 'lane_id');
    const sx = readNumbers(b, 'stop_x');
    const sy = readNumbers(b, 'stop_y');
    const states = readList<Uint8Array>(b, 'states');
    for (let i = 0; i < lane.length; i++) {
      const l: TrafficLight = { laneId: lane[i], stopX: sx[i], stopY: sy[i], states: states[i] };
      map.trafficLights.push(l);
    }
  }
  return {
    id: header.id,
    source: header.source,
    dtS: header.dt_s,
    numSteps: T,
    currentStep: header.current_step,
    map,
    agents: tracks,
    egoIndex: ego.indexOf(1),
    ...(Array.isArray(header.tracks_to_predict)
      ? { tracksToPredict: Int32Array.from(header.tracks_to_predict) }
      : {}),
    controlled: Uint8Array.from(controlled),
    goalX: Float32Array.from(gx),
    goalY: Float32Array.from(gy),
    routes,
  };
}
