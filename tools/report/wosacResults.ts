// The Sim Agents (WOSAC 2025) results table of the built-in agents and the stand-still sanity agent on
// the real WOMD scenario, the AV2 log's tracks and held-back synthetic towns. Run: node --import tsx tools/report/wosacResults.ts [--rollouts N]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { realData } from '../../core/paths.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenarios } from '../../simulation/scenarioSources.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { markdownWosacTable, type WosacRow, wosacRow, wosacScores } from './wosacTable.ts';

/** Agents of the table: the built-in ones, then the broken stand-still agent as the sanity row. */
export const RESULT_AGENTS = ['replay', 'cv', 'idm', 'still'] as const;

/**
 * Synthetic town seeds held back for evaluation: no agent is tuned or trained on them (training and
 * the tokenizer use seeds 1–102 and 201).
 */
export const HELD_OUT_TOWN_SEEDS = [301, 302, 303] as const;

export interface ResultSet {
  name: string;
  scenarios: Scenario[];
}

/** The three sets, those whose data is missing left out; `towns` held-back town seeds (91 steps). */
export function resultSets(towns: number = HELD_OUT_TOWN_SEEDS.length): ResultSet[] {
  const sets: ResultSet[] = [];
  const womd = realData('womd', 'motion_data_one_scenario.tfrecord');
  if (fs.existsSync(womd))
    sets.push({
      name: 'WOMD scenario 637f20cafde22ff8',
      scenarios: loadScenarios(womd).map((l) => l.scenario),
    });
  const av2 = realData('av2-7fab2350');
  if (fs.existsSync(path.join(av2, 'annotations.feather')))
    sets.push({ name: 'AV2 log 7fab2350 tracks', scenarios: loadScenarios(av2).map((l) => l.scenario) });
  const town = HELD_OUT_TOWN_SEEDS.slice(0, towns).map((seed) => {
    const s = generateTown({ seed }, 91).scenario;
    // Every agent present at the current step is simulated (the Sim Agents setting).
    s.controlled = Uint8Array.from(s.controlled, (_, a) => s.agents.valid[a * s.numSteps + s.currentStep]);
    return s;
  });
  if (town.length)
    sets.push({
      name: `synthetic towns (held-back seeds ${HELD_OUT_TOWN_SEEDS.slice(0, towns).join(', ')})`,
      scenarios: town,
    });
  return sets;
}

/** Every agent's row on one set (N rollouts, seed). */
export function resultRows(set: ResultSet, rollouts: number, seed = 0): WosacRow[] {
  return RESULT_AGENTS.map((agent) =>
    wosacRow(agent, rollouts, wosacScores(set.scenarios, agent, rollouts, seed)),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--rollouts');
  const rollouts = i > 0 ? Number(process.argv[i + 1]) : 32;
  for (const set of resultSets()) {
    const t0 = performance.now();
    const rows = resultRows(set, rollouts);
    const scored = rows[0].scoredAgents.toFixed(1);
    process.stdout.write(
      `${set.name}: ${set.scenarios.length} scenario(s), ${scored} scored agents each, N = ${rollouts}, seed 0 (${((performance.now() - t0) / 1000).toFixed(1)} s)\n\n${markdownWosacTable(rows)}\n\n`,
    );
  }
}
