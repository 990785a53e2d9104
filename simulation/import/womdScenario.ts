// Waymo Open Motion `Scenario` ⇄ the simulator's Scenario model: tracks become agents (10 Hz, the SDC
// as ego, every agent valid at the current step controlled, as in the Sim Agents challenge), lanes,
// road edges, crosswalks, stop signs and signal states become the map.
import { pointAtArcLength, projectOntoPolyline } from '../../core/geometry/polyline.ts';
import {
  WOMD_OBJECT_TYPE,
  WOMD_SIGNAL,
  type WomdLane,
  type WomdPolyFeature,
  type WomdScenario,
  type WomdSignalState,
  type WomdStopSign,
  type WomdTrack,
} from '../../datasets/womd.ts';
import {
  allocateAgentTracks,
  type AgentType,
  emptyMap,
  type Lane,
  LIGHT,
  type Scenario,
  type StopLine,
  type TrafficLight,
} from '../scenario.ts';
import { upperMedian } from '../../core/stats.ts';

export const MPH_TO_MPS = 0.44704;

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

function signalFromLight(light: number): number {
  return light === LIGHT.red
    ? WOMD_SIGNAL.stop
    : light === LIGHT.yellow
      ? WOMD_SIGNAL.caution
      : light === LIGHT.green
        ? WOMD_SIGNAL.go
        : WOMD_SIGNAL.unknown;
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

export function womdToScenario(w: WomdScenario, cfg: WomdImportConfig = DEFAULT_WOMD_IMPORT): Scenario {
  const T = w.timestampsSeconds.length;
  const n = w.tracks.length;
  const dt = T > 1 ? (w.timestampsSeconds[T - 1] - w.timestampsSeconds[0]) / (T - 1) : 0.1;
  const cur = Math.min(Math.max(w.currentTimeIndex, 0), T - 1);
  const a = allocateAgentTracks(n, T);
  const controlled = new Uint8Array(n);
  const goalX = new Float32Array(n).fill(NaN);
  const goalY = new Float32Array(n).fill(NaN);
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
    map.lanes.push({
      id: l.id,
      xy: xyOf(l.polyline),
      widthM: l.laneType === 3 ? cfg.bikeLaneWidthM : cfg.defaultLaneWidthM,
      speedLimitMps: l.speedLimitMph * MPH_TO_MPS,
      successors: keep(l.exitLanes),
      predecessors: keep(l.entryLanes),
      leftNeighbors: keep(l.leftNeighbors.map((nb) => nb.featureId)),
      rightNeighbors: keep(l.rightNeighbors.map((nb) => nb.featureId)),
      inIntersection: false,
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
  for (const f of w.features) {
    if (f.kind === 'road_edge') map.roadEdges.push({ id: f.id, xy: xyOf(f.points) });
    else if (f.kind === 'crosswalk') map.crosswalks.push({ id: f.id, xy: xyOf(f.points) });
  }
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
        light = { laneId: ls.lane, stopX: ls.stopX, stopY: ls.stopY, states: new Uint8Array(T) };
        lights.set(ls.lane, light);
      }
      light.states[t] = lightFromSignal(ls.state);
    }
  });
  for (const light of [...lights.values()].sort((p, q) => p.laneId - q.laneId)) {
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
    // The agents the Sim Agents challenge scores besides the SDC (rows out of range are dropped).
    tracksToPredict: Int32Array.from(
      new Set(w.tracksToPredict.map((r) => r.trackIndex).filter((r) => r >= 0 && r < n)),
    ),
    controlled,
    goalX,
    goalY,
    routes: Array.from({ length: n }, () => []),
    source: 'womd',
  };
}

/**
 * A Scenario as a WOMD Scenario: tracks with the per-agent size at every step, lanes (speed limits in
 * mph, neighbours over the whole polyline), road edges, crosswalks, stop lines as single-lane stop
 * signs (except those rebuilt from signals), signal states. Lane widths, drivable-area and sidewalk
 * polygons have no WOMD field and are not written.
 */
export function scenarioToWomd(s: Scenario): WomdScenario {
  const T = s.numSteps;
  const a = s.agents;
  const typeCode: Record<AgentType, number> = {
    vehicle: WOMD_OBJECT_TYPE.vehicle,
    pedestrian: WOMD_OBJECT_TYPE.pedestrian,
    cyclist: WOMD_OBJECT_TYPE.cyclist,
    other: WOMD_OBJECT_TYPE.other,
  };
  const tracks: WomdTrack[] = Array.from(a.ids, (id, i) => {
    const sl = <A extends Float32Array | Uint8Array>(arr: A) => arr.slice(i * T, (i + 1) * T) as A;
    return {
      id,
      objectType: typeCode[a.types[i]],
      centerX: Float64Array.from(sl(a.x)),
      centerY: Float64Array.from(sl(a.y)),
      centerZ: Float64Array.from(sl(a.z)),
      length: new Float32Array(T).fill(a.length[i]),
      width: new Float32Array(T).fill(a.width[i]),
      height: new Float32Array(T).fill(a.height[i]),
      heading: sl(a.yaw),
      velocityX: sl(a.vx),
      velocityY: sl(a.vy),
      valid: sl(a.valid),
    };
  });
  // WOMD feature ids are unique across kinds; keep ours when they are, else renumber the non-lanes.
  const used = new Set(s.map.lanes.map((l) => l.id));
  let next = Math.max(0, ...used) + 1;
  const unique = (id: number) => {
    if (id >= 0 && !used.has(id)) {
      used.add(id);
      return id;
    }
    while (used.has(next)) next++;
    used.add(next);
    return next;
  };
  const xyz = (xy: Float32Array) => {
    const out = new Float64Array((xy.length / 2) * 3);
    for (let i = 0; i < xy.length / 2; i++) {
      out[3 * i] = xy[2 * i];
      out[3 * i + 1] = xy[2 * i + 1];
    }
    return out;
  };
  const full = (lane: Lane, nb: number) => ({
    featureId: nb,
    selfStartIndex: 0,
    selfEndIndex: lane.xy.length / 2 - 1,
    neighborStartIndex: 0,
    neighborEndIndex: 0,
  });
  const lanes: WomdLane[] = s.map.lanes.map((l) => ({
    id: l.id,
    speedLimitMph: l.speedLimitMps / MPH_TO_MPS,
    laneType: l.widthM < 2.2 ? 3 : 2,
    interpolating: false,
    polyline: xyz(l.xy),
    entryLanes: l.predecessors,
    exitLanes: l.successors,
    leftNeighbors: l.leftNeighbors.map((nb) => full(l, nb)),
    rightNeighbors: l.rightNeighbors.map((nb) => full(l, nb)),
  }));
  const features: WomdPolyFeature[] = [
    ...s.map.roadEdges.map((f) => ({
      id: unique(f.id),
      kind: 'road_edge' as const,
      type: 1,
      points: xyz(f.xy),
    })),
    ...s.map.crosswalks.map((f) => ({
      id: unique(f.id),
      kind: 'crosswalk' as const,
      type: 0,
      points: xyz(f.xy),
    })),
  ];
  const signalled = new Set(s.map.trafficLights.map((l) => l.laneId));
  const stopSigns: WomdStopSign[] = s.map.stopLines
    .filter((l) => !(l.id < 0 && signalled.has(l.laneId)))
    .map((l) => ({
      id: unique(l.id),
      lanes: [l.laneId],
      x: (l.xy[0] + l.xy[l.xy.length - 2]) / 2,
      y: (l.xy[1] + l.xy[l.xy.length - 1]) / 2,
      z: 0,
    }));
  const dyn: WomdSignalState[][] = Array.from({ length: T }, (_, t) =>
    s.map.trafficLights.map((l) => ({
      lane: l.laneId,
      state: signalFromLight(l.states[t]),
      stopX: l.stopX,
      stopY: l.stopY,
      stopZ: 0,
    })),
  );
  return {
    scenarioId: s.id,
    timestampsSeconds: Float64Array.from({ length: T }, (_, t) => t * s.dtS),
    currentTimeIndex: s.currentStep,
    sdcTrackIndex: s.egoIndex,
    objectsOfInterest: [],
    tracksToPredict: Array.from(s.tracksToPredict ?? [], (trackIndex) => ({ trackIndex, difficulty: 0 })),
    tracks,
    lanes,
    features,
    stopSigns,
    dynamicMapStates: dyn,
  };
}
