// Argoverse 2 motion-forecasting scenario: `scenario_<id>.parquet` (one row per track and timestep) and
// `log_map_archive_<id>.json` (lane segments, drivable areas, pedestrian crossings), the layout of the
// av2-api (av2/datasets/motion_forecasting/scenario_serialization.py, av2/map/map_api.py).
import fs from 'node:fs';
import path from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { InputError } from '../core/errors.ts';

/** AV2 track categories (TrackCategory): fragments, unscored, scored and the focal track. */
export const AV2_TRACK_CATEGORY = { fragment: 0, unscored: 1, scored: 2, focal: 3 } as const;

export interface Av2MotionTrack {
  trackId: string;
  objectType: string;
  category: number;
  /** Per timestep (numTimesteps): NaN where the track has no row. */
  x: Float64Array;
  y: Float64Array;
  heading: Float64Array;
  vx: Float64Array;
  vy: Float64Array;
  valid: Uint8Array;
}

export interface Av2Point {
  x: number;
  y: number;
  z: number;
}

export interface Av2LaneSegment {
  id: number;
  isIntersection: boolean;
  laneType: string;
  centerline: Av2Point[];
  leftBoundary: Av2Point[];
  rightBoundary: Av2Point[];
  leftMark: string;
  rightMark: string;
  leftNeighbor: number | null;
  rightNeighbor: number | null;
  predecessors: number[];
  successors: number[];
}

export interface Av2MotionMap {
  lanes: Av2LaneSegment[];
  drivableAreas: { id: number; boundary: Av2Point[] }[];
  crossings: { id: number; edge1: Av2Point[]; edge2: Av2Point[] }[];
}

export interface Av2MotionScenario {
  scenarioId: string;
  city: string;
  focalTrackId: string;
  numTimesteps: number;
  /** Nanoseconds of the first and last timestep. */
  startTimestampNs: number;
  endTimestampNs: number;
  tracks: Av2MotionTrack[];
  map: Av2MotionMap;
}

/** The scenario and map files of an AV2 motion-forecasting scenario directory, or null. */
export function av2MotionFiles(dir: string): { parquet: string; map: string } | null {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return null;
  const names = fs.readdirSync(dir);
  const parquet = names.find((n) => /^scenario_.+\.parquet$/.test(n));
  const map = names.find((n) => /^log_map_archive_.+\.json$/.test(n));
  return parquet && map ? { parquet: path.join(dir, parquet), map: path.join(dir, map) } : null;
}

const REQUIRED = [
  'track_id',
  'object_type',
  'object_category',
  'timestep',
  'position_x',
  'position_y',
  'heading',
  'velocity_x',
  'velocity_y',
] as const;

type Row = Record<string, unknown>;
const isObj = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

function readMap(file: string): Av2MotionMap {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    if (e instanceof SyntaxError) throw new InputError(file, `invalid JSON (${e.message.split('\n')[0]})`);
    throw e;
  }
  const fail = (what: string): never => {
    throw new InputError(file, `AV2 map: ${what}`);
  };
  if (!isObj(doc) || !isObj(doc.lane_segments)) return fail('no lane_segments object');
  const pts = (v: unknown, where: string): Av2Point[] => {
    if (!Array.isArray(v)) return fail(`${where} is not a list of points`);
    return v.map((p, i) => {
      if (!isObj(p) || typeof p.x !== 'number' || typeof p.y !== 'number')
        return fail(`${where}[${i}] is not an {x, y, z} point`);
      return { x: p.x, y: p.y, z: typeof p.z === 'number' ? p.z : 0 };
    });
  };
  const id = (v: unknown): number | null => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
    return Number.isFinite(n) ? n : null;
  };
  const ids = (v: unknown) => (Array.isArray(v) ? v.map(id).filter((x): x is number => x !== null) : []);
  const lanes = Object.entries(doc.lane_segments).map(([k, l]): Av2LaneSegment => {
    const w = `lane_segments['${k}']`;
    if (!isObj(l)) return fail(`${w} is not an object`);
    const lid = id(l.id ?? k);
    if (lid === null) return fail(`${w}.id is not a number`);
    return {
      id: lid,
      isIntersection: l.is_intersection === true,
      laneType: typeof l.lane_type === 'string' ? l.lane_type : 'VEHICLE',
      centerline: pts(l.centerline, `${w}.centerline`),
      leftBoundary: pts(l.left_lane_boundary, `${w}.left_lane_boundary`),
      rightBoundary: pts(l.right_lane_boundary, `${w}.right_lane_boundary`),
      leftMark: typeof l.left_lane_mark_type === 'string' ? l.left_lane_mark_type : 'UNKNOWN',
      rightMark: typeof l.right_lane_mark_type === 'string' ? l.right_lane_mark_type : 'UNKNOWN',
      leftNeighbor: id(l.left_neighbor_id),
      rightNeighbor: id(l.right_neighbor_id),
      predecessors: ids(l.predecessors),
      successors: ids(l.successors),
    };
  });
  const drivableAreas = Object.entries(isObj(doc.drivable_areas) ? doc.drivable_areas : {}).map(([k, a]) => {
    if (!isObj(a)) return fail(`drivable_areas['${k}'] is not an object`);
    return { id: id(a.id ?? k) ?? 0, boundary: pts(a.area_boundary, `drivable_areas['${k}'].area_boundary`) };
  });
  const crossings = Object.entries(isObj(doc.pedestrian_crossings) ? doc.pedestrian_crossings : {}).map(
    ([k, c]) => {
      if (!isObj(c)) return fail(`pedestrian_crossings['${k}'] is not an object`);
      const w = `pedestrian_crossings['${k}']`;
      return { id: id(c.id ?? k) ?? 0, edge1: pts(c.edge1, `${w}.edge1`), edge2: pts(c.edge2, `${w}.edge2`) };
    },
  );
  return { lanes, drivableAreas, crossings };
}

/** Read an AV2 motion-forecasting scenario directory (the parquet of tracks and the map JSON). */
export async function readAv2Motion(dir: string): Promise<Av2MotionScenario> {
  const files = av2MotionFiles(dir);
  if (!files)
    throw new InputError(
      dir,
      'not an AV2 motion-forecasting scenario (scenario_*.parquet + log_map_archive_*.json)',
    );
  const buf = fs.readFileSync(files.parquet);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  let rows: Row[];
  try {
    rows = (await parquetReadObjects({ file: ab })) as Row[];
  } catch (e) {
    throw new InputError(
      files.parquet,
      `not a readable Parquet file (${(e as Error).message.split('\n')[0]})`,
    );
  }
  const fail = (what: string): never => {
    throw new InputError(files.parquet, `AV2 scenario: ${what}`);
  };
  if (rows.length === 0) fail('no rows');
  for (const c of REQUIRED) if (!(c in rows[0])) fail(`no column '${c}'`);
  const first = rows[0];
  const T = Number(first.num_timestamps ?? 0) || Math.max(...rows.map((r) => Number(r.timestep))) + 1;
  if (!Number.isInteger(T) || T < 2 || T > 100_000) fail(`num_timestamps ${T}`);
  const byId = new Map<string, Av2MotionTrack>();
  rows.forEach((r, i) => {
    const t = Number(r.timestep);
    if (!Number.isInteger(t) || t < 0 || t >= T)
      fail(`row ${i}: timestep ${String(r.timestep)} outside 0..${T - 1}`);
    const tid = String(r.track_id);
    let tr = byId.get(tid);
    if (!tr) {
      tr = {
        trackId: tid,
        objectType: String(r.object_type),
        category: Number(r.object_category),
        x: new Float64Array(T).fill(NaN),
        y: new Float64Array(T).fill(NaN),
        heading: new Float64Array(T).fill(NaN),
        vx: new Float64Array(T).fill(NaN),
        vy: new Float64Array(T).fill(NaN),
        valid: new Uint8Array(T),
      };
      byId.set(tid, tr);
    }
    const vals = [r.position_x, r.position_y, r.heading, r.velocity_x, r.velocity_y].map(Number);
    if (vals.some((v) => !Number.isFinite(v)))
      fail(`row ${i} (track ${tid}, step ${t}): a state is not a finite number`);
    [tr.x[t], tr.y[t], tr.heading[t], tr.vx[t], tr.vy[t]] = vals;
    tr.valid[t] = 1;
  });
  return {
    scenarioId: String(first.scenario_id ?? path.basename(dir)),
    city: String(first.city ?? ''),
    focalTrackId: String(first.focal_track_id ?? ''),
    numTimesteps: T,
    startTimestampNs: Number(first.start_timestamp ?? 0),
    endTimestampNs: Number(first.end_timestamp ?? 0),
    tracks: [...byId.values()],
    map: readMap(files.map),
  };
}
