// How far an agent's moving vehicles drift off their lane centreline in closed loop: the distribution of
// the lateral offset to the nearest lane (heading-aware), against the log's. Imitation without recovery drifts.
// Run: node --import tsx tools/report/laneDrift.ts --towns 211-213 [--agent LABEL=NAME|model.onnx …]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../core/errors.ts';
import { agentByName } from '../../simulation/agents/registry.ts';
import { type LaneHit, mapIndex, nearestLane } from '../../simulation/map/mapIndex.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { AgentTracks, Scenario } from '../../simulation/scenario.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { agentClass } from './agentClassTable.ts';

export interface DriftStats {
  samples: number;
  p50M: number;
  p90M: number;
  /** Share of samples more than 1 m off the centreline (or off every lane within 5 m). */
  over1M: number;
}

/** |Lateral offset| of the moving vehicles of s in tracks, every future step (off every lane: 5 m). */
export function lateralOffsets(s: Scenario, tracks: AgentTracks, out: number[]): void {
  const m = mapIndex(s.map);
  const T = s.numSteps;
  const hit: LaneHit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };
  for (let a = 0; a < s.agents.ids.length; a++) {
    if (!s.controlled[a] || agentClass(s, a) !== 0) continue;
    for (let t = s.currentStep + 1; t < T; t++) {
      const k = a * T + t;
      if (!tracks.valid[k]) continue;
      out.push(nearestLane(m, tracks.x[k], tracks.y[k], tracks.yaw[k], hit, 5) ? Math.abs(hit.lateral) : 5);
    }
  }
}

export function driftStats(offsets: number[]): DriftStats {
  const v = Float64Array.from(offsets).sort();
  const q = (p: number) => (v.length ? v[Math.min(v.length - 1, Math.floor(p * v.length))] : NaN);
  return {
    samples: v.length,
    p50M: q(0.5),
    p90M: q(0.9),
    over1M: v.filter((x) => x > 1).length / Math.max(1, v.length),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--towns');
  const spec = i > 0 ? process.argv[i + 1] : '211-213';
  const scenarios = scenariosFromSpec(`town:${spec}`, '--towns');
  const agents: [string, string][] = [];
  process.argv.forEach((a, k) => {
    if (a !== '--agent') return;
    const [label, name] = (process.argv[k + 1] ?? '').split('=');
    if (!label || !name) throw new InputError('--agent', `'${process.argv[k + 1]}' is not LABEL=NAME`);
    agents.push([label, name]);
  });
  if (!agents.length) agents.push(['replay', 'replay'], ['IDM', 'idm'], ['BC', 'models/agent-bc.onnx']);
  process.stdout.write(
    `towns ${spec}, one seeded rollout; |lateral offset| of moving vehicles, future steps\n\n`,
  );
  process.stdout.write('| agent | samples | p50 (m) | p90 (m) | > 1 m |\n|---|---:|---:|---:|---:|\n');
  for (const [label, name] of agents) {
    const make = agentByName(name);
    if (!make) throw new InputError(name, 'unknown agent');
    const res = rolloutScenarios(scenarios, () => (name === 'replay' ? make() : make({ seed: 0 })));
    const offsets: number[] = [];
    for (const r of res) lateralOffsets(r.scenario, r.tracks, offsets);
    const d = driftStats(offsets);
    process.stdout.write(
      `| ${label} | ${d.samples} | ${d.p50M.toFixed(2)} | ${d.p90M.toFixed(2)} | ${(100 * d.over1M).toFixed(1)} % |\n`,
    );
  }
}
