// `drivekit export --rollouts <dir> | --scenarios <path> --format <arrow|parquet|json|womd|wosac|mcap|gpudrive>`:
// simulated or imported scenarios (map + every agent's trajectory), optionally with rendered LiDAR logs, or the
// rollouts as a Waymo Sim Agents submission file; `--log <dir>` as Parquet or Foxglove MCAP.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readArrowFile } from '../../core/arrow/ipc.ts';
import { InputError } from '../../core/errors.ts';
import { exportLogMcap } from '../../datasets/logMcap.ts';
import { exportLogParquet, type LogParquetResult } from '../../datasets/logParquet.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { writeWomdFile } from '../../datasets/womd.ts';
import { createProgress } from '../../core/progress.ts';
import { exportLidarLog } from '../../simulation/export/lidarExport.ts';
import { exportScenarioMcap } from '../../simulation/export/mcapExport.ts';
import { writeArrowTables } from '../../simulation/export/arrowExport.ts';
import { buildExportTables, type ExportScenario } from '../../simulation/export/exportTables.ts';
import { writeJsonScenarios } from '../../simulation/export/jsonExport.ts';
import { writeParquetTables } from '../../simulation/export/parquetExport.ts';
import { LIDAR_MODELS, type LidarModel } from '../../simulation/lidar/beams.ts';
import { readRolloutGroups, rolloutScenarios, SIM_FILES } from '../../simulation/export/rolloutSet.ts';
import { WOSAC_SUBMISSION, writeWosacSubmission } from '../../simulation/export/wosacExport.ts';
import { scenarioToWomd, womdExportLosses } from '../../simulation/export/womdExport.ts';
import { gpudriveExportLosses, scenarioToGpudrive } from '../../simulation/export/gpudriveExport.ts';
import { loadScenariosAsync } from '../../simulation/scenarioSources.ts';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { intOption } from '../numberOption.ts';
import { makeDirs } from '../../core/dirs.ts';
import { cleanOnFailure } from '../../core/cleanOnFailure.ts';
import { addForce, addThreads, printJson, refuseExisting, threadsInput } from '../cliOptions.ts';
import { generatorTarget, MAX_GENERATED_SCENARIOS, runGeneratorExport } from './exportSelfplay.ts';
import { SCENARIO_GENERATORS } from '../../simulation/selfplay/scenarioSet.ts';

export const EXPORT_FORMATS = ['arrow', 'parquet', 'json', 'womd', 'wosac', 'mcap', 'gpudrive'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  /** Simulated rollouts (`drivekit sim`'s output) — or `log`, a drivekit log (Parquet only). */
  rollouts?: string;
  /** Scenario files or folders of any format --scenarios of sim reads (instead of --rollouts). */
  scenarios?: string;
  log?: string;
  format?: string;
  out?: string;
  /** Generate a scenario dataset instead of converting one: selfplay | adversarial | longtail. */
  generator?: string;
  count?: number;
  seed?: number;
  teacher?: string;
  student?: string;
  json?: boolean;
  /** Also render the ego's LiDAR over each rollout into a log (SensorFrames + box labels). */
  lidar?: boolean;
  lidarModel?: string;
  lidarFrames?: number;
  threads?: number;
  /** Deprecated name of `threads`. */
  workers?: number;
  force?: boolean;
  /** wosac: the submission's account e-mail and method name (the evaluator needs both). */
  account?: string;
  methodName?: string;
}

/** What an export writes (the directory, or wosac's file), from the options and their defaults. */
export function exportTarget(opts: ExportOptions): string {
  if (opts.log !== undefined)
    return opts.out ?? `${path.resolve(opts.log)}${opts.format === 'mcap' ? '.mcap' : '-parquet'}`;
  const rollouts =
    opts.rollouts ?? (opts.scenarios !== undefined ? path.dirname(path.resolve(opts.scenarios)) : '.');
  if (opts.format !== 'wosac') return opts.out ?? path.join(rollouts, `export-${opts.format}`);
  const name = 'submission.binproto';
  if (!opts.out) return path.join(rollouts, name);
  return fs.existsSync(opts.out) && fs.statSync(opts.out).isDirectory()
    ? path.join(opts.out, name)
    : opts.out;
}

/** A file-system-safe name for a scenario (index first, so names stay unique and ordered). */
function fileStem(s: Scenario, i: number): string {
  return `${String(i).padStart(4, '0')}-${s.id.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
}

export async function runExport(opts: ExportOptions): Promise<{
  format: ExportFormat;
  scenarios: number;
  files: string[];
  /** womd: what the scenarios held that a WOMD file cannot, counted by what (empty: nothing). */
  dropped?: Record<string, number>;
}> {
  if (opts.format === undefined)
    throw new InputError('--format', 'missing: give --format <format> or --generator');
  if (!EXPORT_FORMATS.includes(opts.format as ExportFormat))
    throw new InputError('--format', `unknown format '${opts.format}' (known: ${EXPORT_FORMATS.join(', ')})`);
  const format = opts.format as ExportFormat;
  if (opts.log !== undefined && opts.rollouts !== undefined)
    throw new InputError('--log', 'give --log or --rollouts, not both');
  if (opts.log !== undefined) return exportLog(opts.log, format, opts);
  if (opts.scenarios !== undefined && opts.rollouts !== undefined)
    throw new InputError('--scenarios', 'give --scenarios or --rollouts, not both');
  if (opts.rollouts === undefined && opts.scenarios === undefined)
    throw new InputError('--rollouts', 'missing: give --rollouts <dir>, --scenarios <path> or --log <dir>');
  if (format === 'wosac') {
    if (opts.rollouts === undefined)
      throw new InputError('--scenarios', 'wosac exports rollouts: give --rollouts');
    return exportWosac({ ...opts, rollouts: opts.rollouts });
  }
  // Everything is read (and checked) before the target is made: a bad input leaves nothing behind.
  // Arrow, Parquet and JSON keep each scenario once with its rollouts beside it (a `rollout` column / key);
  // MCAP, WOMD, GPUDrive and the LiDAR logs hold one timeline each: a scenario per rollout (`<id>.r<n>`
  // when N > 1). Imported scenarios are one rollout each: their logged agents.
  let groups: ExportScenario[];
  let scenarios: Scenario[];
  if (opts.scenarios !== undefined) {
    scenarios = (await loadScenariosAsync(opts.scenarios)).map((l) => l.scenario);
    groups = scenarios.map((s) => ({ scenario: s, rollouts: [s.agents] }));
  } else {
    groups = readRolloutGroups(opts.rollouts!);
    scenarios = rolloutScenarios(groups);
  }
  const out = exportTarget(opts);
  makeDirs(out);
  const files: string[] = [];
  const dropped: Record<string, number> = {};
  if (format === 'arrow') {
    files.push(...(await writeArrowTables(buildExportTables(groups), out)));
    // Each input scenario once as a drivekit scenario directory (what `drivekit sim` and the viewer open).
    groups.forEach(({ scenario: s }, i) => {
      const dir = path.join(out, 'scenarios', fileStem(s, i));
      saveScenario(s, dir);
      files.push(dir);
    });
  } else if (format === 'parquet') {
    files.push(...writeParquetTables(buildExportTables(groups), out));
  } else if (format === 'mcap') {
    // One file per scenario and rollout: Foxglove plays one timeline per file.
    const bar = createProgress('mcap', scenarios.length, { silent: opts.json });
    let k = 0;
    for (const g of groups)
      for (const [n, agents] of g.rollouts.entries()) {
        const s = scenarios[k];
        const file = path.join(out, `${fileStem(s, k++)}.mcap`);
        await exportScenarioMcap({ ...g.scenario, agents, source: s.source }, file, n);
        files.push(file);
        bar.tick();
      }
    bar.stop();
  } else if (format === 'gpudrive') {
    for (const [i, s] of scenarios.entries()) {
      const file = path.join(out, `${fileStem(s, i)}.json`);
      writeFileAtomicSync(file, JSON.stringify(scenarioToGpudrive(s)));
      files.push(file);
      for (const [what, n] of Object.entries(gpudriveExportLosses(s)))
        dropped[what] = (dropped[what] ?? 0) + n;
    }
    const said = Object.entries(dropped).map(([what, n]) => `${n} ${what.replace(/_/g, ' ')}`);
    if (said.length && !opts.json)
      process.stderr.write(`note: the GPUDrive export dropped (no GPUDrive field): ${said.join(', ')}\n`);
  } else if (format === 'json') {
    files.push(...writeJsonScenarios(groups, out, (i) => fileStem(groups[i].scenario, i)));
  } else {
    const file = path.join(out, 'scenarios.tfrecord');
    writeWomdFile(file, scenarios.map(scenarioToWomd));
    files.push(file);
    for (const s of scenarios)
      for (const [what, n] of Object.entries(womdExportLosses(s))) dropped[what] = (dropped[what] ?? 0) + n;
    const said = Object.entries(dropped).map(([what, n]) => `${n} ${what.replace(/_/g, ' ')}`);
    if (said.length)
      process.stderr.write(
        `note: the WOMD export dropped (no WOMD field, or no value to write): ${said.join(', ')}\n`,
      );
  }
  if (opts.lidar) {
    const model = (opts.lidarModel ?? 'hdl64') as LidarModel;
    if (!LIDAR_MODELS.includes(model))
      throw new InputError('--lidar-model', `unknown model '${model}' (known: ${LIDAR_MODELS.join(', ')})`);
    const bar = createProgress('lidar', scenarios.length, { silent: opts.json });
    for (const [i, s] of scenarios.entries()) {
      const dir = path.join(out, 'lidar', fileStem(s, i));
      // --lidar follows --format: Parquet tables or an MCAP file of the rendered log, else the log itself (Arrow).
      const converted = format === 'parquet' || format === 'mcap';
      const logDir = converted ? path.join(out, 'lidar', `.${fileStem(s, i)}.log-tmp`) : dir;
      const target = format === 'mcap' ? `${dir}.mcap` : dir;
      await exportLidarLog(s, logDir, { model, frames: opts.lidarFrames, workers: threadsInput(opts) });
      if (format === 'parquet') await exportLogParquet(logDir, dir);
      if (format === 'mcap') await exportLogMcap(logDir, target);
      if (converted) fs.rmSync(logDir, { recursive: true, force: true });
      files.push(target);
      bar.tick();
    }
    bar.stop();
  }
  return {
    format,
    scenarios: scenarios.length,
    files,
    ...(format === 'womd' || format === 'gpudrive' ? { dropped } : {}),
  };
}

/**
 * A drivekit log as Parquet tables (points, poses, labels, detections, tracks) in --out (default
 * <log>-parquet), or as one Foxglove MCAP file (--out, default <log>.mcap).
 */
async function exportLog(
  log: string,
  format: ExportFormat,
  opts: ExportOptions,
): Promise<{
  format: ExportFormat;
  scenarios: number;
  files: string[];
  rows: LogParquetResult['rows'];
  /** mcap: messages per topic and the file's size. */
  messages?: Record<string, number>;
  bytes?: number;
}> {
  if (format !== 'parquet' && format !== 'mcap')
    throw new InputError(
      '--format',
      `a log exports as parquet or mcap only (it is Arrow already), not '${format}'`,
    );
  if (opts.lidar) throw new InputError('--lidar', 'applies to --rollouts, not --log');
  const reader = await LogReader.open(log);
  const frames = reader.frameCount;
  await reader.close();
  const out = exportTarget(opts);
  if (format === 'mcap') {
    makeDirs(path.dirname(path.resolve(out)));
    const bar = createProgress('mcap', frames, { silent: opts.json });
    const r = await exportLogMcap(log, out, () => bar.tick());
    bar.stop();
    return { format, scenarios: 0, files: [out], rows: {}, messages: r.topics, bytes: r.bytes };
  }
  const bar = createProgress('parquet', frames, { silent: opts.json });
  const r = await exportLogParquet(log, out, () => bar.tick());
  bar.stop();
  return { format, scenarios: 0, files: r.files, rows: r.rows };
}

/** The rollouts as one SimAgentsChallengeSubmission file (--out: a file, or a directory to put it in). */
function exportWosac(opts: ExportOptions & { rollouts: string }): {
  format: ExportFormat;
  scenarios: number;
  files: string[];
} {
  if (opts.lidar) throw new InputError('--lidar', 'does not apply to --format wosac');
  const target = exportTarget(opts);
  makeDirs(path.dirname(path.resolve(target)));
  const groups = readRolloutGroups(opts.rollouts);
  const agents = readArrowFile(path.join(opts.rollouts, SIM_FILES.rollouts)).schema.metadata.get(
    'drivekit.agents',
  );
  const written = writeWosacSubmission(groups, target, path.join(opts.rollouts, SIM_FILES.rollouts), {
    accountName: opts.account,
    uniqueMethodName: opts.methodName ?? `drivekit-${agents ?? 'sim'}`,
    description: `drivekit ${agents ?? ''} agents, ${groups[0].rollouts.length} rollouts per scenario`,
  });
  const off = written.filter((r) => r.numRollouts !== WOSAC_SUBMISSION.rollouts);
  if (off.length && !opts.json)
    process.stderr.write(
      `note: the challenge needs ${WOSAC_SUBMISSION.rollouts} rollouts per scenario; ${off.length} scenario(s) here have ${off[0].numRollouts} (drivekit sim --rollouts ${WOSAC_SUBMISSION.rollouts})\n`,
    );
  return { format: 'wosac', scenarios: written.length, files: [target] };
}

export function register(program: Command): void {
  const cmd = program
    .command('export')
    .description(
      'export simulated or imported scenarios (trajectories + map) as Arrow, Parquet, JSON, WOMD TFRecord, GPUDrive JSON or Foxglove MCAP, or a Sim Agents submission; or a log as Parquet or MCAP',
    )
    .option('--rollouts <dir>', 'output directory of `drivekit sim`')
    .option(
      '--scenarios <path>',
      'scenario files or folders instead of --rollouts (any format sim --scenarios reads: drivekit, WOMD, GPUDrive/Nocturne JSON, ScenarioNet, AV2 motion)',
    )
    .option(
      '--log <dir>',
      'a drivekit log to export as Parquet (points, poses, labels, detections, tracks; default: --out <log>-parquet) or Foxglove MCAP (default: --out <log>.mcap)',
    )
    .option('--format <format>', `${EXPORT_FORMATS.join(' | ')} (required unless --generator)`)
    .option(
      '--generator <name>',
      `generate a synthetic scenario dataset instead: ${SCENARIO_GENERATORS.join(' | ')} (the self-play teacher, the same teacher without the solvability check, the procedural long-tail); writes scenarios (Arrow), Parquet, WOMD, GPUDrive JSON and datasheet.md/json into --out (out/scenarios-<generator> when not given)`,
    )
    .option(
      '--count <n>',
      `--generator: scenarios to write (default: 20, at most ${MAX_GENERATED_SCENARIOS})`,
      intOption('--count', 1, MAX_GENERATED_SCENARIOS),
    )
    .option('--seed <s>', '--generator: random seed (default: 1)', intOption('--seed', 0))
    .option(
      '--teacher <model>',
      '--generator selfplay/adversarial: the teacher ONNX with its JSON (default: the shipped models/selfplay-teacher.onnx, models/selfplay-adversarial-teacher.onnx)',
    )
    .option(
      '--student <model>',
      '--generator: the student judged on each scenario, ONNX with its JSON (default: the shipped models/agent.onnx)',
    )
    .option(
      '--out <path>',
      'output directory (default: <rollouts>/export-<format>); wosac: the file (default: <rollouts>/submission.binproto)',
    )
    .option('--account <email>', 'wosac: the waymo.com/open account the submission is for')
    .option('--method-name <name>', 'wosac: the method name on the leaderboard (default: drivekit-<agents>)')
    .option(
      '--lidar',
      "also render the ego's LiDAR over each rollout into a log (frames, poses, box labels); with --format parquet or mcap, the log's Parquet tables or MCAP file; with --generator, a log per scenario under lidar/",
    )
    .option('--lidar-model <model>', LIDAR_MODELS.join(' | '), 'hdl64')
    .option(
      '--lidar-frames <n>',
      'frames per scenario from the current step (default: to the end)',
      intOption('--lidar-frames', 1),
    )
    .option('--json', 'print a JSON summary (snake_case keys, docs/cli.md)');
  addThreads(cmd, 'LiDAR worker threads (0 = this thread)', 0, 0);
  addForce(cmd, 'an existing export at the target');
  cmd.action(async (opts: ExportOptions) => {
    if (opts.generator !== undefined) {
      for (const [flag, v] of [
        ['--format', opts.format],
        ['--rollouts', opts.rollouts],
        ['--scenarios', opts.scenarios],
        ['--log', opts.log],
      ] as const)
        if (v !== undefined)
          throw new InputError(flag, 'does not go with --generator (it writes every format)');
      const target = generatorTarget({ ...opts, generator: opts.generator });
      refuseExisting(target, opts.force);
      const g = await runGeneratorExport({ ...opts, generator: opts.generator });
      if (opts.json)
        return printJson({ generator: g.generator, scenarios: g.scenarios, out: g.out, files: g.files });
      const d = g.datasheet as {
        difficulty: { student_failure_rate: number };
        solvability: { exported_solvable_rate: number };
      };
      process.stdout.write(
        `exported ${g.scenarios} ${g.generator} scenario(s): student failure ${(100 * d.difficulty.student_failure_rate).toFixed(1)} %, solvable ${(100 * d.solvability.exported_solvable_rate).toFixed(1)} %\n${g.files.map((f) => `  ${f}`).join('\n')}\n`,
      );
      return;
    }
    for (const [flag, v] of [
      ['--count', opts.count],
      ['--seed', opts.seed],
      ['--teacher', opts.teacher],
      ['--student', opts.student],
    ] as const)
      if (v !== undefined) throw new InputError(flag, 'applies to --generator only');
    const target = exportTarget(opts);
    refuseExisting(target, opts.force);
    const r = await cleanOnFailure(target, () => runExport(opts));
    if (opts.json) return printJson(r);
    process.stdout.write(
      opts.log !== undefined
        ? `exported log ${opts.log} as ${r.format}:\n${r.files.map((f) => `  ${f}`).join('\n')}\n`
        : `exported ${r.scenarios} scenario(s) as ${r.format}:\n${r.files.map((f) => `  ${f}`).join('\n')}\n`,
    );
  });
}
