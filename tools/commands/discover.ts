// `drivekit discover --log <log>`: unsupervised object discovery on a log (ground → clusters → boxes →
// tracks → refinement) into detections.arrow and tracks.arrow; `--method dbscan` runs the classical baseline.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { baselineLog, DEFAULT_BASELINE_CONFIG } from '../../perception/baseline.ts';
import { DEFAULT_CLUSTER_CONFIG } from '../../perception/cluster.ts';
import {
  discoverLog,
  type DiscoverLogSummary,
  DEFAULT_PIPELINE_INPUT,
  PIPELINE_INPUT_RANGES,
  type PipelineConfigInput,
  resolvePipelineConfig,
} from '../../perception/discoverLog.ts';
import { DEFAULT_REFINE_CONFIG } from '../../perception/refine.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { parseConfigJson, validateConfig } from '../../core/configSchema.ts';
import {
  addForce,
  addLogInput,
  addRenamed,
  logInput,
  printJson,
  refuseExisting,
  renamedInput,
} from '../cliOptions.ts';

interface DiscoverOptions {
  log: string;
  method: string;
  clusterRange?: number;
  /** Old name of --cluster-range (one version). */
  range?: number;
  force?: boolean;
  minTrack?: number;
  config?: string;
  json?: boolean;
}

/**
 * A pipeline config from inline JSON or a JSON file ({ground, cluster, boxfit, tracker, refine, …},
 * each partial), checked against the modules' defaults and ranges: types, ranges, unknown keys named.
 */
export function readPipelineConfig(
  file: string | undefined,
  defaults: object = DEFAULT_PIPELINE_INPUT,
  ranges: object = PIPELINE_INPUT_RANGES,
): PipelineConfigInput {
  if (!file) return {};
  const v = parseConfigJson(file, (f) => fs.readFileSync(f, 'utf8'));
  const source = file.trimStart().startsWith('{') ? '--config' : file;
  return validateConfig(v, defaults, ranges, source) as PipelineConfigInput;
}

export function formatDiscoverSummary(s: DiscoverLogSummary): string {
  return [
    `log              ${s.log}`,
    `frames           ${s.frames} (${(s.points / Math.max(1, s.frames)).toFixed(0)} points per sweep, ${s.nonFinitePoints} non-finite skipped)`,
    `ground removed   ${(100 * s.groundShare).toFixed(1)}% of points`,
    `detections       ${s.detections} (${s.detectionsPerFrame.toFixed(1)} per frame)`,
    `tracks           ${s.tracks} found, ${s.refined.tracksKept} kept (${s.refined.movingTracks} moving), tracking in the ${s.trackingFrame} frame`,
    `refined boxes    ${s.refined.boxesOut} (${s.refined.gapBoxes} filled into gaps)`,
    `time             ${s.seconds.toFixed(1)} s`,
    ...s.warnings.map((w) => `warning          ${w}`),
  ].join('\n');
}

export function register(program: Command): void {
  const cmd = program
    .command('discover')
    .description(
      'discover objects in a log without labels: writes detections.arrow and tracks.arrow into it',
    );
  addLogInput(cmd)
    .option(
      '--method <name>',
      "'discovery' (ground lines → clusters → boxes → tracks) or 'dbscan' (the classical baseline: RANSAC plane + DBSCAN + minimum-area rectangle per sweep, within 80 m unless --cluster-range, written to dbscan.arrow)",
      'discovery',
    )
    .option(
      '--cluster-range <m>',
      `clustering radius around the ego, m (default: ${DEFAULT_CLUSTER_CONFIG.rangeM})`,
      numberOption('--cluster-range', { above: 0 }),
    )
    .option(
      '--min-track <frames>',
      `drop tracks seen in fewer frames (default: ${DEFAULT_REFINE_CONFIG.minTrackFrames})`,
      intOption('--min-track', 1),
    )
    .option('--config <json>', 'pipeline config overrides: {ground, cluster, boxfit, tracker, refine}')
    .option('--json', 'print the summary as one JSON object (snake_case keys, docs/cli.md)');
  addRenamed(cmd, '--range', numberOption('--range', { above: 0 }));
  addForce(cmd, "the log's detections.arrow and tracks.arrow (dbscan.arrow with --method dbscan)").action(
    async (positional: string | undefined, o: DiscoverOptions) => {
      const opts = {
        ...o,
        log: logInput(positional, o),
        clusterRange: renamedInput(o.clusterRange, o.range, '--range', '--cluster-range'),
      };
      if (opts.method === 'dbscan') return runBaseline(opts);
      if (opts.method !== 'discovery')
        throw new InputError('--method', `'${opts.method}' is not 'discovery' or 'dbscan'`);
      const input = readPipelineConfig(opts.config);
      if (opts.clusterRange !== undefined) input.cluster = { ...input.cluster, rangeM: opts.clusterRange };
      if (opts.minTrack !== undefined) {
        if (!(opts.minTrack >= 1)) throw new InputError('--min-track', 'must be a whole number ≥ 1');
        input.refine = { ...input.refine, minTrackFrames: opts.minTrack };
      }
      const cfg = resolvePipelineConfig(input);
      refuseExisting(
        ['detections.arrow', 'tracks.arrow'].map((f) => path.join(opts.log, f)),
        opts.force,
      );
      const log = await LogReader.open(opts.log);
      try {
        const bar = createProgress('discover', log.frameCount, { silent: opts.json, unit: 'frames' });
        let result;
        try {
          result = await discoverLog(log, cfg, bar);
        } finally {
          bar.stop();
        }
        // One group: a reader sees both files of this run or refuses both (docs/reliability.md).
        log.commitBoxes('discover', { detections: result.detections, tracks: result.tracks });
        if (!opts.json) for (const w of result.summary.warnings) process.stderr.write(`warning: ${w}\n`);
        const files = {
          detections: path.join(opts.log, 'detections.arrow'),
          tracks: path.join(opts.log, 'tracks.arrow'),
        };
        if (opts.json) printJson({ ...result.summary, files });
        else
          process.stdout.write(
            formatDiscoverSummary(result.summary) +
              `\nwrote            ${files.detections}, ${files.tracks}\n`,
          );
      } finally {
        await log.close();
      }
    },
  );
}

/** `--method dbscan`: the baseline's boxes of every sweep into the log's dbscan.arrow. */
async function runBaseline(opts: DiscoverOptions): Promise<void> {
  if (opts.minTrack !== undefined || opts.config !== undefined)
    throw new InputError(
      '--method',
      'dbscan takes only --cluster-range (the baseline has no tracks and no config)',
    );
  const rangeM = opts.clusterRange ?? DEFAULT_BASELINE_CONFIG.rangeM;
  refuseExisting(path.join(opts.log, 'dbscan.arrow'), opts.force);
  const log = await LogReader.open(opts.log);
  try {
    const t0 = Date.now();
    const bar = createProgress('dbscan', log.frameCount, { silent: opts.json });
    let boxes;
    try {
      boxes = await baselineLog(log, { rangeM }, bar);
    } finally {
      bar.stop();
    }
    await log.writeBoxes('dbscan', boxes);
    const file = path.join(opts.log, 'dbscan.arrow');
    const summary = {
      log: opts.log,
      method: 'dbscan',
      frames: log.frameCount,
      boxes: boxes.cx.length,
      boxesPerFrame: log.frameCount ? boxes.cx.length / log.frameCount : 0,
      rangeM,
      seconds: (Date.now() - t0) / 1000,
      file,
    };
    if (opts.json) return printJson(summary);
    process.stdout.write(
      `log              ${summary.log}\nmethod           dbscan baseline (RANSAC plane, DBSCAN eps ${DEFAULT_BASELINE_CONFIG.dbscan.epsM} m / ${DEFAULT_BASELINE_CONFIG.dbscan.minPoints} points, minimum-area rectangles, within ${rangeM} m)\n` +
        `boxes            ${summary.boxes} (${summary.boxesPerFrame.toFixed(1)} per frame)\ntime             ${summary.seconds.toFixed(1)} s\nwrote            ${file}\n`,
    );
  } finally {
    await log.close();
  }
}
