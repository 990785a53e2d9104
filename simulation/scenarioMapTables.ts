// The map tables of a scenario directory: lanes, map_features and traffic_lights (schemas in
// scenarioTables.ts), with the WOMD facts kept since their /2 versions, plus the lane links table.
import {
  Bool,
  type DataType,
  Field,
  Float32,
  Int32,
  type RecordBatch,
  type Schema,
  Utf8,
} from 'apache-arrow';
import {
  batchFromColumns,
  boolData,
  numericData,
  readBool,
  readUtf8,
  utf8Data,
} from '../core/arrow/columns.ts';
import { SchemaError } from '../core/arrow/validate.ts';
import {
  emptyMap,
  type Lane,
  type MapFeature,
  type RoadMap,
  type StopLine,
  type TrafficLight,
  LIGHT,
  LIGHT_NAMES,
  NO_SIGNAL_STATE,
  SIGNAL_STATE_NAMES,
} from './scenario.ts';
import {
  codeListData,
  codeListType,
  listData,
  listOf,
  readCodeList,
  readList,
  readNumbers,
} from './scenarioColumns.ts';
import { dictCodeType } from '../core/arrow/dictionary.ts';

/** Light states as named values: the LIGHT code is the dictionary index (one type: one id per file). */
const LIGHT_STATE_TYPE = dictCodeType();
const SIGNAL_STATE_TYPE = dictCodeType();
import { applyLaneLinks, laneLinksBatch } from './scenarioLaneLinks.ts';

export const FEATURE_KINDS = [
  'road_edge',
  'drivable_area',
  'crosswalk',
  'sidewalk',
  'stop_line',
  'road_line',
  'speed_bump',
  'driveway',
  'stop_sign',
] as const;
type FeatureKind = (typeof FEATURE_KINDS)[number];

const fld = (name: string, type: DataType) => new Field(name, type, false);

export type MapTable = 'lanes' | 'map_features' | 'traffic_lights';

/** The columns of the /1 map tables (every later version has them too). */
export const MAP_FIELDS: Record<MapTable, Field[]> = {
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
    fld('states', codeListType(LIGHT_STATE_TYPE)),
  ],
};

/** Columns added by the current versions (absent in /1 files: read as unknown). */
export const LATER_MAP_FIELDS: Partial<Record<MapTable, Field[]>> = {
  lanes: [fld('z', listOf(new Float32())), fld('lane_type', new Utf8()), fld('interpolating', new Bool())],
  map_features: [fld('type', new Utf8()), fld('z', listOf(new Float32())), fld('lanes', listOf(new Int32()))],
  traffic_lights: [fld('stop_z', new Float32()), fld('signal_states', codeListType(SIGNAL_STATE_TYPE, true))],
};

/** A map as its three tables plus the lane links. */
export function mapToBatches(m: RoadMap, tableSchema: (name: MapTable) => Schema) {
  const feats: { kind: FeatureKind; f: MapFeature; laneId: number; lanes?: number[] }[] = [
    ...m.roadEdges.map((f) => ({ kind: 'road_edge' as const, f, laneId: -1 })),
    ...m.drivableAreas.map((f) => ({ kind: 'drivable_area' as const, f, laneId: -1 })),
    ...m.crosswalks.map((f) => ({ kind: 'crosswalk' as const, f, laneId: -1 })),
    ...m.sidewalks.map((f) => ({ kind: 'sidewalk' as const, f, laneId: -1 })),
    ...m.stopLines.map((f) => ({ kind: 'stop_line' as const, f, laneId: f.laneId })),
    ...(m.roadLines ?? []).map((f) => ({ kind: 'road_line' as const, f, laneId: -1 })),
    ...(m.speedBumps ?? []).map((f) => ({ kind: 'speed_bump' as const, f, laneId: -1 })),
    ...(m.driveways ?? []).map((f) => ({ kind: 'driveway' as const, f, laneId: -1 })),
    ...(m.stopSigns ?? []).map((g) => ({
      kind: 'stop_sign' as const,
      f: { id: g.id, xy: Float32Array.of(g.x, g.y), z: Float32Array.of(g.z) },
      laneId: -1,
      lanes: g.lanes,
    })),
  ];
  const none = new Float32Array(0);
  const f32 = (n: number) => new Float32Array(n);
  const i32 = (n: number) => new Int32Array(n);
  return {
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
      listData(
        m.lanes.map((l) => l.z ?? none),
        f32,
      ),
      utf8Data(m.lanes.map((l) => l.laneType ?? '')),
      boolData(Uint8Array.from(m.lanes, (l) => (l.interpolating ? 1 : 0))),
    ]),
    map_features: batchFromColumns(tableSchema('map_features'), [
      utf8Data(feats.map((x) => x.kind)),
      numericData(Int32Array.from(feats, (x) => x.f.id)),
      numericData(Int32Array.from(feats, (x) => x.laneId)),
      listData(
        feats.map((x) => x.f.xy),
        f32,
      ),
      utf8Data(feats.map((x) => x.f.type ?? '')),
      listData(
        feats.map((x) => x.f.z ?? none),
        f32,
      ),
      listData(
        feats.map((x) => x.lanes ?? []),
        i32,
      ),
    ]),
    traffic_lights: batchFromColumns(tableSchema('traffic_lights'), [
      numericData(Int32Array.from(m.trafficLights, (l) => l.laneId)),
      numericData(Float32Array.from(m.trafficLights, (l) => l.stopX)),
      numericData(Float32Array.from(m.trafficLights, (l) => l.stopY)),
      codeListData(
        m.trafficLights.map((l) => l.states),
        LIGHT_NAMES,
        LIGHT_STATE_TYPE,
      ),
      numericData(Float32Array.from(m.trafficLights, (l) => l.stopZ ?? NaN)),
      codeListData(
        m.trafficLights.map((l) => l.signalStates ?? new Uint8Array(0)),
        SIGNAL_STATE_NAMES,
        SIGNAL_STATE_TYPE,
        NO_SIGNAL_STATE,
      ),
    ]),
    lane_links: laneLinksBatch(m.lanes),
  };
}

/** A map from its tables (each checked by `check`); `T` steps for the light states. */
export function batchesToMap(
  tables: {
    lanes: RecordBatch[];
    map_features: RecordBatch[];
    traffic_lights: RecordBatch[];
    lane_links?: RecordBatch[];
  },
  where: (name: MapTable | 'lane_links') => string,
  T: number,
  checkTable: (b: RecordBatch, name: MapTable, where: string) => void,
): RoadMap {
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
    const has = (c: string) => b.schema.fields.some((f) => f.name === c);
    const z = has('z') ? readList<Float32Array>(b, 'z') : null;
    const laneType = has('lane_type') ? readUtf8(b, 'lane_type') : null;
    const interp = has('interpolating') ? readBool(b, 'interpolating') : null;
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
      if (z && z[i].length > 0) lane.z = z[i];
      if (laneType?.[i]) {
        lane.laneType = laneType[i] as Lane['laneType'];
        lane.interpolating = interp![i] === 1;
      }
      map.lanes.push(lane);
    }
  }
  for (const b of tables.map_features) {
    checkTable(b, 'map_features', where('map_features'));
    const kind = readUtf8(b, 'kind');
    const fid = readNumbers(b, 'feature_id');
    const lane = readNumbers(b, 'lane_id');
    const xy = readList<Float32Array>(b, 'xy');
    const has = (c: string) => b.schema.fields.some((x) => x.name === c);
    const type = has('type') ? readUtf8(b, 'type') : null;
    const z = has('z') ? readList<Float32Array>(b, 'z') : null;
    const lanes = has('lanes') ? readList<Int32Array>(b, 'lanes') : null;
    map.roadLines ??= [];
    map.speedBumps ??= [];
    map.driveways ??= [];
    map.stopSigns ??= [];
    for (let i = 0; i < kind.length; i++) {
      const f: MapFeature = { id: fid[i], xy: xy[i] };
      if (z && z[i].length > 0) f.z = z[i];
      if (type?.[i]) f.type = type[i];
      switch (kind[i] as FeatureKind) {
        case 'road_line':
          map.roadLines.push(f);
          break;
        case 'speed_bump':
          map.speedBumps.push(f);
          break;
        case 'driveway':
          map.driveways.push(f);
          break;
        case 'stop_sign':
          map.stopSigns.push({
            id: f.id,
            lanes: Array.from(lanes?.[i] ?? []),
            x: f.xy[0],
            y: f.xy[1],
            z: f.z?.[0] ?? 0,
          });
          break;
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
    const states = readCodeList(b, 'states', LIGHT.unknown);
    const has = (c: string) => b.schema.fields.some((x) => x.name === c);
    const sz = has('stop_z') ? readNumbers(b, 'stop_z') : null;
    const signal = has('signal_states') ? readCodeList(b, 'signal_states', NO_SIGNAL_STATE) : null;
    for (let i = 0; i < lane.length; i++) {
      const l: TrafficLight = { laneId: lane[i], stopX: sx[i], stopY: sy[i], states: states[i] };
      if (sz && Number.isFinite(sz[i])) l.stopZ = sz[i];
      if (signal && signal[i].length === T) l.signalStates = signal[i];
      else if (signal && signal[i].length > 0)
        throw new SchemaError(
          `${where('traffic_lights')}: row ${i} has ${signal[i].length} signal states, expected ${T}`,
        );
      map.trafficLights.push(l);
    }
  }
  applyLaneLinks(map.lanes, tables.lane_links ?? [], where('lane_links'));
  // Kinds a scenario has none of stay absent (as a scenario built in memory has them).
  for (const k of ['roadLines', 'speedBumps', 'driveways', 'stopSigns'] as const)
    if (map[k]?.length === 0) delete map[k];
  return map;
}
