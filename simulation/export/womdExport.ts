// The simulator's Scenario → a Waymo Open Motion `Scenario` (scenario.proto, map.proto): what a WOMD
// import kept is written back as it was; what the model holds but WOMD cannot is counted as dropped.
import {
  MPH_TO_MPS,
  WOMD_OBJECT_TYPE,
  WOMD_SIGNAL,
  type WomdBoundary,
  type WomdLane,
  type WomdLaneNeighbor,
  type WomdPolyFeature,
  type WomdPolyKind,
  type WomdScenario,
  type WomdSignalState,
  type WomdStopSign,
  type WomdTrack,
} from '../../datasets/womd.ts';
import {
  type AgentType,
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
} from '../scenario.ts';

function signalFromLight(light: number): number {
  return light === LIGHT.red
    ? WOMD_SIGNAL.stop
    : light === LIGHT.yellow
      ? WOMD_SIGNAL.caution
      : light === LIGHT.green
        ? WOMD_SIGNAL.go
        : WOMD_SIGNAL.unknown;
}

const codeOf = (names: readonly string[], name: string | undefined, fallback: number) => {
  const k = name === undefined ? -1 : names.indexOf(name);
  return k >= 0 ? k : fallback;
};

/** Stop lines that came from a stop sign or a signal are rebuilt from those, not exported themselves. */
function derivedStopLine(s: Scenario, id: number, laneId: number): boolean {
  if (id < 0 && s.map.trafficLights.some((l) => l.laneId === laneId)) return true;
  return (s.map.stopSigns ?? []).some((g) => g.lanes.includes(laneId));
}

/**
 * What of a scenario a WOMD file cannot hold, as counts by what (only the non-zero ones): drivable-area
 * and sidewalk polygons, stop lines not from a stop sign (written as a one-lane stop sign at the line's
 * midpoint), lane widths not from WOMD, map features without heights (written at z = 0).
 */
export function womdExportLosses(s: Scenario): Record<string, number> {
  const m = s.map;
  const noZ = [
    ...m.lanes,
    ...m.roadEdges,
    ...m.crosswalks,
    ...(m.roadLines ?? []),
    ...(m.speedBumps ?? []),
    ...(m.driveways ?? []),
  ].filter((f) => f.z === undefined).length;
  const losses: Record<string, number> = {
    drivable_area_polygons: m.drivableAreas.length,
    sidewalk_polygons: m.sidewalks.length,
    stop_line_geometries: m.stopLines.filter((l) => !derivedStopLine(s, l.id, l.laneId)).length,
    lane_widths: m.lanes.filter((l) => l.laneType === undefined).length,
    map_features_without_z: noZ,
  };
  return Object.fromEntries(Object.entries(losses).filter(([, v]) => v > 0));
}

function boundaryOut(b: LaneBoundary): WomdBoundary {
  return {
    laneStartIndex: b.laneStartIndex,
    laneEndIndex: b.laneEndIndex,
    boundaryFeatureId: b.featureId,
    boundaryType: codeOf(ROAD_LINE_TYPES, b.type, 0),
  };
}

/** Neighbours with their spans where the import kept them, else beside the whole lane. */
function neighborsOut(lane: Lane, ids: number[], spans: LaneNeighborSpan[] | undefined): WomdLaneNeighbor[] {
  return ids.map((nb) => {
    const sp = spans?.find((x) => x.laneId === nb);
    return sp
      ? {
          featureId: nb,
          selfStartIndex: sp.selfStartIndex,
          selfEndIndex: sp.selfEndIndex,
          neighborStartIndex: sp.neighborStartIndex,
          neighborEndIndex: sp.neighborEndIndex,
          boundaries: sp.boundaries.map(boundaryOut),
        }
      : {
          featureId: nb,
          selfStartIndex: 0,
          selfEndIndex: lane.xy.length / 2 - 1,
          neighborStartIndex: 0,
          neighborEndIndex: 0,
          boundaries: [],
        };
  });
}

function xyz(xy: Float32Array, z: Float32Array | undefined): Float64Array {
  const out = new Float64Array((xy.length / 2) * 3);
  for (let i = 0; i < xy.length / 2; i++) {
    out[3 * i] = xy[2 * i];
    out[3 * i + 1] = xy[2 * i + 1];
    out[3 * i + 2] = z?.[i] ?? 0;
  }
  return out;
}

/**
 * A Scenario as a WOMD Scenario: tracks with each step's size (or the agent's), lanes (speed limits in
 * mph, z, type, boundaries, neighbours with their spans), road lines, road edges, crosswalks, speed
 * bumps, driveways, stop signs, signal states (the source's nine where kept), tracks_to_predict with
 * difficulty, objects_of_interest and timestamps. What it cannot hold: `womdExportLosses`.
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
    const size = (step: Float32Array | undefined, agent: number) =>
      step ? sl(step) : new Float32Array(T).fill(agent);
    return {
      id,
      objectType: typeCode[a.types[i]],
      centerX: Float64Array.from(sl(a.x)),
      centerY: Float64Array.from(sl(a.y)),
      centerZ: Float64Array.from(sl(a.z)),
      length: size(a.stepLength, a.length[i]),
      width: size(a.stepWidth, a.width[i]),
      height: size(a.stepHeight, a.height[i]),
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
  const lanes: WomdLane[] = s.map.lanes.map((l) => ({
    id: l.id,
    speedLimitMph: l.speedLimitMps / MPH_TO_MPS,
    laneType: codeOf(LANE_TYPES, l.laneType, l.widthM < 2.2 ? 3 : 2),
    interpolating: l.interpolating ?? false,
    polyline: xyz(l.xy, l.z),
    entryLanes: l.predecessors,
    exitLanes: l.successors,
    leftNeighbors: neighborsOut(l, l.leftNeighbors, l.leftNeighborSpans),
    rightNeighbors: neighborsOut(l, l.rightNeighbors, l.rightNeighborSpans),
    leftBoundaries: (l.leftBoundaries ?? []).map(boundaryOut),
    rightBoundaries: (l.rightBoundaries ?? []).map(boundaryOut),
  }));
  const poly = (kind: WomdPolyKind, list: MapFeature[] | undefined, type: (f: MapFeature) => number) =>
    (list ?? []).map((f): WomdPolyFeature => ({
      id: unique(f.id),
      kind,
      type: type(f),
      points: xyz(f.xy, f.z),
    }));
  const features: WomdPolyFeature[] = [
    ...poly('road_line', s.map.roadLines, (f) => codeOf(ROAD_LINE_TYPES, f.type, 0)),
    // A road edge of unknown kind is a road boundary (curb): the simulator's road edges are.
    ...poly('road_edge', s.map.roadEdges, (f) => codeOf(ROAD_EDGE_TYPES, f.type, 1)),
    ...poly('crosswalk', s.map.crosswalks, () => 0),
    ...poly('speed_bump', s.map.speedBumps, () => 0),
    ...poly('driveway', s.map.driveways, () => 0),
  ];
  const stopSigns: WomdStopSign[] = [
    ...(s.map.stopSigns ?? []).map((g) => ({ ...g, id: unique(g.id), lanes: [...g.lanes] })),
    ...s.map.stopLines
      .filter((l) => !derivedStopLine(s, l.id, l.laneId))
      .map((l) => ({
        id: unique(l.id),
        lanes: [l.laneId],
        x: (l.xy[0] + l.xy[l.xy.length - 2]) / 2,
        y: (l.xy[1] + l.xy[l.xy.length - 1]) / 2,
        z: 0,
      })),
  ];
  const dyn: WomdSignalState[][] = Array.from({ length: T }, (_, t) =>
    s.map.trafficLights
      .filter((l) => l.signalStates?.[t] !== NO_SIGNAL_STATE)
      .map((l) => ({
        lane: l.laneId,
        state: l.signalStates ? l.signalStates[t] : signalFromLight(l.states[t]),
        stopX: l.stopX,
        stopY: l.stopY,
        stopZ: l.stopZ ?? 0,
      })),
  );
  const rows = s.tracksToPredict ?? new Int32Array(0);
  return {
    scenarioId: s.id,
    timestampsSeconds:
      s.timestampsS?.length === T
        ? Float64Array.from(s.timestampsS)
        : Float64Array.from({ length: T }, (_, t) => t * s.dtS),
    currentTimeIndex: s.currentStep,
    sdcTrackIndex: s.egoIndex,
    objectsOfInterest: Array.from(s.objectsOfInterest ?? []),
    tracksToPredict: Array.from(rows, (trackIndex, k) => ({
      trackIndex,
      difficulty: s.predictionDifficulty?.[k] ?? 0,
    })),
    tracks,
    lanes,
    features,
    stopSigns,
    dynamicMapStates: dyn,
  };
}
