// GPUDrive / Nocturne scenario JSON → the simulator's Scenario: objects become agents (10 Hz, invalid
// steps' −10000 sentinels cleared, goals from goalPosition), roads become the map by their type and
// map_element_id; through the WOMD importer so lane widths and stop lines follow the same rules.
import { GPUDRIVE_INVALID, type GpudriveScenario, MAP_ELEMENT_ID } from '../../datasets/gpudriveJson.ts';
import {
  WOMD_OBJECT_TYPE,
  type WomdLane,
  type WomdPolyFeature,
  type WomdScenario,
  type WomdStopSign,
  type WomdTrack,
} from '../../datasets/womd.ts';
import type { Scenario } from '../scenario.ts';
import { womdToScenario } from './womdScenario.ts';

export interface GpudriveImportConfig {
  /** Step rate of the format (GPUDrive and Nocturne: WOMD's 10 Hz), seconds. */
  dtS: number;
  /** The current step (WOMD: 10 of 91); clamped to the scenario's length. */
  currentStep: number;
  /** Heights where the file has none (Nocturne), by type, metres. */
  defaultHeightM: Record<'vehicle' | 'pedestrian' | 'cyclist' | 'other', number>;
}

export const DEFAULT_GPUDRIVE_IMPORT: GpudriveImportConfig = {
  dtS: 0.1,
  currentStep: 10,
  defaultHeightM: { vehicle: 1.6, pedestrian: 1.75, cyclist: 1.7, other: 1.0 },
};

const TYPE_CODE: Record<string, number> = {
  vehicle: WOMD_OBJECT_TYPE.vehicle,
  pedestrian: WOMD_OBJECT_TYPE.pedestrian,
  cyclist: WOMD_OBJECT_TYPE.cyclist,
};

/** The scenario id: scenario_id, else the file name the converter recorded (Nocturne), else the file. */
function scenarioIdOf(g: GpudriveScenario, fallback: string): string {
  if (g.scenarioId) return g.scenarioId;
  return (g.name || fallback).replace(/\.json$/, '');
}

/** The GPUDrive scenario as a WOMD scenario (what it carries; no lane topology, signals or boundaries). */
export function gpudriveToWomd(
  g: GpudriveScenario,
  fallbackId: string,
  cfg: GpudriveImportConfig = DEFAULT_GPUDRIVE_IMPORT,
): WomdScenario {
  const T = g.numSteps;
  const ids = new Set<number>();
  const tracks = g.objects.map((o, i): WomdTrack => {
    // Nocturne has no ids: the row stands for one (unique within the file).
    let id = o.id ?? i;
    if (ids.has(id)) id = Math.max(...ids) + 1;
    ids.add(id);
    const type = (TYPE_CODE[o.type] ?? WOMD_OBJECT_TYPE.other) as number;
    const kind = (o.type in TYPE_CODE ? o.type : 'other') as keyof GpudriveImportConfig['defaultHeightM'];
    const h = o.height ?? cfg.defaultHeightM[kind];
    const clear = (a: Float64Array) =>
      Float64Array.from(a, (v, t) => (o.valid[t] && v !== GPUDRIVE_INVALID ? v : 0));
    return {
      id,
      objectType: type,
      centerX: clear(o.x),
      centerY: clear(o.y),
      centerZ: o.z ? clear(o.z) : new Float64Array(T),
      length: new Float32Array(T).fill(o.length),
      width: new Float32Array(T).fill(o.width),
      height: new Float32Array(T).fill(h),
      heading: Float32Array.from(clear(o.heading)),
      velocityX: Float32Array.from(clear(o.vx)),
      velocityY: Float32Array.from(clear(o.vy)),
      valid: o.valid.slice(),
    };
  });
  const lanes: WomdLane[] = [];
  const features: WomdPolyFeature[] = [];
  const stopSigns: WomdStopSign[] = [];
  let fresh = Math.max(0, ...g.roads.map((r) => r.id ?? 0)) + 1;
  for (const r of g.roads) {
    const id = r.id ?? fresh++;
    // Heights absent (Nocturne): 0.
    const points = Float64Array.from(r.points, (v, k) => (k % 3 === 2 && Number.isNaN(v) ? 0 : v));
    const me = r.mapElementId;
    switch (r.type) {
      case 'lane': {
        const laneType = me !== undefined && me >= 0 && me <= 3 ? me : 0;
        lanes.push({
          id,
          speedLimitMph: 0,
          laneType,
          interpolating: false,
          polyline: points,
          entryLanes: [],
          exitLanes: [],
          leftNeighbors: [],
          rightNeighbors: [],
          leftBoundaries: [],
          rightBoundaries: [],
        });
        break;
      }
      case 'road_line': {
        const code = me !== undefined ? me - MAP_ELEMENT_ID.roadLineBase : 0;
        features.push({ id, kind: 'road_line', type: code >= 0 && code <= 8 ? code : 0, points });
        break;
      }
      case 'road_edge': {
        const code = me !== undefined ? me - MAP_ELEMENT_ID.roadEdgeBase : 1;
        features.push({ id, kind: 'road_edge', type: code >= 0 && code <= 2 ? code : 0, points });
        break;
      }
      case 'crosswalk':
      case 'speed_bump':
      case 'driveway':
        features.push({ id, kind: r.type, type: 0, points });
        break;
      case 'stop_sign':
        // The JSON keeps the sign's position only, not the lanes it controls.
        stopSigns.push({ id, lanes: [], x: points[0], y: points[1], z: points[2] });
        break;
      default:
      // Other road types load as None in GPUDrive: nothing to keep.
    }
  }
  const m = g.metadata;
  return {
    scenarioId: scenarioIdOf(g, fallbackId),
    timestampsSeconds: Float64Array.from({ length: T }, (_, t) => Math.round(t * cfg.dtS * 1e6) / 1e6),
    currentTimeIndex: Math.min(cfg.currentStep, T - 1),
    sdcTrackIndex: m?.sdcTrackIndex ?? -1,
    objectsOfInterest: m?.objectsOfInterest ?? [],
    tracksToPredict: m?.tracksToPredict ?? [],
    tracks,
    lanes,
    features,
    stopSigns,
    dynamicMapStates: [],
  };
}

/** A GPUDrive / Nocturne scenario as a Scenario (goals from goalPosition; mark_as_expert kept). */
export function gpudriveToScenario(
  g: GpudriveScenario,
  fallbackId: string,
  cfg: GpudriveImportConfig = DEFAULT_GPUDRIVE_IMPORT,
): Scenario {
  const s = womdToScenario(gpudriveToWomd(g, fallbackId, cfg));
  g.objects.forEach((o, i) => {
    s.goalX[i] = o.goalX;
    s.goalY[i] = o.goalY;
  });
  if (g.objects.some((o) => o.markAsExpert !== undefined))
    s.agents.markAsExpert = Uint8Array.from(g.objects, (o) => (o.markAsExpert ? 1 : 0));
  // Without metadata (Nocturne) there is no SDC and no tracks to predict: the WOSAC score then rates
  // every controlled agent, not an empty set.
  if (!g.metadata || g.metadata.tracksToPredict.length === 0) {
    delete s.tracksToPredict;
    delete s.predictionDifficulty;
  }
  s.source = g.scenarioId !== undefined || g.metadata ? 'womd-json:gpudrive' : 'womd-json:nocturne';
  // Sizes are per agent in this format: the per-step copies add nothing.
  delete s.agents.stepLength;
  delete s.agents.stepWidth;
  delete s.agents.stepHeight;
  return s;
}
