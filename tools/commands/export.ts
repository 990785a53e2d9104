// `drivekit export --rollouts <dir> --format <arrow|parquet|json|womd> [--lidar]`: simulated scenarios
// (map + every agent's trajectory from a `drivekit sim` run), optionally with rendered LiDAR logs.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { agentStatesToBatch } from '../../core/arrow/codec.ts';
import { writeArrowFile } from '../../core/arrow/ipc.ts';
import { InputError } from '../../core/errors.ts';
import { writeWomdFile } from '../../datasets/womd.ts';
import { createProgress } from '../../core/progress.ts';
import { exportLidarLog } from '../../simulation/export/lidarExport.ts';
import { exportParquet } from '../../simulation/export/parquetExport.ts';
import { LIDAR_MODELS, type LidarModel } from '../../simulation/lidar/beams.ts';
import { readRolloutSet } from '../../simulation/export/rolloutSet.ts';
import { scenarioToWomd } from '../../simulation/import/womdScenario.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { scenarioToAgentStates } from '../../simulation/scenarioTables.ts';
import { intOption } from '../numberOption.ts';

export const EXPORT_FORMATS = ['arrow', 'parquet', 'json', 'womd'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  rollouts: string;
  format: string;
  out?: string;
  json?: boolean;
  /** Also render the ego's LiDAR over each rollout into a log (SensorFrames + box labels). */
  lidar?: boolean;
  lidarModel?: string;
  lidarFrames?: number;
  workers?: number;
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
  if (opts.lidar) {
    const model = (opts.lidarModel ?? 'hdl64') as LidarModel;
    if (!LIDAR_MODELS.includes(model))
      throw new InputError('--lidar-model', `unknown model '${model}' (known: ${LIDAR_MODELS.join(', ')})`);
    const bar = createProgress('lidar', scenarios.length, { silent: opts.json });
    for (const [i, s] of scenarios.entries()) {
      const dir = path.join(out, 'lidar', fileStem(s, i));
      await exportLidarLog(s, dir, { model, frames: opts.lidarFrames, workers: opts.workers });
      files.push(dir);
      bar.tick();
    }
    bar.stop();
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
    .option('--lidar', "also render the ego's LiDAR over each rollout into a log (frames, poses, box labels)")
    .option('--lidar-model <model>', LIDAR_MODELS.join(' | '), 'hdl64')
    .option(
      '--lidar-frames <n>',
      'frames per scenario from the current step (default: to the end)',
      intOption('--lidar-frames', 1),
    )
    .option('--workers <n>', 'LiDAR worker threads (0 = this thread)', intOption('--workers', 0), 0)
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
