// Why log replay is off the road or colliding on real scenarios: per scenario source, the evaluated vehicles
// off-road at some future step of the log and the agents in a collision, split by whether they move (≥ 1 m).
// Run: node --import tsx tools/report/replayInfractions.ts <scenarios path> …
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mapIndex } from '../../simulation/map/mapIndex.ts';
import { evaluatedAgents } from '../../simulation/metrics/scenarioMetrics.ts';
import { trajectoryFeatures } from '../../simulation/metrics/trajectoryFeatures.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenariosAsync } from '../../simulation/scenarioSources.ts';

/** Agents that move less than this over the future are counted as parked / standing, metres. */
export const PARKED_M = 1;

export interface ReplayInfractions {
  vehicles: number;
  offroadVehicles: number;
  offroadParked: number;
  collidingAgents: number;
  collidingParked: number;
  /** Colliding agents of type 'other' (nuScenes cones and barriers). */
  collidingOther: number;
}

/** The log's own infractions over the scenarios' futures (what replay's rollout metrics report). */
export function replayInfractions(scenarios: readonly Scenario[]): ReplayInfractions {
  const out: ReplayInfractions = {
    vehicles: 0,
    offroadVehicles: 0,
    offroadParked: 0,
    collidingAgents: 0,
    collidingParked: 0,
    collidingOther: 0,
  };
  for (const s of scenarios) {
    const T = s.numSteps;
    const from = s.currentStep + 1;
    const ev = evaluatedAgents(s);
    const f = trajectoryFeatures(s, s.agents, ev, from, T, mapIndex(s.map));
    const a = s.agents;
    for (let i = 0; i < a.ids.length; i++) {
      if (!ev[i]) continue;
      let first = -1;
      let last = -1;
      let off = false;
      let hit = false;
      for (let t = from; t < T; t++) {
        const k = i * T + t;
        if (!a.valid[k]) continue;
        if (first < 0) first = k;
        last = k;
        off ||= f.offroad[k] === 1;
        hit ||= f.collided[k] === 1;
      }
      const parked = first < 0 || Math.hypot(a.x[last] - a.x[first], a.y[last] - a.y[first]) < PARKED_M;
      if (hit) {
        out.collidingAgents++;
        if (parked) out.collidingParked++;
        if (a.types[i] === 'other') out.collidingOther++;
      }
      if (a.types[i] !== 'vehicle') continue;
      out.vehicles++;
      if (off) {
        out.offroadVehicles++;
        if (parked) out.offroadParked++;
      }
    }
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const p of process.argv.slice(2)) {
    const r = replayInfractions((await loadScenariosAsync(p)).map((l) => l.scenario));
    process.stdout.write(`${p}: ${JSON.stringify(r)}\n`);
  }
}
