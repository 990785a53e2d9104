// A Scenario as six Arrow tables: agent states (the shared AgentStates record), per-agent attributes,
// lanes, other map features, traffic lights and lane links (schemas below, versioned like core/arrow/schemas.ts).
import {
  Bool,
  DataType,
  Dictionary,
  Field,
  Float32,
  Int32,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Type,
  Utf8,
} from 'apache-arrow';
import { agentStatesToBatch, batchToAgentStates } from '../core/arrow/codec.ts';
import { batchFromColumns, boolData, numericData, readBool, readUtf8 } from '../core/arrow/columns.ts';
import type { AgentStates } from '../core/arrow/records.ts';
import { SCHEMA_KEY } from '../core/arrow/schemas.ts';
import { readableAs, SchemaError } from '../core/arrow/validate.ts';
import { dictUtf8Data, dictUtf8Type } from '../core/arrow/dictionary.ts';
import { listData, listOf, readList, readNumbers } from './scenarioColumns.ts';
import { LANE_LINKS_SCHEMA } from './scenarioLaneLinks.ts';
import { batchesToMap, LATER_MAP_FIELDS, MAP_FIELDS, mapToBatches } from './scenarioMapTables.ts';
import { allocateAgentTracks, type AgentType, type Scenario } from './scenario.ts';
import { AGENT_TYPES } from './validateScenario.ts';

/**
 * Table names (file stems of a scenario directory) and their schema versions:
 * - `agents` (agent_states/1): one row per (agent, step), agent-major in track order, `type`
 *   dictionary-encoded as in agent_info (readers take plain utf8 too); the schema metadata
 *   `drivekit.scenario` holds the header {id, source, dt_s, num_steps, current_step}.
 * - `agent_info` (scenario_agents/2; /1 had a plain utf8 type): one row per agent in track order:
 *   agent_id, type (dictionary-encoded), length,
 *   width, height, is_ego, controlled, goal_x, goal_y (NaN when none), route (list<int32> lane ids).
 * - `lanes` (scenario_lanes/2): lane_id, xy (list<float32>, interleaved x0,y0,x1,y1,…), width_m,
 *   speed_limit_mps, successors, predecessors, left_neighbors, right_neighbors (list<int32>),
 *   in_intersection; since /2 the source's z (list<float32>, one per point; empty: unknown), lane_type
 *   ('' unknown) and interpolating.
 * - `map_features` (scenario_map_features/2): kind ('road_edge' | 'drivable_area' | 'crosswalk' |
 *   'sidewalk' | 'stop_line', since /2 also 'road_line' | 'speed_bump' | 'driveway' | 'stop_sign'),
 *   feature_id, lane_id (the controlled lane of a stop line, else −1), xy; since /2 type (road-line /
 *   road-edge type name, else ''), z (list<float32>; empty: unknown), lanes (a stop sign's lanes).
 * - `traffic_lights` (scenario_traffic_lights/2): lane_id, stop_x, stop_y, states (one named state
 *   per step, dictionary-encoded with the LIGHT code as index: unknown, red, yellow, green; /1: a
 *   list<uint8> of the codes); since /2 stop_z (NaN: unknown) and signal_states (the source's state
 *   per step, dictionary-encoded over SIGNAL_STATE_NAMES, null where the source lists none; empty:
 *   not kept).
 * - `lane_links` (scenario_lane_links/1, optional): see scenarioLaneLinks.ts.
 * The /1 tables (without the later columns) still read.
 */
export const SCENARIO_TABLES = {
  agents: 'agent_states/1',
  agent_info: 'scenario_agents/2',
  lanes: 'scenario_lanes/2',
  map_features: 'scenario_map_features/2',
  traffic_lights: 'scenario_traffic_lights/2',
  lane_links: LANE_LINKS_SCHEMA,
} as const;

/** Versions before the current one that still read (their later columns absent). */
const OLDER: Partial<Record<ScenarioTableName, string>> = {
  agent_info: 'scenario_agents/1',
  lanes: 'scenario_lanes/1',
  map_features: 'scenario_map_features/1',
  traffic_lights: 'scenario_traffic_lights/1',
};

export type ScenarioTableName = keyof typeof SCENARIO_TABLES;
export const HEADER_KEY = 'drivekit.scenario';

export { FEATURE_KINDS } from './scenarioMapTables.ts';

const fld = (name: string, type: DataType) => new Field(name, type, false);
type FieldTable = Exclude<ScenarioTableName, 'agents' | 'lane_links'>;

const TABLE_FIELDS: Record<FieldTable, Field[]> = {
  agent_info: [
    fld('agent_id', new Int32()),
    fld('type', new Dictionary(new Utf8(), new Int32())),
    fld('length', new Float32()),
    fld('width', new Float32()),
    fld('height', new Float32()),
    fld('is_ego', new Bool()),
    fld('controlled', new Bool()),
    fld('goal_x', new Float32()),
    fld('goal_y', new Float32()),
    fld('route', listOf(new Int32())),
  ],
  ...MAP_FIELDS,
};

/** Columns added by the current versions (absent in /1 files: read as unknown). */
const LATER_FIELDS: Partial<Record<FieldTable, Field[]>> = LATER_MAP_FIELDS;

function tableSchema(name: FieldTable): Schema {
  const fields = [...TABLE_FIELDS[name], ...(LATER_FIELDS[name] ?? [])];
  return new Schema(fields, new Map([[SCHEMA_KEY, SCENARIO_TABLES[name]]]));
}

function checkTable(batch: RecordBatch, name: FieldTable, where: string): void {
  const version = batch.schema.metadata.get(SCHEMA_KEY);
  if (version !== undefined && version !== SCENARIO_TABLES[name] && version !== OLDER[name])
    throw new SchemaError(`${where}: schema is ${version}, expected ${SCENARIO_TABLES[name]}`);
  const later = version === SCENARIO_TABLES[name] ? (LATER_FIELDS[name] ?? []) : [];
  for (const f of [...TABLE_FIELDS[name], ...later]) {
    const c = batch.schema.fields.find((x) => x.name === f.name);
    if (!c) throw new SchemaError(`${where}: column '${f.name}' is missing (${SCENARIO_TABLES[name]})`);
    // Lists of named codes read from plain integer codes (/1) or dictionary-encoded ones (/2).
    const named = (t: DataType) => DataType.isDictionary(t) || DataType.isInt(t);
    const ok =
      f.type.typeId === Type.List
        ? c.type.typeId === Type.List &&
          (String(c.type.children[0].type) === String(f.type.children[0].type) ||
            (named(c.type.children[0].type) && named(f.type.children[0].type)))
        : readableAs(c.type, f.type);
    if (!ok)
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
  /** Their WOMD difficulty, the source's agents of interest (ids) and step times (s), where kept. */
  prediction_difficulty?: number[];
  objects_of_interest?: number[];
  timestamps_s?: number[];
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
      length[k] = a.stepLength ? a.stepLength[k] : a.length[i];
      width[k] = a.stepWidth ? a.stepWidth[k] : a.width[i];
      height[k] = a.stepHeight ? a.stepHeight[k] : a.height[i];
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

/** An AgentStates batch with its `type` column dictionary-encoded over AGENT_TYPES (one encoding per directory). */
function typeAsDictionary(b: RecordBatch, types: readonly string[]): RecordBatch {
  const k = b.schema.fields.findIndex((f) => f.name === 'type');
  const fields = b.schema.fields.map((f, i) => (i === k ? new Field('type', dictUtf8Type(), false) : f));
  const children = b.data.children.map((c, i) => (i === k ? dictUtf8Data(types, AGENT_TYPES) : c));
  const data = makeData({ type: new Struct(fields), length: b.numRows, nullCount: 0, children });
  return new RecordBatch(new Schema(fields, b.schema.metadata), data);
}

export function scenarioToBatches(s: Scenario): Record<ScenarioTableName, RecordBatch> {
  const header: ScenarioHeader = {
    id: s.id,
    source: s.source,
    dt_s: s.dtS,
    num_steps: s.numSteps,
    current_step: s.currentStep,
    ...(s.tracksToPredict ? { tracks_to_predict: Array.from(s.tracksToPredict) } : {}),
    ...(s.predictionDifficulty ? { prediction_difficulty: Array.from(s.predictionDifficulty) } : {}),
    ...(s.objectsOfInterest ? { objects_of_interest: Array.from(s.objectsOfInterest) } : {}),
    ...(s.timestampsS ? { timestamps_s: Array.from(s.timestampsS) } : {}),
  };
  const a = s.agents;
  const n = a.ids.length;
  const isEgo = new Uint8Array(n);
  if (s.egoIndex >= 0) isEgo[s.egoIndex] = 1;
  const i32 = (n: number) => new Int32Array(n);
  return {
    agents: (() => {
      const st = scenarioToAgentStates(s);
      return typeAsDictionary(agentStatesToBatch(st, { [HEADER_KEY]: JSON.stringify(header) }), st.type);
    })(),
    agent_info: batchFromColumns(tableSchema('agent_info'), [
      numericData(a.ids),
      dictUtf8Data(a.types, AGENT_TYPES),
      numericData(a.length),
      numericData(a.width),
      numericData(a.height),
      boolData(isEgo),
      boolData(s.controlled),
      numericData(s.goalX),
      numericData(s.goalY),
      listData(s.routes, i32),
    ]),
    ...mapToBatches(s.map, tableSchema),
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
  const stepSize = [new Float32Array(n * T), new Float32Array(n * T), new Float32Array(n * T)];
  for (let i = 0; i < n; i++) for (let j = 0; j < 3; j++) stepSize[j].fill(size[j][i], i * T, (i + 1) * T);
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
      stepSize[0][j] = st.length[k];
      stepSize[1][j] = st.width[k];
      stepSize[2][j] = st.height[k];
    }
  }
  // Sizes that change from step to step (WOMD) are kept per step; otherwise the agent's size holds.
  let varies = false;
  for (let j = 0; j < n * T && !varies; j++) {
    const i = Math.floor(j / T);
    varies = stepSize[0][j] !== tracks.length[i] || stepSize[1][j] !== tracks.width[i];
    varies ||= stepSize[2][j] !== tracks.height[i];
  }
  if (varies) [tracks.stepLength, tracks.stepWidth, tracks.stepHeight] = stepSize;

  const map = batchesToMap(tables, where, T, checkTable);
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
    ...(Array.isArray(header.prediction_difficulty)
      ? { predictionDifficulty: Uint8Array.from(header.prediction_difficulty) }
      : {}),
    ...(Array.isArray(header.objects_of_interest)
      ? { objectsOfInterest: Int32Array.from(header.objects_of_interest) }
      : {}),
    ...(Array.isArray(header.timestamps_s) ? { timestampsS: Float64Array.from(header.timestamps_s) } : {}),
    controlled: Uint8Array.from(controlled),
    goalX: Float32Array.from(gx),
    goalY: Float32Array.from(gy),
    routes,
  };
}
