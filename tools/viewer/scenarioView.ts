// Scenarios and sim rollouts for the viewer: the map as world-frame polylines, agents of a step as flat
// rows, the ego's pose; and the source for a rollout directory (`drivekit sim --out`) or a scenario file.
import fs from 'node:fs';
import path from 'node:path';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { InputError } from '../../core/errors.ts';
import { readRolloutGroups, SIM_FILES } from '../../simulation/export/rolloutSet.ts';
import type { AgentTracks, Scenario } from '../../simulation/scenario.ts';
import { isScenarioDir, loadScenario } from '../../simulation/scenarioIo.ts';
import { mapIndex } from '../../simulation/map/mapIndex.ts';
import { trajectoryFeatures } from '../../simulation/metrics/trajectoryFeatures.ts';
import {
  AGENT_FLAG,
  AGENT_TYPE_CODE,
  type FrameScene,
  type MapJson,
  type ViewChoice,
  type ViewerInfo,
  type ViewerSource,
} from './viewerSource.ts';

/**
 * The map's ground height: the median of the agents' box bottoms at the current step (maps are 2-D, while
 * WOMD agents carry real elevations, e.g. −185 m), 0 when no agent is valid then.
 */
export function groundZ(s: Scenario): number {
  const a = s.agents;
  const T = s.numSteps;
  const zs: number[] = [];
  for (let i = 0; i < a.ids.length; i++) {
    const j = i * T + s.currentStep;
    if (a.valid[j] && Number.isFinite(a.z[j])) zs.push(a.z[j] - a.height[i] / 2);
  }
  zs.sort((x, y) => x - y);
  return zs.length ? zs[zs.length >> 1] : 0;
}

export function mapJson(s: Scenario): MapJson {
  const lines = (fs: { xy: Float32Array }[]) => fs.map((f) => Array.from(f.xy));
  return {
    ground_z: groundZ(s),
    lanes: lines(s.map.lanes),
    road_edges: lines(s.map.roadEdges),
    crosswalks: lines(s.map.crosswalks),
    stop_lines: lines(s.map.stopLines),
  };
}

/** The agents valid at `step` as flat rows (AGENT_STRIDE numbers each). */
export function agentRows(tracks: AgentTracks, numSteps: number, step: number): number[] {
  const out: number[] = [];
  if (step < 0 || step >= numSteps) return out;
  for (let a = 0; a < tracks.ids.length; a++) {
    const j = a * numSteps + step;
    if (!tracks.valid[j]) continue;
    out.push(
      tracks.x[j],
      tracks.y[j],
      tracks.z[j],
      tracks.length[a],
      tracks.width[a],
      tracks.height[a],
      tracks.yaw[j],
      tracks.ids[a],
      AGENT_TYPE_CODE[tracks.types[a]] ?? 3,
    );
  }
  return out;
}

/**
 * The ego's world_from_vehicle at a step, from its box centre and yaw at the map's ground height `z` (a
 * simulated ego may carry no elevation); the last valid earlier state when it is invalid at that step, the
 * identity when the scenario has no ego.
 */
export function egoPose(
  tracks: AgentTracks,
  numSteps: number,
  egoIndex: number,
  step: number,
  z: number,
): number[] {
  if (egoIndex < 0) return Array.from(poseFromTranslationYaw(0, 0, z, 0));
  for (let t = Math.min(step, numSteps - 1); t >= 0; t--) {
    const j = egoIndex * numSteps + t;
    if (tracks.valid[j])
      return Array.from(poseFromTranslationYaw(tracks.x[j], tracks.y[j], z, tracks.yaw[j]));
  }
  return Array.from(poseFromTranslationYaw(0, 0, z, 0));
}

/** A scenario's agent sets to show, with the per-step flags of the simulated set (rollouts). */
interface ScenarioView {
  name: string;
  scenario: Scenario;
  sets: Record<string, AgentTracks>;
  /** Per set: AGENT_FLAG bits per agent × step (agent-major), for the sets that have them. */
  flags: Record<string, Uint8Array>;
}

/** The Sim Agents collision and off-road tests of a rollout, per agent and step, as AGENT_FLAG bits. */
export function rolloutFlags(s: Scenario, tracks: AgentTracks): Uint8Array {
  const T = s.numSteps;
  const n = s.agents.ids.length;
  const m = mapIndex(s.map);
  // Every agent valid at the current step is tested (not only the evaluated ones): the picture shows all.
  const tested = Uint8Array.from({ length: n }, (_, a) => (tracks.valid[a * T + s.currentStep] ? 1 : 0));
  const f = trajectoryFeatures(s, tracks, tested, 0, T, m);
  const hasRoad = m.field.source !== 'none';
  const out = new Uint8Array(n * T);
  for (let a = 0; a < n; a++) {
    const vehicle = s.agents.types[a] === 'vehicle';
    for (let t = 0; t < T; t++) {
      const j = a * T + t;
      if (!tracks.valid[j]) continue;
      out[j] =
        (f.collided[j] ? AGENT_FLAG.collision : 0) |
        (hasRoad && vehicle && f.offroad[j] ? AGENT_FLAG.offroad : 0);
    }
  }
  return out;
}

/** The flags of the agents valid at `step`, in agentRows order. */
function flagRows(tracks: AgentTracks, numSteps: number, step: number, flags: Uint8Array): number[] {
  const out: number[] = [];
  if (step < 0 || step >= numSteps) return out;
  for (let a = 0; a < tracks.ids.length; a++)
    if (tracks.valid[a * numSteps + step]) out.push(flags[a * numSteps + step]);
  return out;
}

/**
 * A source with no points: a scenario's map and its agents per step (optionally a rollout beside the log).
 * `pick` resolves a request's scenario/rollout choice to what is shown; `choice` lists them for the picker.
 */
function scenarioSource(
  kind: 'rollout' | 'scenario',
  pick: (view?: ViewChoice) => ScenarioView,
  choice?: (v: ScenarioView, view?: ViewChoice) => ViewerInfo['rollout_choice'],
): ViewerSource {
  const info = (view?: ViewChoice): ViewerInfo => {
    const v = pick(view);
    return {
      kind,
      name: v.name,
      frame_count: v.scenario.numSteps,
      first_frame: 0,
      rate_hz: 1 / v.scenario.dtS,
      has_points: false,
      box_sets: [],
      agent_sets: Object.keys(v.sets),
      has_map: true,
      has_forecast: false,
      live: false,
      ...(choice ? { rollout_choice: choice(v, view) } : {}),
    };
  };
  return {
    info,
    framePoints: async () => null,
    frameArrow: async () => null,
    forecastPoints: async () => null,
    map: (view) => mapJson(pick(view).scenario),
    scene: async (i, view): Promise<FrameScene | null> => {
      const { scenario: s, sets, flags } = pick(view);
      if (!(i >= 0 && i < s.numSteps)) return null;
      const agents: Record<string, number[]> = {};
      const rowFlags: Record<string, number[]> = {};
      for (const [k, t] of Object.entries(sets)) {
        agents[k] = agentRows(t, s.numSteps, i);
        if (flags[k]) rowFlags[k] = flagRows(t, s.numSteps, i, flags[k]);
      }
      return {
        frame_index: i,
        pose: egoPose(Object.values(sets)[0], s.numSteps, s.egoIndex, i, groundZ(s)),
        boxes: {},
        agents,
        ego_agent_id: s.egoIndex >= 0 ? s.agents.ids[s.egoIndex] : null,
        forecast: null,
        ...(Object.keys(rowFlags).length ? { flags: rowFlags } : {}),
      };
    },
    close: async () => {},
  };
}

export interface RolloutChoice {
  /** Scenario id (default: the first in the directory). */
  scenario?: string;
  /** Rollout index (default 0). */
  rollout?: number;
}

/**
 * A `drivekit sim --out` directory: one rollout of one scenario at a time, with the logged agents beside it
 * and its collisions and off-road vehicles flagged; the page may ask for any other (`?scenario=&rollout=`).
 */
export function openRolloutSource(dir: string, choice: RolloutChoice = {}): ViewerSource {
  const groups = readRolloutGroups(dir);
  const resolve = (c: RolloutChoice) => {
    const g = c.scenario ? groups.find((x) => x.scenario.id === c.scenario) : groups[0];
    if (!g)
      throw new InputError(
        dir,
        `has no scenario '${c.scenario}' (it has ${groups.map((x) => x.scenario.id).join(', ')})`,
      );
    const r = c.rollout ?? 0;
    if (!(r >= 0 && r < g.rollouts.length))
      throw new InputError(
        dir,
        `scenario '${g.scenario.id}' has rollouts 0–${g.rollouts.length - 1}, not ${r}`,
      );
    return { g, r };
  };
  const start = resolve(choice);
  // Flags cost a features pass over the rollout: kept for the few rollouts a user looks at.
  const views = new Map<string, ScenarioView>();
  const pick = (view?: ViewChoice): ScenarioView => {
    const { g, r } = resolve({
      scenario: view?.scenario ?? (view?.rollout !== undefined ? undefined : start.g.scenario.id),
      rollout: view?.rollout ?? (view?.scenario ? 0 : start.r),
    });
    const key = `${g.scenario.id}\u0000${r}`;
    let v = views.get(key);
    if (!v) {
      if (views.size >= 8) views.delete(views.keys().next().value!);
      v = {
        name: `${g.scenario.id} rollout ${r}`,
        scenario: g.scenario,
        sets: { rollout: g.rollouts[r], logged: g.scenario.agents },
        flags: { rollout: rolloutFlags(g.scenario, g.rollouts[r]) },
      };
      views.set(key, v);
    }
    return v;
  };
  return scenarioSource('rollout', pick, (v, view) => ({
    scenarios: groups.map((g) => ({ id: g.scenario.id, rollouts: g.rollouts.length })),
    scenario: v.scenario.id,
    rollout: resolve({ scenario: v.scenario.id, rollout: view?.rollout ?? (view?.scenario ? 0 : start.r) }).r,
  }));
}

/** A scenario already loaded (from any format --scenarios reads). */
export function openLoadedScenarioSource(s: Scenario): ViewerSource {
  const v: ScenarioView = { name: s.id, scenario: s, sets: { scenario: s.agents }, flags: {} };
  return scenarioSource('scenario', () => v);
}

/** A scenario `.json` file or Arrow scenario directory. */
export function openScenarioSource(file: string): ViewerSource {
  const s = loadScenario(file);
  const v: ScenarioView = { name: s.id, scenario: s, sets: { scenario: s.agents }, flags: {} };
  return scenarioSource('scenario', () => v);
}

export const isRolloutDir = (p: string) => fs.existsSync(path.join(p, SIM_FILES.rollouts));
export const isScenarioPath = (p: string) =>
  (p.endsWith('.json') && fs.existsSync(p) && fs.statSync(p).isFile()) || isScenarioDir(p);
