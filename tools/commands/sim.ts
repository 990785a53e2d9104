// `drivekit sim --scenarios <dir|file> --agents <replay|cv|idm> --out <dir>`: closed-loop rollouts of
// the built-in agents with every metric: rollouts.arrow (AgentStates), the input scenarios (maps) and
// metrics.json / metrics.csv (one row per scenario plus the mean).
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { agentStatesToBatch } from '../../core/arrow/codec.ts';
import { writeArrowFile } from '../../core/arrow/ipc.ts';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { AGENTS } from '../../simulation/agents/registry.ts';
import { meanMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { rolloutScenarios, rolloutToAgentStates } from '../../simulation/rollout.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { loadScenarios } from '../../simulation/scenarioSources.ts';
import { formatMetricTable, jsonWithNulls, METRIC_COLUMNS } from '../report/simMetrics.ts';
import { intOption } from '../numberOption.ts';

export interface SimOptions {
  scenarios: string;
  agents: string;
  out: string;
  control?: 'scenario' | 'all';
  limit?: number;
  json?: boolean;
}

/** The files a sim run writes, and how export finds them. */
export const SIM_FILES = {
  rollouts: 'rollouts.arrow',
  scenarios: 'scenarios',
  metrics: 'metrics.json',
} as const;

export async function runSim(opts: SimOptions): Promise<Record<string, unknown>> {
  const make = AGENTS[opts.agents];
  if (!make)
    throw new InputError(
      '--agents',
      `unknown agent '${opts.agents}' (known: ${Object.keys(AGENTS).join(', ')})`,
    );
  let loaded = loadScenarios(opts.scenarios);
  if (opts.limit !== undefined) loaded = loaded.slice(0, opts.limit);
  const scenarios = loaded.map((l) => l.scenario);
  if (opts.control === 'all') {
    // Every agent present at the current step is driven by the agent (the Sim Agents setting).
    for (const s of scenarios)
      s.controlled = Uint8Array.from(s.controlled, (_, a) => s.agents.valid[a * s.numSteps + s.currentStep]);
  }
  const bar = createProgress('sim', scenarios.length, { silent: opts.json });
  const results = rolloutScenarios(
    scenarios,
    make,
    { onProgress: (d) => bar.update(d) },
    loaded.map((l) => l.file),
  );
  bar.stop();
  fs.mkdirSync(opts.out, { recursive: true });
  const meta = { 'drivekit.agents': opts.agents, 'drivekit.scenarios': String(results.length) };
  const batches = results.map((r) => agentStatesToBatch(rolloutToAgentStates(r.scenario, r.tracks), meta));
  await writeArrowFile(path.join(opts.out, SIM_FILES.rollouts), batches);
  results.forEach((r, i) =>
    saveScenario(r.scenario, path.join(opts.out, SIM_FILES.scenarios, `${String(i).padStart(4, '0')}`)),
  );
  const rows = results.map((r) => r.metrics);
  const mean = meanMetrics(rows);
  const summary = { scenarios: results.length, agents: opts.agents, mean, rows };
  writeFileAtomicSync(path.join(opts.out, SIM_FILES.metrics), jsonWithNulls(summary) + '\n');
  const keys = [
    'scenario',
    ...METRIC_COLUMNS.map((c) => c[0]),
    'log_collision_rate',
    'log_offroad_rate',
  ] as const;
  const csvRow = (r: Record<string, unknown>) =>
    keys.map((k) => (typeof r[k] === 'number' && !Number.isFinite(r[k]) ? '' : String(r[k]))).join(',');
  const csv = [
    keys.join(','),
    ...rows.map((r) => csvRow(r as unknown as Record<string, unknown>)),
    csvRow({ ...mean, scenario: 'mean' }),
  ].join('\n');
  writeFileAtomicSync(path.join(opts.out, 'metrics.csv'), csv + '\n');
  if (!opts.json) process.stdout.write(formatMetricTable(rows, mean) + `\n\nwrote ${opts.out}\n`);
  return { scenarios: results.length, agents: opts.agents, mean };
}

export function register(program: Command): void {
  program
    .command('sim')
    .description(
      'closed-loop rollouts of built-in agents on scenarios, with collision/off-road/realism metrics',
    )
    .requiredOption(
      '--scenarios <path>',
      'scenario file or directory (.json, Arrow scenario dirs, WOMD .tfrecord, AV2 logs)',
    )
    .requiredOption('--agents <name>', `traffic agents: ${Object.keys(AGENTS).join(' | ')}`)
    .requiredOption('--out <dir>', 'output directory (rollouts.arrow, scenarios/, metrics.json, metrics.csv)')
    .option(
      '--control <which>',
      "agents driven: 'scenario' (its controlled flags) or 'all' present at the current step",
      'scenario',
    )
    .option('--limit <n>', 'simulate only the first n scenarios', intOption('--limit', 1))
    .option('--json', 'print {"scenarios","agents","mean":{…}} as one JSON line')
    .action(async (opts: SimOptions) => {
      if (opts.control !== 'scenario' && opts.control !== 'all')
        throw new InputError('--control', `must be 'scenario' or 'all', got '${opts.control}'`);
      const summary = await runSim(opts);
      if (opts.json) process.stdout.write(jsonWithNulls(summary) + '\n');
    });
}
