// Waymo Open Motion Dataset scenarios: TFRecord files of `Scenario` protocol buffers (scenario.proto,
// map.proto), decoded with protobufjs into typed struct-of-arrays records, and encoded back.
import { InputError } from '../core/errors.ts';
import { readTfRecordFile, writeTfRecordFile } from './tfrecord.ts';
import { scenarioType } from './womd/scenario.proto.ts';

/** WOMD speed limits are in miles per hour. */
export const MPH_TO_MPS = 0.44704;

/** Track.ObjectType values. */
export const WOMD_OBJECT_TYPE = { unset: 0, vehicle: 1, pedestrian: 2, cyclist: 3, other: 4 } as const;

/** TrafficSignalLaneState.State values. */
export const WOMD_SIGNAL = {
  unknown: 0,
  arrowStop: 1,
  arrowCaution: 2,
  arrowGo: 3,
  stop: 4,
  caution: 5,
  go: 6,
  flashingStop: 7,
  flashingCaution: 8,
} as const;

/** One object's states over the scenario's steps (struct-of-arrays). */
export interface WomdTrack {
  id: number;
  objectType: number;
  centerX: Float64Array;
  centerY: Float64Array;
  centerZ: Float64Array;
  length: Float32Array;
  width: Float32Array;
  height: Float32Array;
  heading: Float32Array;
  velocityX: Float32Array;
  velocityY: Float32Array;
  valid: Uint8Array;
}

/** map.proto BoundarySegment: a stretch of a lane bounded by a road line or edge. */
export interface WomdBoundary {
  laneStartIndex: number;
  laneEndIndex: number;
  boundaryFeatureId: number;
  /** RoadLine.RoadLineType. */
  boundaryType: number;
}

export interface WomdLaneNeighbor {
  featureId: number;
  selfStartIndex: number;
  selfEndIndex: number;
  neighborStartIndex: number;
  neighborEndIndex: number;
  boundaries: WomdBoundary[];
}

export interface WomdLane {
  id: number;
  speedLimitMph: number;
  laneType: number;
  interpolating: boolean;
  /** Polyline points [x0, y0, z0, x1, …]. */
  polyline: Float64Array;
  entryLanes: number[];
  exitLanes: number[];
  leftNeighbors: WomdLaneNeighbor[];
  rightNeighbors: WomdLaneNeighbor[];
  leftBoundaries: WomdBoundary[];
  rightBoundaries: WomdBoundary[];
}

export type WomdPolyKind = 'road_line' | 'road_edge' | 'crosswalk' | 'speed_bump' | 'driveway';

/** Road lines and road edges (polylines, with their type) and polygons (crosswalks, bumps, driveways). */
export interface WomdPolyFeature {
  id: number;
  kind: WomdPolyKind;
  /** RoadLineType / RoadEdgeType; 0 for polygons. */
  type: number;
  /** [x0, y0, z0, …]. */
  points: Float64Array;
}

export interface WomdStopSign {
  id: number;
  lanes: number[];
  x: number;
  y: number;
  z: number;
}

export interface WomdSignalState {
  lane: number;
  state: number;
  stopX: number;
  stopY: number;
  stopZ: number;
}

export interface WomdScenario {
  scenarioId: string;
  timestampsSeconds: Float64Array;
  currentTimeIndex: number;
  sdcTrackIndex: number;
  objectsOfInterest: number[];
  tracksToPredict: { trackIndex: number; difficulty: number }[];
  tracks: WomdTrack[];
  lanes: WomdLane[];
  features: WomdPolyFeature[];
  stopSigns: WomdStopSign[];
  /** One list of signal states per step. */
  dynamicMapStates: WomdSignalState[][];
}

// ---- decoding ------------------------------------------------------------------------------------

interface PbPoint {
  x?: number;
  y?: number;
  z?: number;
}
type Pb = Record<string, unknown>;

function points(list: PbPoint[] | undefined): Float64Array {
  const pts = list ?? [];
  const out = new Float64Array(3 * pts.length);
  pts.forEach((p, i) => {
    out[3 * i] = p.x ?? 0;
    out[3 * i + 1] = p.y ?? 0;
    out[3 * i + 2] = p.z ?? 0;
  });
  return out;
}

function boundaries(list: Pb[] | undefined): WomdBoundary[] {
  return (list ?? []).map((b) => ({
    laneStartIndex: Number(b.lane_start_index ?? 0),
    laneEndIndex: Number(b.lane_end_index ?? 0),
    boundaryFeatureId: Number(b.boundary_feature_id ?? 0),
    boundaryType: Number(b.boundary_type ?? 0),
  }));
}

function neighbors(list: Pb[] | undefined): WomdLaneNeighbor[] {
  return (list ?? []).map((n) => ({
    featureId: Number(n.feature_id ?? 0),
    selfStartIndex: Number(n.self_start_index ?? 0),
    selfEndIndex: Number(n.self_end_index ?? 0),
    neighborStartIndex: Number(n.neighbor_start_index ?? 0),
    neighborEndIndex: Number(n.neighbor_end_index ?? 0),
    boundaries: boundaries(n.boundaries as Pb[]),
  }));
}

/** Decode one Scenario protobuf (one TFRecord record); `where` names it in errors. */
export function decodeWomdScenario(bytes: Uint8Array, where: string): WomdScenario {
  const T = scenarioType();
  let o: Pb;
  try {
    o = T.toObject(T.decode(bytes), { longs: Number, enums: Number, defaults: false, arrays: true }) as Pb;
  } catch (e) {
    throw new InputError(where, `not a waymo.open_dataset.Scenario protobuf (${(e as Error).message})`);
  }
  const timestamps = Float64Array.from((o.timestamps_seconds as number[]) ?? []);
  const numSteps = timestamps.length;
  if (numSteps === 0) throw new InputError(where, 'scenario has no timestamps_seconds');
  const tracks = ((o.tracks as Pb[]) ?? []).map((t, i): WomdTrack => {
    const states = (t.states as Pb[]) ?? [];
    if (states.length !== numSteps)
      throw new InputError(
        where,
        `track ${i} (id ${String(t.id)}) has ${states.length} states, expected ${numSteps}`,
      );
    const tr: WomdTrack = {
      id: Number(t.id ?? 0),
      objectType: Number(t.object_type ?? 0),
      centerX: new Float64Array(numSteps),
      centerY: new Float64Array(numSteps),
      centerZ: new Float64Array(numSteps),
      length: new Float32Array(numSteps),
      width: new Float32Array(numSteps),
      height: new Float32Array(numSteps),
      heading: new Float32Array(numSteps),
      velocityX: new Float32Array(numSteps),
      velocityY: new Float32Array(numSteps),
      valid: new Uint8Array(numSteps),
    };
    states.forEach((s, k) => {
      tr.centerX[k] = (s.center_x as number) ?? 0;
      tr.centerY[k] = (s.center_y as number) ?? 0;
      tr.centerZ[k] = (s.center_z as number) ?? 0;
      tr.length[k] = (s.length as number) ?? 0;
      tr.width[k] = (s.width as number) ?? 0;
      tr.height[k] = (s.height as number) ?? 0;
      tr.heading[k] = (s.heading as number) ?? 0;
      tr.velocityX[k] = (s.velocity_x as number) ?? 0;
      tr.velocityY[k] = (s.velocity_y as number) ?? 0;
      tr.valid[k] = s.valid ? 1 : 0;
    });
    return tr;
  });
  const lanes: WomdLane[] = [];
  const features: WomdPolyFeature[] = [];
  const stopSigns: WomdStopSign[] = [];
  for (const f of (o.map_features as Pb[]) ?? []) {
    const id = Number(f.id ?? 0);
    if (f.lane) {
      const l = f.lane as Pb;
      lanes.push({
        id,
        speedLimitMph: Number(l.speed_limit_mph ?? 0),
        laneType: Number(l.type ?? 0),
        interpolating: !!l.interpolating,
        polyline: points(l.polyline as PbPoint[]),
        entryLanes: ((l.entry_lanes as number[]) ?? []).map(Number),
        exitLanes: ((l.exit_lanes as number[]) ?? []).map(Number),
        leftNeighbors: neighbors(l.left_neighbors as Pb[]),
        rightNeighbors: neighbors(l.right_neighbors as Pb[]),
        leftBoundaries: boundaries(l.left_boundaries as Pb[]),
        rightBoundaries: boundaries(l.right_boundaries as Pb[]),
      });
    } else if (f.road_line || f.road_edge) {
      const r = (f.road_line ?? f.road_edge) as Pb;
      features.push({
        id,
        kind: f.road_line ? 'road_line' : 'road_edge',
        type: Number(r.type ?? 0),
        points: points(r.polyline as PbPoint[]),
      });
    } else if (f.crosswalk || f.speed_bump || f.driveway) {
      const kind: WomdPolyKind = f.crosswalk ? 'crosswalk' : f.speed_bump ? 'speed_bump' : 'driveway';
      const p = (f.crosswalk ?? f.speed_bump ?? f.driveway) as Pb;
      features.push({ id, kind, type: 0, points: points(p.polygon as PbPoint[]) });
    } else if (f.stop_sign) {
      const s = f.stop_sign as Pb;
      const pos = (s.position as PbPoint) ?? {};
      stopSigns.push({
        id,
        lanes: ((s.lane as number[]) ?? []).map(Number),
        x: pos.x ?? 0,
        y: pos.y ?? 0,
        z: pos.z ?? 0,
      });
    }
  }
  const dyn = ((o.dynamic_map_states as Pb[]) ?? []).map((d) =>
    ((d.lane_states as Pb[]) ?? []).map((ls): WomdSignalState => {
      const p = (ls.stop_point as PbPoint) ?? {};
      return {
        lane: Number(ls.lane ?? 0),
        state: Number(ls.state ?? 0),
        stopX: p.x ?? 0,
        stopY: p.y ?? 0,
        stopZ: p.z ?? 0,
      };
    }),
  );
  return {
    scenarioId: String(o.scenario_id ?? ''),
    timestampsSeconds: timestamps,
    currentTimeIndex: Number(o.current_time_index ?? 0),
    sdcTrackIndex: o.sdc_track_index === undefined ? -1 : Number(o.sdc_track_index),
    objectsOfInterest: ((o.objects_of_interest as number[]) ?? []).map(Number),
    tracksToPredict: ((o.tracks_to_predict as Pb[]) ?? []).map((r) => ({
      trackIndex: Number(r.track_index ?? 0),
      difficulty: Number(r.difficulty ?? 0),
    })),
    tracks,
    lanes,
    features,
    stopSigns,
    dynamicMapStates: dyn,
  };
}

/** Every scenario of a WOMD TFRecord file (CRCs verified). */
export function readWomdFile(file: string): WomdScenario[] {
  const records = readTfRecordFile(file);
  return records.map((r, i) => decodeWomdScenario(r, `${file} (record ${i})`));
}

// ---- encoding ------------------------------------------------------------------------------------

function pointObjects(p: Float64Array): PbPoint[] {
  const out: PbPoint[] = [];
  for (let i = 0; i + 2 < p.length; i += 3) out.push({ x: p[i], y: p[i + 1], z: p[i + 2] });
  return out;
}

function boundaryObjects(list: readonly WomdBoundary[] | undefined): Pb[] {
  return (list ?? []).map((b) => ({
    lane_start_index: b.laneStartIndex,
    lane_end_index: b.laneEndIndex,
    boundary_feature_id: b.boundaryFeatureId,
    boundary_type: b.boundaryType,
  }));
}

function neighborObjects(list: WomdLaneNeighbor[]): Pb[] {
  return list.map((n) => ({
    feature_id: n.featureId,
    self_start_index: n.selfStartIndex,
    self_end_index: n.selfEndIndex,
    neighbor_start_index: n.neighborStartIndex,
    neighbor_end_index: n.neighborEndIndex,
    boundaries: boundaryObjects(n.boundaries),
  }));
}

/** Encode a scenario as Scenario protobuf bytes. */
export function encodeWomdScenario(s: WomdScenario): Uint8Array {
  const T = scenarioType();
  const mapFeatures: Pb[] = [
    ...s.lanes.map((l) => ({
      id: l.id,
      lane: {
        speed_limit_mph: l.speedLimitMph,
        type: l.laneType,
        interpolating: l.interpolating,
        polyline: pointObjects(l.polyline),
        entry_lanes: l.entryLanes,
        exit_lanes: l.exitLanes,
        left_neighbors: neighborObjects(l.leftNeighbors),
        right_neighbors: neighborObjects(l.rightNeighbors),
        left_boundaries: boundaryObjects(l.leftBoundaries),
        right_boundaries: boundaryObjects(l.rightBoundaries),
      },
    })),
    ...s.features.map((f) => {
      const poly = pointObjects(f.points);
      const body =
        f.kind === 'road_line' || f.kind === 'road_edge'
          ? { type: f.type, polyline: poly }
          : { polygon: poly };
      return { id: f.id, [f.kind]: body };
    }),
    ...s.stopSigns.map((g) => ({
      id: g.id,
      stop_sign: { lane: g.lanes, position: { x: g.x, y: g.y, z: g.z } },
    })),
  ];
  const doc = {
    scenario_id: s.scenarioId,
    timestamps_seconds: Array.from(s.timestampsSeconds),
    current_time_index: s.currentTimeIndex,
    tracks: s.tracks.map((t) => ({
      id: t.id,
      object_type: t.objectType,
      states: Array.from(t.valid, (v, k) => ({
        center_x: t.centerX[k],
        center_y: t.centerY[k],
        center_z: t.centerZ[k],
        length: t.length[k],
        width: t.width[k],
        height: t.height[k],
        heading: t.heading[k],
        velocity_x: t.velocityX[k],
        velocity_y: t.velocityY[k],
        valid: v === 1,
      })),
    })),
    dynamic_map_states: s.dynamicMapStates.map((step) => ({
      lane_states: step.map((ls) => ({
        lane: ls.lane,
        state: ls.state,
        stop_point: { x: ls.stopX, y: ls.stopY, z: ls.stopZ },
      })),
    })),
    map_features: mapFeatures,
    ...(s.sdcTrackIndex >= 0 ? { sdc_track_index: s.sdcTrackIndex } : {}),
    objects_of_interest: s.objectsOfInterest,
    tracks_to_predict: s.tracksToPredict.map((r) => ({
      track_index: r.trackIndex,
      difficulty: r.difficulty,
    })),
  };
  const err = T.verify(doc);
  if (err) throw new Error(`encodeWomdScenario: ${err}`);
  return T.encode(T.fromObject(doc)).finish();
}

/** Write scenarios as one WOMD-style TFRecord file (atomic). */
export function writeWomdFile(file: string, scenarios: readonly WomdScenario[]): void {
  writeTfRecordFile(file, scenarios.map(encodeWomdScenario));
}
