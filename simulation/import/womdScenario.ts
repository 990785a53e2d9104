// Waymo Open Motion `Scenario` → the simulator's Scenario model: tracks become agents (10 Hz, the SDC
// as ego, every agent valid at the current step controlled, as in the Sim Agents challenge), the map
// features of every kind and the signal states become the map (export: simulation/export/womdExport.ts).
import { pointAtArcLength, projectOntoPolyline } from '../../core/geometry/polyline.ts';
import {
  MPH_TO_MPS,
  WOMD_OBJECT_TYPE,
  WOMD_SIGNAL,
  type WomdBoundary,
  type WomdLaneNeighbor,
  type WomdScenario,
  type WomdTrack,
} from '../../datasets/womd.ts';
import {
  allocateAgentTracks,
  type AgentType,
  emptyMap,
  type Lane,
  type LaneBoundary,
  type LaneNeighborSpan,
  LANE_TYPES,
  LIGHT,
  type MapFeature,
  NO_SIGNAL_STATE,
  ROAD_EDGE_TYPES,
  ROAD_LINE_TYPES,
  type Scenario,
  type StopLine,
  type TrafficLight,
} from '../scenario.ts';
import { upperMedian } from '../../core/stats.ts';

export { MPH_TO_MPS } from '../../datasets/womd.ts';
// The export lives beside the other exporters; re-exported here, where callers found it before.
export { scenarioToWomd } from '../export/womdExport.ts';

/** Conversion settings (WOMD has no lane widths: they come from neighbouring lanes or a default). */
export interface WomdImportConfig {
  /** Width of a lane without neighbours, metres (a US urban lane). */
  defaultLaneWidthM: number;
  /** Width of a bike lane without neighbours, metres. */
  bikeLaneWidthM: number;
  /** Neighbour spacings below the minimum are ignored (merging lanes); above the maximum, clamped. */
  minLaneWidthM: number;
  maxLaneWidthM: number;
}

export const DEFAULT_WOMD_IMPORT: WomdImportConfig = {
  defaultLaneWidthM: 3.7,
  bikeLaneWidthM: 1.8,
  minLaneWidthM: 2.5,
  maxLaneWidthM: 5.0,
};

const TYPE_NAMES: Record<number, AgentType> = {
  [WOMD_OBJECT_TYPE.vehicle]: 'vehicle',
  [WOMD_OBJECT_TYPE.pedestrian]: 'pedestrian',
  [WOMD_OBJECT_TYPE.cyclist]: 'cyclist',
};

/** WOMD's nine signal states folded into red / yellow / green / unknown (arrows and flashing alike). */
export function lightFromSignal(state: number): number {
  switch (state) {
    case WOMD_SIGNAL.stop:
    case WOMD_SIGNAL.arrowStop:
    case WOMD_SIGNAL.flashingStop:
      return LIGHT.red;
    case WOMD_SIGNAL.caution:
    case WOMD_SIGNAL.arrowCaution:
    case WOMD_SIGNAL.flashingCaution:
      return LIGHT.yellow;
    case WOMD_SIGNAL.go:
    case WOMD_SIGNAL.arrowGo:
      return LIGHT.green;
    default:
      return LIGHT.unknown;
  }
}

function xyOf(points: Float64Array): Float32Array {
  const n = points.length / 3;
  const out = new Float32Array(2 * n);
  for (let i = 0; i < n; i++) {
    out[2 * i] = points[3 * i];
    out[2 * i + 1] = points[3 * i + 1];
  }
  return out;
}

function zOf(points: Float64Array): Float32Array {
  const out = new Float32Array(points.length / 3);
  for (let i = 0; i < out.length; i++) out[i] = points[3 * i + 2];
  return out;
}

/** A polyline/polygon feature with its heights and (for lines and edges) its type name. */
function featureOf(id: number, points: Float64Array, type?: string): MapFeature {
  return { id, xy: xyOf(points), z: zOf(points), ...(type === undefined ? {} : { type }) };
}

const nameOf = (names: readonly string[], code: number) => names[code] ?? names[0];

function boundariesOf(list: WomdBoundary[]): LaneBoundary[] {
  return list.map((b) => ({
    laneStartIndex: b.laneStartIndex,
    laneEndIndex: b.laneEndIndex,
    featureId: b.boundaryFeatureId,
    type: nameOf(ROAD_LINE_TYPES, b.boundaryType),
  }));
}

function spansOf(list: WomdLaneNeighbor[], keepId: (id: number) => boolean): LaneNeighborSpan[] {
  return list
    .filter((n) => keepId(n.featureId))
    .map((n) => ({
      laneId: n.featureId,
      selfStartIndex: n.selfStartIndex,
      selfEndIndex: n.selfEndIndex,
      neighborStartIndex: n.neighborStartIndex,
      neighborEndIndex: n.neighborEndIndex,
      boundaries: boundariesOf(n.boundaries),
    }));
}

/** A stop line across `lane` at the point of the lane closest to (x, y): perpendicular, one lane wide. */
function stopLineAcross(lane: Lane, x: number, y: number, id: number): StopLine {
  const p = pointAtArcLength(lane.xy, projectOntoPolyline(lane.xy, x, y).s);
  const c = Math.cos(p.heading);
  const s = Math.sin(p.heading);
  const px = p.x;
  const py = p.y;
  const h = lane.widthM / 2;
  return { id, laneId: lane.id, xy: Float32Array.of(px + s * h, py - c * h, px - s * h, py + c * h) };
}

function scoredRows(w: WomdScenario, n: number) {
  const rows = new Map<number, number>();
  for (const r of w.tracksToPredict)
    if (r.trackIndex >= 0 && r.trackIndex < n && !rows.has(r.trackIndex))
      rows.set(r.trackIndex, r.difficulty);
  return {
    tracksToPredict: Int32Array.from(rows.keys()),
    predictionDifficulty: Uint8Array.from(rows.values()),
  };
}

export function womdToScenario(w: WomdScenario, cfg: WomdImportConfig = DEFAULT_WOMD_IMPORT): Scenario {
  const T = w.timestampsSeconds.length;
  const n = w.tracks.length;
  const dt = T > 1 ? (w.timestampsSeconds[T - 1] - w.timestampsSeconds[0]) / (T - 1) : 0.1;
  const cur = Math.min(Math.max(w.currentTimeIndex, 0), T - 1);
  const a = allocateAgentTracks(n, T);
  const controlled = new Uint8Array(n);
  const goalX = new Float32Array(n).fill(NaN);
  const goalY = new Float32Array(n).fill(NaN);
  // WOMD states a box per step (sizes vary by a few cm between steps): kept for the export.
  a.stepLength = new Float32Array(n * T);
  a.stepWidth = new Float32Array(n * T);
  a.stepHeight = new Float32Array(n * T);
  w.tracks.forEach((tr: WomdTrack, i) => {
    a.ids[i] = tr.id;
    a.types[i] = TYPE_NAMES[tr.objectType] ?? 'other';
    // One size per agent: the size at the current step, else at its first valid step.
    let k0 = tr.valid[cur] ? cur : tr.valid.indexOf(1);
    if (k0 < 0) k0 = cur;
    a.length[i] = tr.length[k0] > 0 ? tr.length[k0] : 0.1;
    a.width[i] = tr.width[k0] > 0 ? tr.width[k0] : 0.1;
    a.height[i] = tr.height[k0] > 0 ? tr.height[k0] : 0.1;
    let last = -1;
    for (let t = 0; t < T; t++) {
      const k = i * T + t;
      a.x[k] = tr.centerX[t];
      a.y[k] = tr.centerY[t];
      a.z[k] = tr.centerZ[t];
      a.yaw[k] = tr.heading[t];
      a.vx[k] = tr.velocityX[t];
      a.vy[k] = tr.velocityY[t];
      a.valid[k] = tr.valid[t];
      a.stepLength![k] = tr.length[t];
      a.stepWidth![k] = tr.width[t];
      a.stepHeight![k] = tr.height[t];
      if (tr.valid[t]) last = t;
    }
    controlled[i] = tr.valid[cur];
    // The goal of each agent is where its log ends (WOMD has no routes).
    if (last >= 0) {
      goalX[i] = a.x[i * T + last];
      goalY[i] = a.y[i * T + last];
    }
  });

  const map = emptyMap();
  const laneIds = new Set(w.lanes.map((l) => l.id));
  const keep = (ids: number[]) => ids.filter((id) => laneIds.has(id));
  const signalLanes = new Set<number>();
  for (const step of w.dynamicMapStates) for (const ls of step) signalLanes.add(ls.lane);
  for (const l of w.lanes) {
    const left = spansOf(l.leftNeighbors, (id) => laneIds.has(id));
    const right = spansOf(l.rightNeighbors, (id) => laneIds.has(id));
    map.lanes.push({
      id: l.id,
      xy: xyOf(l.polyline),
      widthM: l.laneType === 3 ? cfg.bikeLaneWidthM : cfg.defaultLaneWidthM,
      speedLimitMps: l.speedLimitMph * MPH_TO_MPS,
      successors: keep(l.exitLanes),
      predecessors: keep(l.entryLanes),
      leftNeighbors: left.map((nb) => nb.laneId),
      rightNeighbors: right.map((nb) => nb.laneId),
      inIntersection: false,
      z: zOf(l.polyline),
      laneType: nameOf(LANE_TYPES, l.laneType) as Lane['laneType'],
      interpolating: l.interpolating,
      leftBoundaries: boundariesOf(l.leftBoundaries),
      rightBoundaries: boundariesOf(l.rightBoundaries),
      leftNeighborSpans: left,
      rightNeighborSpans: right,
    });
  }
  const lanes = new Map(map.lanes.map((l) => [l.id, l]));
  for (const lane of map.lanes) {
    // Width from the spacing to parallel neighbours (median over the lane's points).
    const nbs = [...lane.leftNeighbors, ...lane.rightNeighbors];
    if (nbs.length > 0) {
      let best = Infinity;
      for (const nb of nbs) {
        const other = lanes.get(nb)!;
        const d: number[] = [];
        for (let i = 0; i < lane.xy.length; i += 2)
          d.push(projectOntoPolyline(other.xy, lane.xy[i], lane.xy[i + 1]).distance);
        best = Math.min(best, upperMedian(d));
      }
      // Closer than a lane width means overlapping or merging lanes, not parallel ones: keep the default.
      if (best >= cfg.minLaneWidthM) lane.widthM = Math.min(cfg.maxLaneWidthM, best);
    }
    // WOMD does not mark intersections: lanes that a signal controls, and connector lanes
    // without neighbours that leave a fork, are taken as inside one.
    const forked = lane.predecessors.some((p) => (lanes.get(p)?.successors.length ?? 0) > 1);
    lane.inIntersection = signalLanes.has(lane.id) || (forked && nbs.length === 0);
  }
  map.roadLines = [];
  map.speedBumps = [];
  map.driveways = [];
  for (const f of w.features) {
    if (f.kind === 'road_edge')
      map.roadEdges.push(featureOf(f.id, f.points, nameOf(ROAD_EDGE_TYPES, f.type)));
    else if (f.kind === 'road_line')
      map.roadLines.push(featureOf(f.id, f.points, nameOf(ROAD_LINE_TYPES, f.type)));
    else if (f.kind === 'crosswalk') map.crosswalks.push(featureOf(f.id, f.points));
    else if (f.kind === 'speed_bump') map.speedBumps.push(featureOf(f.id, f.points));
    else map.driveways.push(featureOf(f.id, f.points));
  }
  map.stopSigns = w.stopSigns.map((g) => ({ id: g.id, lanes: [...g.lanes], x: g.x, y: g.y, z: g.z }));
  // Stop lines: one per (stop sign, lane) at the lane point nearest the sign, one per signalled lane.
  let fresh =
    Math.max(
      0,
      ...w.lanes.map((l) => l.id),
      ...w.features.map((f) => f.id),
      ...w.stopSigns.map((s) => s.id),
    ) + 1;
  for (const sign of w.stopSigns) {
    sign.lanes.forEach((laneId, j) => {
      const lane = lanes.get(laneId);
      if (lane) map.stopLines.push(stopLineAcross(lane, sign.x, sign.y, j === 0 ? sign.id : fresh++));
    });
  }
  const lights = new Map<number, TrafficLight>();
  w.dynamicMapStates.forEach((step, t) => {
    if (t >= T) return;
    for (const ls of step) {
      let light = lights.get(ls.lane);
      if (!light) {
        light = {
          laneId: ls.lane,
          stopX: ls.stopX,
          stopY: ls.stopY,
          stopZ: ls.stopZ,
          states: new Uint8Array(T),
          signalStates: new Uint8Array(T).fill(NO_SIGNAL_STATE),
        };
        lights.set(ls.lane, light);
      }
      light.states[t] = lightFromSignal(ls.state);
      light.signalStates![t] = ls.state;
    }
  });
  // In the source's order (first listed first): the export lists them the same way.
  for (const light of lights.values()) {
    map.trafficLights.push(light);
    const lane = lanes.get(light.laneId);
    // Derived stop lines get negative ids (−1 − lane id): never exported, rebuilt from the signal.
    if (lane) map.stopLines.push(stopLineAcross(lane, light.stopX, light.stopY, -1 - lane.id));
  }
  return {
    id: w.scenarioId || 'womd',
    dtS: Math.round(dt * 1e6) / 1e6,
    numSteps: T,
    currentStep: cur,
    map,
    agents: a,
    egoIndex: w.sdcTrackIndex >= 0 && w.sdcTrackIndex < n ? w.sdcTrackIndex : -1,
    // The agents the Sim Agents challenge scores besides the SDC (rows out of range or repeated are
    // dropped), with their difficulty.
    ...scoredRows(w, n),
    objectsOfInterest: Int32Array.from(w.objectsOfInterest),
    timestampsS: Float64Array.from(w.timestampsSeconds),
    controlled,
    goalX,
    goalY,
    routes: Array.from({ length: n }, () => []),
    source: 'womd',
  };
}
