// Argoverse 2 motion-forecasting scenario → the simulator's Scenario: tracks at 10 Hz (history = the
// observed 5 s, current step 49), the AV as ego, scored/focal tracks to predict, lane segments with their
// topology and widths, drivable areas (their boundaries as road edges), crossings; through the WOMD importer.
import { projectOntoPolyline } from '../../core/geometry/polyline.ts';
import { AV2_TRACK_CATEGORY, type Av2MotionScenario, type Av2Point } from '../../datasets/av2Motion.ts';
import {
  WOMD_OBJECT_TYPE,
  type WomdLane,
  type WomdPolyFeature,
  type WomdTrack,
} from '../../datasets/womd.ts';
import { ROAD_LINE_TYPES, type Scenario } from '../scenario.ts';
import { womdToScenario } from './womdScenario.ts';

/** AV2 motion tracks carry no sizes: boxes by object type (length, width, height), metres. */
export const AV2_MOTION_SIZES: Record<string, [number, number, number]> = {
  vehicle: [4.5, 2.0, 1.6],
  bus: [12.0, 2.6, 3.2],
  pedestrian: [0.7, 0.7, 1.75],
  cyclist: [1.9, 0.7, 1.7],
  motorcyclist: [2.1, 0.8, 1.6],
  riderless_bicycle: [1.8, 0.6, 1.1],
  other: [1.0, 1.0, 1.0],
};

const TYPE_CODE: Record<string, number> = {
  vehicle: WOMD_OBJECT_TYPE.vehicle,
  bus: WOMD_OBJECT_TYPE.vehicle,
  pedestrian: WOMD_OBJECT_TYPE.pedestrian,
  cyclist: WOMD_OBJECT_TYPE.cyclist,
  motorcyclist: WOMD_OBJECT_TYPE.cyclist,
};

/** AV2 lane marks → WOMD road-line types (NONE: no line). */
const MARKS: Record<string, string> = {
  DASHED_WHITE: 'broken_single_white',
  SOLID_WHITE: 'solid_single_white',
  DOUBLE_SOLID_WHITE: 'solid_double_white',
  DASHED_YELLOW: 'broken_single_yellow',
  DOUBLE_DASH_YELLOW: 'broken_double_yellow',
  SOLID_YELLOW: 'solid_single_yellow',
  DOUBLE_SOLID_YELLOW: 'solid_double_yellow',
  SOLID_DASH_YELLOW: 'passing_double_yellow',
  DASH_SOLID_YELLOW: 'passing_double_yellow',
  DOUBLE_DASH_WHITE: 'broken_single_white',
  SOLID_DASH_WHITE: 'solid_single_white',
  DASH_SOLID_WHITE: 'solid_single_white',
  UNKNOWN: 'unknown',
};

export interface Av2MotionImportConfig {
  /** The current step: the last observed one (AV2 observes 50 of 110 steps). */
  currentStep: number;
  /** Lane widths measured between the painted boundaries are clamped to this range, metres. */
  minLaneWidthM: number;
  maxLaneWidthM: number;
}

export const DEFAULT_AV2_MOTION_IMPORT: Av2MotionImportConfig = {
  currentStep: 49,
  minLaneWidthM: 2.0,
  maxLaneWidthM: 6.0,
};

const flat = (pts: Av2Point[]) => Float64Array.from(pts.flatMap((p) => [p.x, p.y, p.z]));
const xy32 = (pts: Av2Point[]) => Float32Array.from(pts.flatMap((p) => [p.x, p.y]));

/** Signed area (shoelace): positive when counter-clockwise. */
function signedArea(pts: Av2Point[]): number {
  let a = 0;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) a += pts[j].x * pts[i].y - pts[i].x * pts[j].y;
  return a / 2;
}

export function av2MotionToScenario(
  m: Av2MotionScenario,
  cfg: Av2MotionImportConfig = DEFAULT_AV2_MOTION_IMPORT,
): Scenario {
  const T = m.numTimesteps;
  const dt =
    m.endTimestampNs > m.startTimestampNs ? ((m.endTimestampNs - m.startTimestampNs) * 1e-9) / (T - 1) : 0.1;
  const numeric = m.tracks.filter((t) => /^\d+$/.test(t.trackId)).map((t) => Number(t.trackId));
  let fresh = Math.max(0, ...numeric.filter((v) => v < 2 ** 31)) + 1;
  const tracks = m.tracks.map((t): WomdTrack => {
    const size = AV2_MOTION_SIZES[t.objectType] ?? AV2_MOTION_SIZES.other;
    const zero = (a: Float64Array) => Float64Array.from(a, (v, k) => (t.valid[k] ? v : 0));
    return {
      id: /^\d+$/.test(t.trackId) && Number(t.trackId) < 2 ** 31 ? Number(t.trackId) : fresh++,
      objectType: TYPE_CODE[t.objectType] ?? WOMD_OBJECT_TYPE.other,
      centerX: zero(t.x),
      centerY: zero(t.y),
      centerZ: new Float64Array(T),
      length: new Float32Array(T).fill(size[0]),
      width: new Float32Array(T).fill(size[1]),
      height: new Float32Array(T).fill(size[2]),
      heading: Float32Array.from(zero(t.heading)),
      velocityX: Float32Array.from(zero(t.vx)),
      velocityY: Float32Array.from(zero(t.vy)),
      valid: t.valid.slice(),
    };
  });
  const sdc = m.tracks.findIndex((t) => t.trackId === 'AV');
  const focal = m.tracks.findIndex((t) => t.trackId === m.focalTrackId);
  const ttp = m.tracks.flatMap((t, i) =>
    t.category === AV2_TRACK_CATEGORY.scored || t.category === AV2_TRACK_CATEGORY.focal
      ? [{ trackIndex: i, difficulty: 0 }]
      : [],
  );
  const laneIds = new Set(m.map.lanes.map((l) => l.id));
  let fid =
    Math.max(
      0,
      ...m.map.lanes.map((l) => l.id),
      ...m.map.drivableAreas.map((a) => a.id),
      ...m.map.crossings.map((c) => c.id),
    ) + 1;
  const features: WomdPolyFeature[] = [];
  const lanes: WomdLane[] = m.map.lanes.map((l) => {
    const span = (nb: number | null) =>
      nb !== null && laneIds.has(nb)
        ? [
            {
              featureId: nb,
              selfStartIndex: 0,
              selfEndIndex: l.centerline.length - 1,
              neighborStartIndex: 0,
              neighborEndIndex: 0,
              boundaries: [],
            },
          ]
        : [];
    for (const [pts, mark] of [
      [l.leftBoundary, l.leftMark],
      [l.rightBoundary, l.rightMark],
    ] as const) {
      const type = MARKS[mark];
      if (type && pts.length >= 2)
        features.push({
          id: fid++,
          kind: 'road_line',
          type: (ROAD_LINE_TYPES as readonly string[]).indexOf(type),
          points: flat(pts),
        });
    }
    return {
      id: l.id,
      speedLimitMph: 0,
      laneType: l.laneType === 'BIKE' ? 3 : 2,
      interpolating: false,
      polyline: flat(l.centerline),
      entryLanes: l.predecessors.filter((p) => laneIds.has(p)),
      exitLanes: l.successors.filter((p) => laneIds.has(p)),
      leftNeighbors: span(l.leftNeighbor),
      rightNeighbors: span(l.rightNeighbor),
      leftBoundaries: [],
      rightBoundaries: [],
    };
  });
  // Road edges: each drivable area's boundary, closed and counter-clockwise (road on its left, as WOMD).
  for (const a of m.map.drivableAreas) {
    if (a.boundary.length < 3) continue;
    const ring = signedArea(a.boundary) >= 0 ? [...a.boundary] : [...a.boundary].reverse();
    ring.push(ring[0]);
    features.push({ id: fid++, kind: 'road_edge', type: 1, points: flat(ring) });
  }
  for (const c of m.map.crossings)
    if (c.edge1.length >= 2 && c.edge2.length >= 2)
      features.push({
        id: c.id,
        kind: 'crosswalk',
        type: 0,
        points: flat([c.edge1[0], c.edge1[c.edge1.length - 1], c.edge2[c.edge2.length - 1], c.edge2[0]]),
      });
  const s = womdToScenario({
    scenarioId: m.scenarioId,
    timestampsSeconds: Float64Array.from({ length: T }, (_, t) => Math.round(t * dt * 1e9) / 1e9),
    currentTimeIndex: Math.min(cfg.currentStep, T - 1),
    sdcTrackIndex: sdc,
    objectsOfInterest: focal >= 0 ? [tracks[focal].id] : [],
    tracksToPredict: ttp,
    tracks,
    lanes,
    features,
    stopSigns: [],
    dynamicMapStates: [],
  });
  // Lane widths from the painted boundaries; intersections as the map marks them.
  const byId = new Map(m.map.lanes.map((l) => [l.id, l]));
  for (const lane of s.map.lanes) {
    const src = byId.get(lane.id)!;
    lane.inIntersection = src.isIntersection;
    if (src.leftBoundary.length < 2 || src.rightBoundary.length < 2) continue;
    const left = xy32(src.leftBoundary);
    const right = xy32(src.rightBoundary);
    const w: number[] = [];
    for (let i = 0; i < lane.xy.length; i += 2)
      w.push(
        projectOntoPolyline(left, lane.xy[i], lane.xy[i + 1]).distance +
          projectOntoPolyline(right, lane.xy[i], lane.xy[i + 1]).distance,
      );
    w.sort((a, b) => a - b);
    lane.widthM = Math.min(cfg.maxLaneWidthM, Math.max(cfg.minLaneWidthM, w[w.length >> 1]));
  }
  s.map.drivableAreas = m.map.drivableAreas.map((a) => ({ id: a.id, xy: xy32(a.boundary) }));
  s.source = 'av2-motion';
  return s;
}
