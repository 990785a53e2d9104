// ScenarioNet scenario description (a pickled dict: tracks, dynamic_map_states, map_features, metadata;
// MetaDrive's ScenarioDescription) → the simulator's Scenario, through the WOMD importer; lane polygons
// (nuScenes) become the drivable area, ScenarioNet's lane widths the lane widths.
import { InputError } from '../../core/errors.ts';
import type { NdArray } from '../../datasets/numpyArray.ts';
import { type PyDict, PyTuple, type PyValue } from '../../datasets/pickleValues.ts';
import {
  WOMD_OBJECT_TYPE,
  type WomdBoundary,
  type WomdLane,
  type WomdLaneNeighbor,
  type WomdPolyFeature,
  type WomdScenario,
  type WomdSignalState,
  type WomdStopSign,
  type WomdTrack,
} from '../../datasets/womd.ts';
import {
  LANE_TYPES,
  ROAD_EDGE_TYPES,
  ROAD_LINE_TYPES,
  SIGNAL_STATE_NAMES,
  type Scenario,
} from '../scenario.ts';
import { womdToScenario } from './womdScenario.ts';

export interface ScenarioNetImportConfig {
  /** The current step when the description gives none or 0 (ScenarioNet's WOMD and nuScenes do). */
  currentStep: number;
  /** Lane widths from ScenarioNet's width array or lane polygon are clamped to this range, metres. */
  minLaneWidthM: number;
  /** The largest lane width taken from ScenarioNet's estimate or a lane polygon, metres. */
  maxLaneWidthM: number;
}

export const DEFAULT_SCENARIONET_IMPORT: ScenarioNetImportConfig = {
  currentStep: 10,
  minLaneWidthM: 2.5,
  maxLaneWidthM: 5.0,
};

const isDict = (v: PyValue | undefined): v is PyDict => v instanceof Map;
const isArr = (v: PyValue | undefined): v is NdArray =>
  typeof v === 'object' && v !== null && (v as NdArray).kind === 'ndarray';

/** Accessors that name the file and the field in every error. */
function reader(file: string) {
  const fail = (what: string): never => {
    throw new InputError(file, `ScenarioNet: ${what}`);
  };
  const dict = (v: PyValue | undefined, where: string): PyDict =>
    isDict(v) ? v : fail(`${where} is not a dict`);
  const list = (v: PyValue | undefined): PyValue[] =>
    Array.isArray(v)
      ? v
      : v instanceof PyTuple
        ? v.items
        : isArr(v)
          ? Array.from(v.data as ArrayLike<number>)
          : [];
  const str = (v: PyValue | undefined): string | null =>
    typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
  const numbers = (v: PyValue | undefined, where: string): Float64Array => {
    if (isArr(v)) {
      if (!(v.data instanceof Float64Array || v.data instanceof Uint8Array))
        fail(`${where}: an object array`);
      return Float64Array.from(v.data as ArrayLike<number>);
    }
    if (typeof v === 'number' || typeof v === 'boolean') return Float64Array.of(Number(v));
    const items = list(v);
    return Float64Array.from(items, (x) =>
      typeof x === 'number' || typeof x === 'boolean' ? Number(x) : NaN,
    );
  };
  /** Points as [x, y, z, …] from an (n, 2|3) array or a list of 2- or 3-sequences. */
  const points = (v: PyValue | undefined, where: string): Float64Array => {
    if (isArr(v)) {
      const cols = v.shape.length === 2 ? v.shape[1] : v.shape.length === 1 ? v.shape[0] : 0;
      const n = v.shape.length === 2 ? v.shape[0] : 1;
      if (cols !== 2 && cols !== 3) return fail(`${where} has shape [${v.shape.join(', ')}], not (n, 2|3)`);
      const d = v.data as ArrayLike<number>;
      const out = new Float64Array(3 * n);
      for (let i = 0; i < n; i++) {
        out[3 * i] = d[i * cols];
        out[3 * i + 1] = d[i * cols + 1];
        out[3 * i + 2] = cols === 3 ? d[i * cols + 2] : 0;
      }
      return out;
    }
    const items = list(v);
    const out = new Float64Array(3 * items.length);
    items.forEach((p, i) => {
      const q = numbers(p, where);
      if (q.length < 2) fail(`${where}[${i}] is not a point`);
      out[3 * i] = q[0];
      out[3 * i + 1] = q[1];
      out[3 * i + 2] = q.length > 2 ? q[2] : 0;
    });
    return out;
  };
  return { fail, dict, list, str, numbers, points };
}

/** A per-step field (T,) or (T, 1) as T numbers, or a scalar repeated. */
function perStep(v: Float64Array, T: number): Float64Array {
  if (v.length === T) return v;
  if (v.length === 1) return new Float64Array(T).fill(v[0]);
  return Float64Array.from({ length: T }, (_, t) => v[Math.min(t, v.length - 1)] ?? 0);
}

const OBJECT_TYPES: Record<string, number> = {
  VEHICLE: WOMD_OBJECT_TYPE.vehicle,
  PEDESTRIAN: WOMD_OBJECT_TYPE.pedestrian,
  CYCLIST: WOMD_OBJECT_TYPE.cyclist,
};

const SIGNAL_CODES = new Map(SIGNAL_STATE_NAMES.map((n, i) => [`LANE_STATE_${n.toUpperCase()}`, i]));

/** What the description holds beyond a WOMD scenario: the lanes' polygons and width estimates. */
interface LaneExtras {
  polygon?: Float64Array;
  widthM?: number;
}

/** Parse a ScenarioNet scenario description (the unpickled dict) into a WOMD scenario and lane extras. */
export function scenarioNetToWomd(
  desc: PyValue,
  file: string,
  cfg: ScenarioNetImportConfig = DEFAULT_SCENARIONET_IMPORT,
): { womd: WomdScenario; lanes: Map<number, LaneExtras>; dataset: string } {
  const r = reader(file);
  const d = r.dict(desc, 'the scenario');
  const tracksD = r.dict(d.get('tracks'), 'tracks');
  const meta = isDict(d.get('metadata')) ? (d.get('metadata') as PyDict) : new Map<string, PyValue>();
  const mapD = isDict(d.get('map_features')) ? (d.get('map_features') as PyDict) : new Map<string, PyValue>();
  const dynD = isDict(d.get('dynamic_map_states')) ? (d.get('dynamic_map_states') as PyDict) : new Map();
  let T = typeof d.get('length') === 'number' ? (d.get('length') as number) : -1;
  const ts = meta.has('ts') ? r.numbers(meta.get('ts'), 'metadata.ts') : null;
  if (T < 0 && ts) T = ts.length;
  if (!Number.isInteger(T) || T < 2) r.fail(`scenario length ${T} (needs at least 2 steps)`);
  if (tracksD.size === 0) r.fail('no tracks');
  const dt = typeof meta.get('sample_rate') === 'number' ? (meta.get('sample_rate') as number) : 0.1;
  const timestamps =
    ts && ts.length === T ? ts : Float64Array.from({ length: T }, (_, t) => Math.round(t * dt * 1e6) / 1e6);

  // Agent ids: numeric ids kept (WOMD), others (nuScenes tokens, 'ego') numbered by row.
  const keys = [...tracksD.keys()].map(String);
  const numeric = keys.every((k) => /^\d+$/.test(k) && Number(k) < 2 ** 31);
  const rowOf = new Map(keys.map((k, i) => [k, i]));
  const tracks = keys.map((k, i): WomdTrack => {
    const tr = r.dict(tracksD.get(k), `tracks['${k}']`);
    const st = r.dict(tr.get('state'), `tracks['${k}'].state`);
    const type = r.str(tr.get('type')) ?? 'UNSET';
    const pos = r.points(st.get('position'), `tracks['${k}'].state.position`);
    if (pos.length !== 3 * T) r.fail(`tracks['${k}'].state.position has ${pos.length / 3} steps, not ${T}`);
    const vel = st.has('velocity') ? r.numbers(st.get('velocity'), `tracks['${k}'].state.velocity`) : null;
    const valid = r.numbers(st.get('valid'), `tracks['${k}'].state.valid`);
    if (valid.length !== T) r.fail(`tracks['${k}'].state.valid has ${valid.length} steps, not ${T}`);
    const heading = perStep(r.numbers(st.get('heading'), `tracks['${k}'].state.heading`), T);
    const size = (name: string) =>
      Float32Array.from(perStep(r.numbers(st.get(name) ?? 0, `tracks['${k}'].state.${name}`), T));
    return {
      id: numeric ? Number(k) : i,
      objectType: OBJECT_TYPES[type] ?? WOMD_OBJECT_TYPE.other,
      centerX: Float64Array.from({ length: T }, (_, t) => pos[3 * t]),
      centerY: Float64Array.from({ length: T }, (_, t) => pos[3 * t + 1]),
      centerZ: Float64Array.from({ length: T }, (_, t) => pos[3 * t + 2]),
      length: size('length'),
      width: size('width'),
      height: size('height'),
      heading: Float32Array.from(heading),
      velocityX: Float32Array.from({ length: T }, (_, t) => (vel && vel.length === 2 * T ? vel[2 * t] : 0)),
      velocityY: Float32Array.from({ length: T }, (_, t) =>
        vel && vel.length === 2 * T ? vel[2 * t + 1] : 0,
      ),
      valid: Uint8Array.from(valid, (v) => (v ? 1 : 0)),
    };
  });

  // Map feature ids: numeric kept, others numbered after the largest numeric one.
  const fkeys = [...mapD.keys()].map(String);
  let fresh = Math.max(0, ...fkeys.filter((k) => /^\d+$/.test(k)).map(Number)) + 1;
  const fid = new Map<string, number>();
  for (const k of fkeys) fid.set(k, /^\d+$/.test(k) && Number(k) < 2 ** 31 ? Number(k) : fresh++);
  const idOf = (v: PyValue | undefined): number | undefined => {
    const s = r.str(v ?? null);
    return s === null ? undefined : fid.get(s);
  };
  const idsOf = (v: PyValue | undefined) =>
    r
      .list(v)
      .map(idOf)
      .filter((x): x is number => x !== undefined);
  const lineType = (name: string | null) => {
    const i = (ROAD_LINE_TYPES as readonly string[]).indexOf(
      (name ?? '').replace(/^ROAD_LINE_/, '').toLowerCase(),
    );
    return i < 0 ? 0 : i;
  };
  const int = (v: PyValue | undefined) => (typeof v === 'number' ? v : Number(r.str(v ?? null) ?? 0));
  const boundaries = (v: PyValue | undefined): WomdBoundary[] =>
    r.list(v).flatMap((b) =>
      isDict(b)
        ? [
            {
              laneStartIndex: int(b.get('lane_start_index')),
              laneEndIndex: int(b.get('lane_end_index')),
              boundaryFeatureId: idOf(b.get('boundary_feature_id')) ?? -1,
              boundaryType: lineType(r.str(b.get('boundary_type') ?? null)),
            },
          ]
        : [],
    );
  const neighbors = (v: PyValue | undefined): WomdLaneNeighbor[] =>
    r.list(v).flatMap((n) => {
      if (!isDict(n)) return [];
      const id = idOf(n.get('feature_id'));
      return id === undefined
        ? []
        : [
            {
              featureId: id,
              selfStartIndex: int(n.get('self_start_index')),
              selfEndIndex: int(n.get('self_end_index')),
              neighborStartIndex: int(n.get('neighbor_start_index')),
              neighborEndIndex: int(n.get('neighbor_end_index')),
              boundaries: boundaries(n.get('boundaries')),
            },
          ];
    });
  const lanes: WomdLane[] = [];
  const extras = new Map<number, LaneExtras>();
  const features: WomdPolyFeature[] = [];
  const stopSigns: WomdStopSign[] = [];
  for (const k of fkeys) {
    const f = mapD.get(k);
    if (!isDict(f)) continue;
    const id = fid.get(k)!;
    const type = r.str(f.get('type')) ?? '';
    const where = `map_features['${k}']`;
    if (type.startsWith('LANE_')) {
      const polyline = r.points(f.get('polyline'), `${where}.polyline`);
      const laneType = (LANE_TYPES as readonly string[]).indexOf(type.slice(5).toLowerCase());
      lanes.push({
        id,
        speedLimitMph:
          typeof f.get('speed_limit_mph') === 'number' ? (f.get('speed_limit_mph') as number) : 0,
        laneType: laneType < 0 ? 0 : laneType,
        interpolating: f.get('interpolating') === true,
        polyline,
        entryLanes: idsOf(f.get('entry_lanes')),
        exitLanes: idsOf(f.get('exit_lanes')),
        leftNeighbors: neighbors(f.get('left_neighbor')),
        rightNeighbors: neighbors(f.get('right_neighbor')),
        leftBoundaries: boundaries(f.get('left_boundaries')),
        rightBoundaries: boundaries(f.get('right_boundaries')),
      });
      const ex: LaneExtras = {};
      const w = f.get('width');
      if (isArr(w) && w.shape.length === 2 && w.shape[1] === 2) {
        const sums = Array.from(
          { length: w.shape[0] },
          (_, i) => (w.data[2 * i] as number) + (w.data[2 * i + 1] as number),
        );
        sums.sort((a, b) => a - b);
        if (sums.length) ex.widthM = sums[sums.length >> 1];
      }
      if (f.has('polygon')) ex.polygon = r.points(f.get('polygon'), `${where}.polygon`);
      extras.set(id, ex);
    } else if (type.startsWith('ROAD_LINE_')) {
      features.push({
        id,
        kind: 'road_line',
        type: lineType(type),
        points: r.points(f.get('polyline'), where),
      });
    } else if (type.startsWith('ROAD_EDGE_')) {
      const i = (ROAD_EDGE_TYPES as readonly string[]).indexOf(type.toLowerCase());
      features.push({
        id,
        kind: 'road_edge',
        type: i < 0 ? 0 : i,
        points: r.points(f.get('polyline'), where),
      });
    } else if (type === 'CROSSWALK' || type === 'SPEED_BUMP' || type === 'DRIVEWAY') {
      const kind = type.toLowerCase() as 'crosswalk' | 'speed_bump' | 'driveway';
      features.push({ id, kind, type: 0, points: r.points(f.get('polygon') ?? f.get('polyline'), where) });
    } else if (type === 'STOP_SIGN') {
      const p = r.numbers(f.get('position'), `${where}.position`);
      stopSigns.push({ id, lanes: idsOf(f.get('lane')), x: p[0] ?? 0, y: p[1] ?? 0, z: p[2] ?? 0 });
    }
  }

  // Signal states per step (None: the light lists no state at that step).
  const dyn: WomdSignalState[][] = Array.from({ length: T }, () => []);
  for (const [k, v] of dynD) {
    if (!isDict(v)) continue;
    const lane = idOf(v.get('lane')) ?? idOf(k);
    if (lane === undefined) continue;
    const stop = r.numbers(v.get('stop_point'), `dynamic_map_states['${k}'].stop_point`);
    const st = isDict(v.get('state')) ? (v.get('state') as PyDict) : new Map<string, PyValue>();
    r.list(st.get('object_state')).forEach((s, t) => {
      if (t >= T || typeof s !== 'string') return;
      dyn[t].push({
        lane,
        state: SIGNAL_CODES.get(s) ?? 0,
        stopX: stop[0] ?? 0,
        stopY: stop[1] ?? 0,
        stopZ: stop[2] ?? 0,
      });
    });
  }

  const sdcRow = rowOf.get(r.str(meta.get('sdc_id') ?? null) ?? '') ?? -1;
  const ttp: { trackIndex: number; difficulty: number }[] = [];
  const ttpD = meta.get('tracks_to_predict');
  if (isDict(ttpD))
    for (const [k, v] of ttpD) {
      const row = rowOf.get(String(k));
      const diff = isDict(v) && typeof v.get('difficulty') === 'number' ? (v.get('difficulty') as number) : 0;
      if (row !== undefined) ttp.push({ trackIndex: row, difficulty: diff });
    }
  const ooi = r
    .list(meta.get('objects_of_interest'))
    .map((v) => rowOf.get(r.str(v) ?? ''))
    .filter((row): row is number => row !== undefined)
    .map((row) => tracks[row].id);
  const cur =
    typeof meta.get('current_time_index') === 'number' ? (meta.get('current_time_index') as number) : 0;
  const id = r.str(meta.get('scenario_id') ?? null) ?? r.str(d.get('id') ?? null) ?? file;
  return {
    womd: {
      scenarioId: id,
      timestampsSeconds: timestamps,
      currentTimeIndex: cur > 0 ? cur : Math.min(cfg.currentStep, T - 1),
      sdcTrackIndex: sdcRow,
      objectsOfInterest: ooi,
      tracksToPredict: ttp,
      tracks,
      lanes,
      features,
      stopSigns,
      dynamicMapStates: dyn,
    },
    lanes: extras,
    dataset: r.str(meta.get('dataset') ?? null) ?? 'unknown',
  };
}

function polygonArea(p: Float64Array): number {
  let a = 0;
  const n = p.length / 3;
  for (let i = 0, j = n - 1; i < n; j = i++) a += p[3 * j] * p[3 * i + 1] - p[3 * i] * p[3 * j + 1];
  return Math.abs(a) / 2;
}

function polylineLength(xy: Float32Array): number {
  let s = 0;
  for (let i = 2; i < xy.length; i += 2) s += Math.hypot(xy[i] - xy[i - 2], xy[i + 1] - xy[i - 1]);
  return s;
}

/** The polygon of a polyline widened by `half` on each side (left side forward, right side back). */
function corridor(xy: Float32Array, half: number): Float32Array {
  const n = xy.length / 2;
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - 1);
    const b = Math.min(n - 1, i + 1);
    const dx = xy[2 * b] - xy[2 * a];
    const dy = xy[2 * b + 1] - xy[2 * a + 1];
    const len = Math.hypot(dx, dy) || 1;
    const nx = (-dy / len) * half;
    const ny = (dx / len) * half;
    out[2 * i] = xy[2 * i] + nx;
    out[2 * i + 1] = xy[2 * i + 1] + ny;
    out[4 * n - 2 - 2 * i] = xy[2 * i] - nx;
    out[4 * n - 1 - 2 * i] = xy[2 * i + 1] - ny;
  }
  return out;
}

/** A ScenarioNet scenario description as a Scenario. */
export function scenarioNetToScenario(
  desc: PyValue,
  file: string,
  cfg: ScenarioNetImportConfig = DEFAULT_SCENARIONET_IMPORT,
): Scenario {
  const { womd, lanes, dataset } = scenarioNetToWomd(desc, file, cfg);
  const s = womdToScenario(womd);
  const clamp = (w: number) => Math.min(cfg.maxLaneWidthM, Math.max(cfg.minLaneWidthM, w));
  let fresh = Math.max(0, ...s.map.lanes.map((l) => l.id), ...s.map.roadEdges.map((f) => f.id)) + 1;
  for (const lane of s.map.lanes) {
    const ex = lanes.get(lane.id);
    if (!ex) continue;
    // ScenarioNet's own width estimate (WOMD) or the lane polygon's area over its length (nuScenes).
    if (ex.widthM !== undefined && ex.widthM > 0) lane.widthM = clamp(ex.widthM);
    else if (ex.polygon && ex.polygon.length >= 9) {
      const len = polylineLength(lane.xy);
      if (len > 1) lane.widthM = clamp(polygonArea(ex.polygon) / len);
    }
    // Lane polygons tile the drivable surface (nuScenes): off-road is judged against them.
    if (ex.polygon && ex.polygon.length >= 9) {
      const n = ex.polygon.length / 3;
      s.map.drivableAreas.push({
        id: fresh++,
        xy: Float32Array.from({ length: 2 * n }, (_, k) => ex.polygon![3 * (k >> 1) + (k & 1)]),
      });
    }
  }
  // Lanes without a polygon (nuScenes lane connectors) join the surface as their corridor, or the
  // intersections they cross would read as off the road.
  if (s.map.drivableAreas.length > 0)
    for (const lane of s.map.lanes)
      if (!lanes.get(lane.id)?.polygon)
        s.map.drivableAreas.push({ id: fresh++, xy: corridor(lane.xy, lane.widthM / 2) });
  if (womd.tracksToPredict.length === 0) {
    delete s.tracksToPredict;
    delete s.predictionDifficulty;
  }
  s.source = `scenarionet:${dataset}`;
  return s;
}
