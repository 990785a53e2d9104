// GPUDrive / Nocturne scenario JSON: the checked, typed form of a file (objects[] with per-step
// position/heading/velocity/valid, roads[] with geometry and type), following GPUDrive's loader
// (src/json_serialization.hpp: field names and types) and Nocturne's waymo converter (headings in degrees).
import fs from 'node:fs';
import { InputError } from '../core/errors.ts';

/** Waymax / GPUDrive MapElementIds: the WOMD map-feature type of a road (map_element_id). */
export const MAP_ELEMENT_ID = {
  laneUndefined: 0,
  laneFreeway: 1,
  laneSurfaceStreet: 2,
  laneBikeLane: 3,
  /** Road lines: 5 + WOMD RoadLineType (5 unknown … 13 passing double yellow). */
  roadLineBase: 5,
  /** Road edges: 14 + WOMD RoadEdgeType (14 unknown, 15 boundary, 16 median). */
  roadEdgeBase: 14,
  stopSign: 17,
  crosswalk: 18,
  speedBump: 19,
  driveway: 20,
  unknown: -1,
} as const;

/** The road types GPUDrive's loader knows (others load as None) plus the driveways its converter writes. */
export const GPUDRIVE_ROAD_TYPES = [
  'lane',
  'road_line',
  'road_edge',
  'crosswalk',
  'speed_bump',
  'stop_sign',
  'driveway',
] as const;
export type GpudriveRoadType = (typeof GPUDRIVE_ROAD_TYPES)[number];

export const GPUDRIVE_OBJECT_TYPES = ['vehicle', 'pedestrian', 'cyclist'] as const;

/** The value GPUDrive's and Nocturne's converters write into the states of invalid steps. */
export const GPUDRIVE_INVALID = -10000;

export interface GpudriveObject {
  /** Absent in Nocturne files. */
  id?: number;
  type: string;
  x: Float64Array;
  y: Float64Array;
  /** Absent (Nocturne) → undefined. */
  z?: Float64Array;
  heading: Float64Array;
  vx: Float64Array;
  vy: Float64Array;
  valid: Uint8Array;
  length: number;
  width: number;
  /** Absent in Nocturne files. */
  height?: number;
  goalX: number;
  goalY: number;
  goalZ?: number;
  markAsExpert?: boolean;
}

export interface GpudriveRoad {
  type: string;
  /** [x0, y0, z0, …]; z NaN where absent. */
  points: Float64Array;
  id?: number;
  mapElementId?: number;
}

export interface GpudriveMetadata {
  sdcTrackIndex: number;
  tracksToPredict: { trackIndex: number; difficulty: number }[];
  objectsOfInterest: number[];
}

export interface GpudriveScenario {
  name: string;
  /** Absent in Nocturne files. */
  scenarioId?: string;
  objects: GpudriveObject[];
  roads: GpudriveRoad[];
  metadata?: GpudriveMetadata;
  /** Steps per object (every object's arrays have this length). */
  numSteps: number;
  /** Whether headings were given in degrees (Nocturne) and converted to radians. */
  headingsInDegrees: boolean;
}

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Check a parsed JSON value against GPUDrive's loader schema and return its typed form; `file` names the
 * input in errors. Every object's position, heading, velocity and valid lists must have one common
 * length; numbers must be finite. Nocturne files (no id, height, scenario_id or metadata) are accepted,
 * their headings (degrees) converted to radians.
 */
export function parseGpudriveJson(doc: unknown, file: string): GpudriveScenario {
  const fail = (what: string): never => {
    throw new InputError(file, what);
  };
  if (!isObj(doc)) return fail('not a GPUDrive/Nocturne scenario (the top level is not a JSON object)');
  if (!Array.isArray(doc.objects) || !Array.isArray(doc.roads))
    return fail('not a GPUDrive/Nocturne scenario (no objects[] and roads[] arrays)');
  const name = typeof doc.name === 'string' ? doc.name : '';
  if (doc.scenario_id !== undefined && typeof doc.scenario_id !== 'string')
    fail('scenario_id is not a string');
  const num = (v: unknown, where: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail(`${where} is not a finite number`);
    return v;
  };
  const int = (v: unknown, where: string): number => {
    const n = num(v, where);
    if (!Number.isInteger(n)) fail(`${where} is not an integer`);
    return n;
  };
  let T = -1;
  const objects = (doc.objects as unknown[]).map((o, i): GpudriveObject => {
    const w = `objects[${i}]`;
    if (!isObj(o)) return fail(`${w} is not an object`);
    for (const k of ['position', 'heading', 'velocity', 'valid'])
      if (!Array.isArray(o[k])) fail(`${w}.${k} is missing or not a list`);
    const pos = o.position as unknown[];
    if (T < 0) T = pos.length;
    for (const k of ['position', 'heading', 'velocity', 'valid'])
      if ((o[k] as unknown[]).length !== T)
        fail(`${w}.${k} has ${(o[k] as unknown[]).length} steps, objects[0] has ${T}`);
    if (typeof o.type !== 'string') fail(`${w}.type is not a string`);
    const x = new Float64Array(T);
    const y = new Float64Array(T);
    const hasZ = T > 0 && isObj(pos[0]) && (pos[0] as Json).z !== undefined;
    const z = hasZ ? new Float64Array(T) : undefined;
    pos.forEach((p, t) => {
      if (!isObj(p)) fail(`${w}.position[${t}] is not an {x, y} object`);
      x[t] = num((p as Json).x, `${w}.position[${t}].x`);
      y[t] = num((p as Json).y, `${w}.position[${t}].y`);
      if (z) z[t] = num((p as Json).z, `${w}.position[${t}].z`);
    });
    const heading = Float64Array.from(o.heading as unknown[], (h, t) => num(h, `${w}.heading[${t}]`));
    const vx = new Float64Array(T);
    const vy = new Float64Array(T);
    (o.velocity as unknown[]).forEach((v, t) => {
      if (!isObj(v)) fail(`${w}.velocity[${t}] is not an {x, y} object`);
      vx[t] = num((v as Json).x, `${w}.velocity[${t}].x`);
      vy[t] = num((v as Json).y, `${w}.velocity[${t}].y`);
    });
    const valid = Uint8Array.from(o.valid as unknown[], (v, t) => {
      if (typeof v !== 'boolean') fail(`${w}.valid[${t}] is not a boolean`);
      return v ? 1 : 0;
    });
    if (!isObj(o.goalPosition)) fail(`${w}.goalPosition is missing`);
    const goal = o.goalPosition as Json;
    if (o.mark_as_expert !== undefined && typeof o.mark_as_expert !== 'boolean')
      fail(`${w}.mark_as_expert is not a boolean`);
    return {
      ...(o.id === undefined ? {} : { id: int(o.id, `${w}.id`) }),
      type: o.type as string,
      x,
      y,
      ...(z ? { z } : {}),
      heading,
      vx,
      vy,
      valid,
      length: num(o.length, `${w}.length`),
      width: num(o.width, `${w}.width`),
      ...(o.height === undefined ? {} : { height: num(o.height, `${w}.height`) }),
      goalX: num(goal.x, `${w}.goalPosition.x`),
      goalY: num(goal.y, `${w}.goalPosition.y`),
      ...(goal.z === undefined ? {} : { goalZ: num(goal.z, `${w}.goalPosition.z`) }),
      ...(o.mark_as_expert === undefined ? {} : { markAsExpert: o.mark_as_expert as boolean }),
    };
  });
  if (objects.length === 0) fail('no objects');
  const roads = (doc.roads as unknown[]).map((r, i): GpudriveRoad => {
    const w = `roads[${i}]`;
    if (!isObj(r)) return fail(`${w} is not an object`);
    if (typeof r.type !== 'string') fail(`${w}.type is not a string`);
    if (!Array.isArray(r.geometry) || r.geometry.length === 0) fail(`${w}.geometry is missing or empty`);
    const g = r.geometry as unknown[];
    const points = new Float64Array(3 * g.length);
    g.forEach((p, k) => {
      if (!isObj(p)) fail(`${w}.geometry[${k}] is not an {x, y} object`);
      points[3 * k] = num((p as Json).x, `${w}.geometry[${k}].x`);
      points[3 * k + 1] = num((p as Json).y, `${w}.geometry[${k}].y`);
      points[3 * k + 2] = (p as Json).z === undefined ? NaN : num((p as Json).z, `${w}.geometry[${k}].z`);
    });
    return {
      type: r.type as string,
      points,
      ...(r.id === undefined ? {} : { id: int(r.id, `${w}.id`) }),
      ...(r.map_element_id === undefined
        ? {}
        : { mapElementId: int(r.map_element_id, `${w}.map_element_id`) }),
    };
  });
  let metadata: GpudriveMetadata | undefined;
  if (doc.metadata !== undefined) {
    const m = doc.metadata;
    if (!isObj(m)) return fail('metadata is not an object');
    const ttp = m.tracks_to_predict ?? [];
    const ooi = m.objects_of_interest ?? [];
    if (!Array.isArray(ttp) || !Array.isArray(ooi))
      fail('metadata.tracks_to_predict / objects_of_interest is not a list');
    metadata = {
      sdcTrackIndex: int(m.sdc_track_index ?? -1, 'metadata.sdc_track_index'),
      tracksToPredict: (ttp as unknown[]).map((t, k) => {
        if (!isObj(t)) return fail(`metadata.tracks_to_predict[${k}] is not an object`);
        return {
          trackIndex: int(t.track_index, `metadata.tracks_to_predict[${k}].track_index`),
          difficulty: int(t.difficulty ?? 0, `metadata.tracks_to_predict[${k}].difficulty`),
        };
      }),
      objectsOfInterest: (ooi as unknown[]).map((v, k) => int(v, `metadata.objects_of_interest[${k}]`)),
    };
  }
  // Nocturne writes headings in degrees (unwrapped); GPUDrive in radians within ±π.
  let maxAbs = 0;
  for (const o of objects)
    for (let t = 0; t < T; t++) if (o.valid[t]) maxAbs = Math.max(maxAbs, Math.abs(o.heading[t]));
  const degrees = maxAbs > 2 * Math.PI + 1e-3;
  if (degrees)
    for (const o of objects)
      for (let t = 0; t < T; t++)
        if (o.valid[t])
          o.heading[t] = Math.atan2(
            Math.sin((o.heading[t] * Math.PI) / 180),
            Math.cos((o.heading[t] * Math.PI) / 180),
          );
  return {
    name,
    ...(doc.scenario_id === undefined ? {} : { scenarioId: doc.scenario_id as string }),
    objects,
    roads,
    ...(metadata ? { metadata } : {}),
    numSteps: T,
    headingsInDegrees: degrees,
  };
}

/** Read and check a GPUDrive/Nocturne scenario JSON file. */
export function readGpudriveJson(file: string): GpudriveScenario {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    if (e instanceof SyntaxError) throw new InputError(file, `invalid JSON (${e.message.split('\n')[0]})`);
    throw e;
  }
  return parseGpudriveJson(doc, file);
}

/** True when a JSON file's head looks like a GPUDrive/Nocturne scenario (`"objects"` within its first KiB). */
export function looksLikeGpudriveJson(head: string): boolean {
  return /^\s*\{/.test(head) && /"objects"\s*:/.test(head) && !head.includes('"drivekit.');
}

/**
 * Problems a GPUDrive loader would have with a JSON document (empty: none), checked as its
 * json_serialization.hpp reads it: top-level name, scenario_id, metadata (sdc_track_index,
 * tracks_to_predict[{track_index, difficulty}], objects_of_interest[]), objects with position[{x, y}],
 * width, length, height, id, heading[], velocity[{x, y}], valid[bool], goalPosition{x, y}, type and an
 * optional mark_as_expert; roads with type, geometry[{x, y}], optional id (uint32) and map_element_id.
 * `numSteps`: the length every per-step list must have.
 */
export function gpudriveLoaderProblems(doc: unknown, numSteps?: number): string[] {
  const out: string[] = [];
  const isNum = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  const isInt = (v: unknown) => isNum(v) && Number.isInteger(v);
  const isXY = (v: unknown) => isObj(v) && isNum(v.x) && isNum(v.y);
  if (!isObj(doc)) return ['the document is not a JSON object'];
  if (typeof doc.name !== 'string') out.push('name: missing or not a string');
  if (typeof doc.scenario_id !== 'string') out.push('scenario_id: missing or not a string');
  if (!isObj(doc.tl_states) && !Array.isArray(doc.tl_states)) out.push('tl_states: missing');
  const m = doc.metadata;
  if (!isObj(m)) out.push('metadata: missing or not an object');
  else {
    if (!isInt(m.sdc_track_index)) out.push('metadata.sdc_track_index: not an integer');
    if (!Array.isArray(m.tracks_to_predict)) out.push('metadata.tracks_to_predict: not a list');
    else
      m.tracks_to_predict.forEach((t, i) => {
        if (!isObj(t) || !isInt(t.track_index) || !isInt(t.difficulty))
          out.push(`metadata.tracks_to_predict[${i}]: not {track_index, difficulty} integers`);
      });
    if (!Array.isArray(m.objects_of_interest) || !m.objects_of_interest.every(isInt))
      out.push('metadata.objects_of_interest: not a list of integers');
  }
  if (!Array.isArray(doc.objects)) out.push('objects: missing or not a list');
  else
    doc.objects.forEach((o, i) => {
      const w = `objects[${i}]`;
      if (!isObj(o)) return void out.push(`${w}: not an object`);
      for (const k of ['width', 'length', 'height']) if (!isNum(o[k])) out.push(`${w}.${k}: not a number`);
      if (!isInt(o.id)) out.push(`${w}.id: not an integer`);
      // Types other than vehicle / pedestrian / cyclist load as None: allowed, as in GPUDrive.
      if (typeof o.type !== 'string') out.push(`${w}.type: not a string`);
      if (!isXY(o.goalPosition)) out.push(`${w}.goalPosition: not {x, y}`);
      if (o.mark_as_expert !== undefined && typeof o.mark_as_expert !== 'boolean')
        out.push(`${w}.mark_as_expert: not a boolean`);
      const lists: [string, (v: unknown) => boolean][] = [
        ['position', isXY],
        ['heading', isNum],
        ['velocity', isXY],
        ['valid', (v) => typeof v === 'boolean'],
      ];
      for (const [k, ok] of lists) {
        const v = o[k];
        if (!Array.isArray(v)) {
          out.push(`${w}.${k}: not a list`);
          continue;
        }
        if (numSteps !== undefined && v.length !== numSteps)
          out.push(`${w}.${k}: ${v.length} steps, expected ${numSteps}`);
        const bad = v.findIndex((x) => !ok(x));
        if (bad >= 0) out.push(`${w}.${k}[${bad}]: wrong type`);
      }
    });
  if (!Array.isArray(doc.roads)) out.push('roads: missing or not a list');
  else
    doc.roads.forEach((r, i) => {
      const w = `roads[${i}]`;
      if (!isObj(r)) return void out.push(`${w}: not an object`);
      if (typeof r.type !== 'string' || !(GPUDRIVE_ROAD_TYPES as readonly string[]).includes(r.type))
        out.push(`${w}.type: '${String(r.type)}' is not a GPUDrive road type`);
      if (!Array.isArray(r.geometry) || r.geometry.length === 0) out.push(`${w}.geometry: missing or empty`);
      else if (!r.geometry.every(isXY)) out.push(`${w}.geometry: a point is not {x, y}`);
      if (r.id !== undefined && (!isInt(r.id) || (r.id as number) < 0 || (r.id as number) > 0xffffffff))
        out.push(`${w}.id: not a uint32`);
      if (
        r.map_element_id !== undefined &&
        (!isInt(r.map_element_id) || (r.map_element_id as number) < -1 || (r.map_element_id as number) > 20)
      )
        out.push(`${w}.map_element_id: outside -1..20`);
    });
  return out;
}
