// Scenarios and sim rollouts for the viewer: the map as world-frame polylines, agents of a step as flat
// rows, the ego's pose; and the source for a rollout directory (`drivekit sim --out`) or a scenario file.
import fs from 'node:fs';
import path from 'node:path';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { InputError } from '../../core/errors.ts';
import { readRolloutGroups, SIM_FILES } from '../../simulation/export/rolloutSet.ts';
import type { AgentTracks, Scenario } from '../../simulation/scenario.ts';
import { isScenarioDir, loadScenario } from '../../simulation/scenarioIo.ts';
import {
  AGENT_TYPE_CODE,
  type FrameScene,
  type MapJson,
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

/** A source with no points: a scenario's map and its agents per step (optionally a rollout beside the log). */
function scenarioSource(
  kind: 'rollout' | 'scenario',
  name: string,
  s: Scenario,
  sets: Record<string, AgentTracks>,
): ViewerSource {
  const main = Object.values(sets)[0];
  const ground = groundZ(s);
  const info: ViewerInfo = {
    kind,
    name,
    frame_count: s.numSteps,
    first_frame: 0,
    rate_hz: 1 / s.dtS,
    has_points: false,
    box_sets: [],
    agent_sets: Object.keys(sets),
    has_map: true,
    has_forecast: false,
    live: false,
  };
  return {
    info: () => info,
    framePoints: async () => null,
    frameArrow: async () => null,
    forecastPoints: async () => null,
    map: () => mapJson(s),
    scene: async (i): Promise<FrameScene | null> => {
      if (!(i >= 0 && i < s.numSteps)) return null;
      const agents: Record<string, number[]> = {};
      for (const [k, t] of Object.entries(sets)) agents[k] = agentRows(t, s.numSteps, i);
      return {
        frame_index: i,
        pose: egoPose(main, s.numSteps, s.egoIndex, i, ground),
        boxes: {},
        agents,
        ego_agent_id: s.egoIndex >= 0 ? s.agents.ids[s.egoIndex] : null,
        forecast: null,
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

/** A `drivekit sim --out` directory: one rollout of one scenario, with the logged agents beside it. */
export function openRolloutSource(dir: string, choice: RolloutChoice = {}): ViewerSource {
  const groups = readRolloutGroups(dir);
  const g = choice.scenario ? groups.find((x) => x.scenario.id === choice.scenario) : groups[0];
  if (!g)
    throw new InputError(
      dir,
      `has no scenario '${choice.scenario}' (it has ${groups.map((x) => x.scenario.id).join(', ')})`,
    );
  const r = choice.rollout ?? 0;
  if (!(r >= 0 && r < g.rollouts.length))
    throw new InputError(
      dir,
      `scenario '${g.scenario.id}' has rollouts 0–${g.rollouts.length - 1}, not ${r}`,
    );
  return scenarioSource('rollout', `${g.scenario.id} rollout ${r}`, g.scenario, {
    rollout: g.rollouts[r],
    logged: g.scenario.agents,
  });
}

/** A scenario already loaded (from any format --scenarios reads). */
export function openLoadedScenarioSource(s: Scenario): ViewerSource {
  return scenarioSource('scenario', s.id, s, { scenario: s.agents });
}

/** A scenario `.json` file or Arrow scenario directory. */
export function openScenarioSource(file: string): ViewerSource {
  const s = loadScenario(file);
  return scenarioSource('scenario', s.id, s, { scenario: s.agents });
}

export const isRolloutDir = (p: string) => fs.existsSync(path.join(p, SIM_FILES.rollouts));
export const isScenarioPath = (p: string) =>
  (p.endsWith('.json') && fs.existsSync(p) && fs.statSync(p).isFile()) || isScenarioDir(p);
