// All metrics of one rollout of one scenario against its log: rates of collision, off-road, red-light
// violation and kinematic infeasibility, ADE/FDE and progress. Realism is the Sim Agents metric (wosac/).
import { mapIndex } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';
import { SpatialGrid } from '../spatialGrid.ts';
import { collidedAgents } from './collision.ts';
import { displacement } from './displacement.ts';
import { infeasibleAgents } from './kinematics.ts';
import { offroadAgents } from './offroad.ts';
import { progressRatio } from './progress.ts';
import { redLightAgents, signalLines } from './redLight.ts';
import { type Trajectories, trajectoryFeatures, type TrajectoryFeatures } from './trajectoryFeatures.ts';

export interface ScenarioMetrics {
  scenario: string;
  /** Agents evaluated: controlled and valid at the current step. */
  agents: number;
  collision_rate: number;
  offroad_rate: number;
  ade_m: number;
  fde_m: number;
  progress: number;
  red_light_rate: number;
  infeasible_rate: number;
  /** The same rates in the log, for reference (what a perfect imitation would score). */
  log_collision_rate: number;
  log_offroad_rate: number;
  log_red_light_rate: number;
}

function meanOf(values: ArrayLike<number>, mask?: Uint8Array): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    if (mask && !mask[i]) continue;
    const v = values[i];
    if (Number.isNaN(v)) continue;
    s += v;
    n++;
  }
  return n > 0 ? s / n : NaN;
}

// The log's features depend only on the scenario (and which agents are evaluated): computed once per
// scenario object, since training evaluates the same scenarios again and again.
const logCache = new WeakMap<Scenario, { key: string; f: TrajectoryFeatures }>();

function logFeatures(
  s: Scenario,
  evaluated: Uint8Array,
  from: number,
  to: number,
  grid: SpatialGrid,
): TrajectoryFeatures {
  const key = `${from}:${to}:${evaluated.join('')}`;
  const hit = logCache.get(s);
  if (hit && hit.key === key) return hit.f;
  const f = trajectoryFeatures(s, s.agents, evaluated, from, to, mapIndex(s.map), undefined, grid);
  logCache.set(s, { key, f });
  return f;
}

/** Agents evaluated in a rollout: controlled ones valid in the log at the current step. */
export function evaluatedAgents(s: Scenario): Uint8Array {
  const T = s.numSteps;
  return Uint8Array.from(s.controlled, (c, a) => (c && s.agents.valid[a * T + s.currentStep] ? 1 : 0));
}

export function scenarioMetrics(
  s: Scenario,
  sim: Trajectories,
  grid: SpatialGrid = new SpatialGrid(),
): ScenarioMetrics {
  const T = s.numSteps;
  const n = s.agents.ids.length;
  const from = s.currentStep + 1;
  const to = T;
  const evaluated = evaluatedAgents(s);
  const m = mapIndex(s.map);
  const isVehicle = Uint8Array.from(s.agents.types, (t) => (t === 'vehicle' ? 1 : 0));
  const canViolate = Uint8Array.from(s.agents.types, (t) => (t === 'vehicle' || t === 'cyclist' ? 1 : 0));
  const hasRoad = m.field.source !== 'none';
  const fs = trajectoryFeatures(s, sim, evaluated, from, to, m, undefined, grid);
  const fl = logFeatures(s, evaluated, from, to, grid);
  const lines = signalLines(s, m);
  const rates = (f: TrajectoryFeatures, tr: Trajectories) => ({
    collision: meanOf(collidedAgents(f, T, evaluated, from, to), evaluated),
    offroad: meanOf(offroadAgents(f, isVehicle, T, evaluated, from, to, hasRoad)),
    // A map without signals (GPUDrive JSON, nuScenes, AV2) rates no red light: n/a, not 0 computed on nothing.
    redLight:
      lines.count > 0
        ? meanOf(redLightAgents(s, lines, tr, canViolate, evaluated, from, to), evaluated)
        : NaN,
  });
  const rs = rates(fs, sim);
  const rl = rates(fl, s.agents);
  const d = displacement(s.agents, sim, n, T, evaluated, from, to);
  return {
    scenario: s.id,
    agents: evaluated.reduce((a, b) => a + b, 0),
    collision_rate: rs.collision,
    offroad_rate: rs.offroad,
    ade_m: meanOf(d.ade),
    fde_m: meanOf(d.fde),
    progress: meanOf(progressRatio(s, sim, evaluated, from, to)),
    red_light_rate: rs.redLight,
    infeasible_rate: meanOf(infeasibleAgents(fs, isVehicle, T, evaluated, from, to), evaluated),
    log_collision_rate: rl.collision,
    log_offroad_rate: rl.offroad,
    log_red_light_rate: rl.redLight,
  };
}

/** Mean of each numeric metric over scenarios (NaN entries skipped). */
export function meanMetrics(rows: readonly ScenarioMetrics[]): Omit<ScenarioMetrics, 'scenario'> {
  const keys = [
    'agents',
    'collision_rate',
    'offroad_rate',
    'ade_m',
    'fde_m',
    'progress',
    'red_light_rate',
    'infeasible_rate',
    'log_collision_rate',
    'log_offroad_rate',
    'log_red_light_rate',
  ] as const;
  const out = {} as Record<string, unknown>;
  for (const k of keys) out[k] = meanOf(rows.map((r) => r[k]));
  return out as Omit<ScenarioMetrics, 'scenario'>;
}
