// The self-play measurement table (docs/selfplay.md): learned students on held-back long-tail (seed 1001, never
// trained on; all seven kinds) and held-out towns 301–310 — collision, off-road, red light, failure, progress.
// Run: node --import tsx tools/report/selfplayTable.ts [--longtail-count N] [--towns A-B] [--json file] LABEL=model.onnx …
import fs from 'node:fs';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { learnedAgent } from '../../simulation/agents/learned.ts';
import { generateLongtail, LONGTAIL_KINDS } from '../../simulation/longtail/generate.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { controlAllPresent } from '../../simulation/training/evaluate.ts';
import { meanMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { HELD_OUT_LONGTAIL_SEED } from './agentsTable.ts';

export interface SelfplayRow {
  agent: string;
  set: string;
  scenarios: number;
  collision_rate: number;
  offroad_rate: number;
  red_light_rate: number;
  /** Long-tail: share of scenarios where the ego collided, left the road or ran a red light. */
  failure_rate: number;
  progress: number;
}

const hit = (x: number) => Number.isFinite(x) && x > 0;

export function scoreStudent(label: string, onnx: string, sets: Record<string, Scenario[]>): SelfplayRow[] {
  const make = learnedAgent(onnx, 1);
  return Object.entries(sets).map(([name, scenarios]) => {
    const res = rolloutScenarios(scenarios, () => make());
    const m = meanMetrics(res.map((r) => r.metrics));
    const failed = res.filter(
      (r) => hit(r.metrics.collision_rate) || hit(r.metrics.offroad_rate) || hit(r.metrics.red_light_rate),
    );
    return {
      agent: label,
      set: name,
      scenarios: scenarios.length,
      collision_rate: m.collision_rate,
      offroad_rate: m.offroad_rate,
      red_light_rate: m.red_light_rate,
      failure_rate: failed.length / Math.max(res.length, 1),
      progress: m.progress,
    };
  });
}

export function heldOutSets(longtailCount: number, towns: readonly number[]): Record<string, Scenario[]> {
  const lt: Scenario[] = [];
  for (const k of Object.keys(LONGTAIL_KINDS))
    for (const l of generateLongtail(k, longtailCount, HELD_OUT_LONGTAIL_SEED)) lt.push(l.scenario);
  const sets: Record<string, Scenario[]> = { [`long-tail seed ${HELD_OUT_LONGTAIL_SEED}`]: lt };
  if (towns.length)
    sets[`towns ${towns[0]}-${towns[towns.length - 1]}`] = controlAllPresent(
      towns.map((seed) => generateTown({ seed }, 91).scenario),
    );
  return sets;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(arg('--longtail-count', '3'));
  const [a, b] = arg('--towns', '301-310').split('-').map(Number);
  const towns = Number.isFinite(a) && a > 0 ? Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i) : [];
  const agents = process.argv.slice(2).filter((x) => x.includes('=') && x.endsWith('.onnx'));
  const sets = heldOutSets(count, towns);
  const rows: SelfplayRow[] = [];
  for (const spec of agents) {
    const [label, file] = spec.split('=');
    if (!fs.existsSync(file)) throw new Error(`selfplayTable: ${file}: no such model`);
    for (const r of scoreStudent(label, file, sets)) {
      rows.push(r);
      process.stdout.write(JSON.stringify(r) + '\n');
    }
  }
  const out = arg('--json', '');
  if (out) writeFileAtomicSync(out, JSON.stringify(rows, null, 1) + '\n');
  process.exit(0);
}
