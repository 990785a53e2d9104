// `drivekit export --rollouts <dir> --format <arrow|parquet|json|womd>`: simulated scenarios (the map
// and every agent's trajectory from a `drivekit sim` run) as training data for autonomy stacks.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { agentStatesToBatch } from '../../core/arrow/codec.ts';
import { writeArrowFile } from '../../core/arrow/ipc.ts';
import { InputError } from '../../core/errors.ts';
import { writeWomdFile } from '../../datasets/womd.ts';
import { exportParquet } from '../../simulation/export/parquetExport.ts';
import { readRolloutSet } from '../../simulation/export/rolloutSet.ts';
import { scenarioToWomd } from '../../simulation/import/womdScenario.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { scenarioToAgentStates } from '../../simulation/scenarioTables.ts';

export const EXPORT_FORMATS = ['arrow', 'parquet', 'json', 'womd'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  rollouts: string;
  format: string;
  out?: string;
  json?: boolean;
}

/** A file-system-safe name for a scenario (index first, so names stay unique and ordered). */
function fileStem(s: Scenario, i: number): string {
  return `${String(i).padStart(4, '0')}-${s.id.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
}

export async function runExport(
  opts: ExportOptions,
): Promise<{ format: ExportFormat; scenarios: number; files: string[] }> {
  if (!EXPORT_FORMATS.includes(opts.format as ExportFormat))
    throw new InputError('--format', `unknown format '${opts.format}' (known: ${EXPORT_FORMATS.join(', ')})`);
  const format = opts.format as ExportFormat;
  const scenarios = readRolloutSet(opts.rollouts);
  const out = opts.out ?? path.join(opts.rollouts, `export-${format}`);
  fs.mkdirSync(out, { recursive: true });
  const files: string[] = [];
  if (format === 'arrow') {
    const file = path.join(out, 'trajectories.arrow');
    await writeArrowFile(
      file,
      scenarios.map((s) => agentStatesToBatch(scenarioToAgentStates(s))),
    );
    files.push(file);
    scenarios.forEach((s, i) => {
      const dir = path.join(out, 'scenarios', fileStem(s, i));
      saveScenario(s, dir);
      files.push(dir);
    });
  } else if (format === 'parquet') {
    files.push(...exportParquet(scenarios, out));
  } else if (format === 'json') {
    scenarios.forEach((s, i) => {
      const file = path.join(out, `${fileStem(s, i)}.json`);
      saveScenario(s, file);
      files.push(file);
    });
  } else {
    const file = path.join(out, 'scenarios.tfrecord');
    writeWomdFile(file, scenarios.map(scenarioToWomd));
    files.push(file);
  }
  return { format, scenarios: scenarios.length, files };
}

export function register(program: Command): void {
  program
    .command('export')
    .description('export simulated scenarios (trajectories + map) as Arrow, Parquet, JSON or WOMD TFRecord')
    .requiredOption('--rollouts <dir>', 'output directory of `drivekit sim`')
    .requiredOption('--format <format>', EXPORT_FORMATS.join(' | '))
    .option('--out <dir>', 'output directory (default <rollouts>/export-<format>)')
    .option('--json', 'print a JSON summary')
    .action(async (opts: ExportOptions) => {
      const r = await runExport(opts);
      process.stdout.write(
        opts.json
          ? JSON.stringify(r) + '\n'
          : `exported ${r.scenarios} scenario(s) as ${r.format}:\n${r.files.map((f) => `  ${f}`).join('\n')}\n`,
      );
    });
}
