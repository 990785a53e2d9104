// Argoverse 2 annotation tracks → the Scenario model: one agent per cuboid track plus the ego, at the
// sweep rate (10 Hz), velocities by finite differences. The sample log ships no map: the scenario's
// map is empty, so off-road and road-edge metrics are not rated on it.
import type { Av2Tracks } from '../../datasets/av2Tracks.ts';
import { allocateAgentTracks, type AgentType, emptyMap, type Scenario } from '../scenario.ts';

export interface Av2ImportConfig {
  /** Steps of history before the simulated future (WOMD uses 10 at 10 Hz). */
  currentStep: number;
  /** Size of the ego vehicle, which AV2 does not annotate (a mid-size sedan), metres. */
  egoLengthM: number;
  egoWidthM: number;
  egoHeightM: number;
}

export const DEFAULT_AV2_IMPORT: Av2ImportConfig = {
  currentStep: 10,
  egoLengthM: 4.9,
  egoWidthM: 1.9,
  egoHeightM: 1.6,
};

const PEDESTRIANS = new Set(['PEDESTRIAN', 'WHEELCHAIR', 'STROLLER', 'OFFICIAL_SIGNALER']);
const CYCLISTS = new Set([
  'BICYCLE',
  'BICYCLIST',
  'MOTORCYCLE',
  'MOTORCYCLIST',
  'WHEELED_RIDER',
  'WHEELED_DEVICE',
]);
const VEHICLES = new Set([
  'REGULAR_VEHICLE',
  'LARGE_VEHICLE',
  'BUS',
  'BOX_TRUCK',
  'TRUCK',
  'TRUCK_CAB',
  'VEHICULAR_TRAILER',
  'SCHOOL_BUS',
  'ARTICULATED_BUS',
  'RAILED_VEHICLE',
]);

/** AV2 category → agent type (two-wheelers are cyclists, as in WOMD; static objects are 'other'). */
export function av2AgentType(category: string): AgentType {
  if (VEHICLES.has(category)) return 'vehicle';
  if (PEDESTRIANS.has(category)) return 'pedestrian';
  if (CYCLISTS.has(category)) return 'cyclist';
  return 'other';
}

export function av2ToScenario(tr: Av2Tracks, cfg: Av2ImportConfig = DEFAULT_AV2_IMPORT): Scenario {
  const T = tr.timestampsNs.length;
  const N = tr.trackUuids.length;
  const n = N + 1;
  const span = T > 1 ? Number(tr.timestampsNs[T - 1] - tr.timestampsNs[0]) * 1e-9 : 0.1;
  const dt = T > 1 ? Math.round((span / (T - 1)) * 1000) / 1000 : 0.1;
  const a = allocateAgentTracks(n, T);
  const fill = (i: number, get: (t: number) => [number, number, number, number] | null) => {
    for (let t = 0; t < T; t++) {
      const p = get(t);
      if (!p) continue;
      const k = i * T + t;
      [a.x[k], a.y[k], a.z[k], a.yaw[k]] = p;
      a.valid[k] = 1;
    }
    // Velocity by central differences over valid neighbours (one-sided at the ends of a run).
    for (let t = 0; t < T; t++) {
      const k = i * T + t;
      if (!a.valid[k]) continue;
      const prev = t > 0 && a.valid[k - 1] ? k - 1 : k;
      const next = t < T - 1 && a.valid[k + 1] ? k + 1 : k;
      if (prev === next) continue;
      const span = Number(tr.timestampsNs[next - i * T] - tr.timestampsNs[prev - i * T]) * 1e-9;
      a.vx[k] = (a.x[next] - a.x[prev]) / span;
      a.vy[k] = (a.y[next] - a.y[prev]) / span;
    }
  };
  for (let i = 0; i < N; i++) {
    a.ids[i] = i;
    a.types[i] = av2AgentType(tr.categories[i]);
    a.length[i] = tr.length[i];
    a.width[i] = tr.width[i];
    a.height[i] = tr.height[i];
    fill(i, (t) =>
      tr.valid[i * T + t] ? [tr.x[i * T + t], tr.y[i * T + t], tr.z[i * T + t], tr.yaw[i * T + t]] : null,
    );
  }
  const ego = N;
  a.ids[ego] = N;
  a.types[ego] = 'vehicle';
  a.length[ego] = cfg.egoLengthM;
  a.width[ego] = cfg.egoWidthM;
  a.height[ego] = cfg.egoHeightM;
  fill(ego, (t) => [tr.egoX[t], tr.egoY[t], tr.egoZ[t] + cfg.egoHeightM / 2, tr.egoYaw[t]]);
  const cur = Math.min(cfg.currentStep, T - 1);
  const controlled = Uint8Array.from({ length: n }, (_, i) => a.valid[i * T + cur]);
  const goalX = new Float32Array(n).fill(NaN);
  const goalY = new Float32Array(n).fill(NaN);
  for (let i = 0; i < n; i++) {
    for (let t = T - 1; t >= 0; t--) {
      if (!a.valid[i * T + t]) continue;
      goalX[i] = a.x[i * T + t];
      goalY[i] = a.y[i * T + t];
      break;
    }
  }
  return {
    id: tr.logId.startsWith('av2') ? tr.logId : `av2-${tr.logId}`,
    dtS: dt,
    numSteps: T,
    currentStep: cur,
    map: emptyMap(),
    agents: a,
    egoIndex: ego,
    controlled,
    goalX,
    goalY,
    routes: Array.from({ length: n }, () => []),
    source: 'av2',
  };
}
