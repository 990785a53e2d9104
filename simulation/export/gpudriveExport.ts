// A Scenario as GPUDrive / Nocturne scenario JSON (objects[], roads[], tl_states, metadata), the layout
// GPUDrive's loader reads (src/json_serialization.hpp) and its WOMD converter writes (invalid steps −10000).
import { GPUDRIVE_INVALID, MAP_ELEMENT_ID } from '../../datasets/gpudriveJson.ts';
import { LANE_TYPES, type MapFeature, ROAD_EDGE_TYPES, ROAD_LINE_TYPES, type Scenario } from '../scenario.ts';

type Point = { x: number; y: number; z: number };

const pointsOf = (f: { xy: Float32Array; z?: Float32Array }): Point[] =>
  Array.from({ length: f.xy.length / 2 }, (_, i) => ({
    x: f.xy[2 * i],
    y: f.xy[2 * i + 1],
    z: f.z?.[i] ?? 0,
  }));

const indexOr = (names: readonly string[], name: string | undefined, fallback: number) => {
  const i = name === undefined ? -1 : names.indexOf(name);
  return i < 0 ? fallback : i;
};

/** What a scenario holds that GPUDrive JSON cannot carry, counted by what (empty: nothing). */
export function gpudriveExportLosses(s: Scenario): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (what: string, n: number) => {
    if (n > 0) out[what] = (out[what] ?? 0) + n;
  };
  add('traffic_lights', s.map.trafficLights.length);
  add('drivable_areas', s.map.drivableAreas.length);
  add('sidewalks', s.map.sidewalks.length);
  add(
    'lane_links',
    s.map.lanes.reduce(
      (n, l) => n + l.successors.length + l.leftNeighbors.length + l.rightNeighbors.length,
      0,
    ),
  );
  add('routes', s.routes.filter((r) => r.length > 0).length);
  add('per_step_sizes', s.agents.stepLength ? s.agents.ids.length : 0);
  return out;
}

/** The GPUDrive JSON document of a scenario (every step of the scenario; GPUDrive reads the first 91). */
export function scenarioToGpudrive(s: Scenario): Record<string, unknown> {
  const T = s.numSteps;
  const a = s.agents;
  const objects = Array.from(a.ids, (id, i) => {
    const position: Point[] = [];
    const heading: number[] = [];
    const velocity: { x: number; y: number }[] = [];
    const valid: boolean[] = [];
    let last = -1;
    for (let t = 0; t < T; t++) {
      const k = i * T + t;
      const v = a.valid[k] === 1;
      valid.push(v);
      if (v) last = k;
      position.push(
        v
          ? { x: a.x[k], y: a.y[k], z: a.z[k] }
          : { x: GPUDRIVE_INVALID, y: GPUDRIVE_INVALID, z: GPUDRIVE_INVALID },
      );
      heading.push(v ? a.yaw[k] : GPUDRIVE_INVALID);
      velocity.push(v ? { x: a.vx[k], y: a.vy[k] } : { x: GPUDRIVE_INVALID, y: GPUDRIVE_INVALID });
    }
    // The goal: the scenario's, else where the log ends (GPUDrive needs one for every object).
    const gx = Number.isFinite(s.goalX[i]) ? s.goalX[i] : last >= 0 ? a.x[last] : 0;
    const gy = Number.isFinite(s.goalY[i]) ? s.goalY[i] : last >= 0 ? a.y[last] : 0;
    return {
      position,
      width: a.width[i],
      length: a.length[i],
      height: a.height[i],
      heading,
      velocity,
      valid,
      goalPosition: { x: gx, y: gy, z: last >= 0 ? a.z[last] : 0 },
      type: a.types[i],
      id,
      mark_as_expert: a.markAsExpert ? a.markAsExpert[i] === 1 : false,
    };
  });
  // Road ids must be unique uint32 in GPUDrive: the scenario's own where they are, else fresh ones.
  const used = new Set<number>();
  let fresh = 0;
  const roadId = (id: number) => {
    if (Number.isInteger(id) && id >= 0 && id <= 0xffffffff && !used.has(id)) {
      used.add(id);
      return id;
    }
    while (used.has(fresh)) fresh++;
    used.add(fresh);
    return fresh;
  };
  const roads: Record<string, unknown>[] = [];
  const road = (type: string, f: { id: number; xy: Float32Array; z?: Float32Array }, mapElementId: number) =>
    roads.push({ geometry: pointsOf(f), type, map_element_id: mapElementId, id: roadId(f.id) });
  for (const l of s.map.lanes)
    road('lane', l, indexOr(LANE_TYPES, l.laneType, MAP_ELEMENT_ID.laneSurfaceStreet));
  for (const f of s.map.roadLines ?? [])
    road('road_line', f, MAP_ELEMENT_ID.roadLineBase + indexOr(ROAD_LINE_TYPES, f.type, 0));
  for (const f of s.map.roadEdges)
    road('road_edge', f, MAP_ELEMENT_ID.roadEdgeBase + indexOr(ROAD_EDGE_TYPES, f.type, 1));
  const polygons: [string, MapFeature[] | undefined, number][] = [
    ['crosswalk', s.map.crosswalks, MAP_ELEMENT_ID.crosswalk],
    ['speed_bump', s.map.speedBumps, MAP_ELEMENT_ID.speedBump],
    ['driveway', s.map.driveways, MAP_ELEMENT_ID.driveway],
  ];
  for (const [type, list, me] of polygons) for (const f of list ?? []) road(type, f, me);
  // Stop signs: the source's where kept, else one per stop line at its middle (towns state lines only).
  if (s.map.stopSigns)
    for (const g of s.map.stopSigns)
      roads.push({
        geometry: [{ x: g.x, y: g.y, z: g.z }],
        type: 'stop_sign',
        map_element_id: MAP_ELEMENT_ID.stopSign,
        id: roadId(g.id),
      });
  else {
    // Stop lines of signalled lanes belong to the lights (which GPUDrive JSON cannot carry), not to signs.
    const lit = new Set(s.map.trafficLights.map((l) => l.laneId));
    for (const l of s.map.stopLines) {
      if (l.id < 0 || lit.has(l.laneId)) continue;
      const n = l.xy.length / 2;
      const mx = (l.xy[0] + l.xy[2 * (n - 1)]) / 2;
      const my = (l.xy[1] + l.xy[2 * (n - 1) + 1]) / 2;
      road('stop_sign', { id: l.id, xy: Float32Array.of(mx, my) }, MAP_ELEMENT_ID.stopSign);
    }
  }
  const ttp = s.tracksToPredict ? Array.from(s.tracksToPredict) : [];
  return {
    name: `${s.id}.json`,
    scenario_id: s.id,
    objects,
    roads,
    tl_states: {},
    metadata: {
      sdc_track_index: s.egoIndex,
      objects_of_interest: s.objectsOfInterest ? Array.from(s.objectsOfInterest) : [],
      tracks_to_predict: ttp.map((row, j) => ({
        track_index: row,
        difficulty: s.predictionDifficulty?.[j] ?? 0,
      })),
    },
  };
}
