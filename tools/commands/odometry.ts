// `drivekit odometry --log <log>`: LiDAR odometry (KISS-ICP-style scan-to-map ICP) estimates
// world_from_vehicle for every sweep and writes poses.arrow, keeping the source's poses as poses.source.arrow.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { replaceLogPoses, sourcePosesOf } from '../../datasets/logPoses.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { kittiDrift, relativePoseError } from '../../perception/odometry/drift.ts';
import { DEFAULT_ODOMETRY_CONFIG, type OdometryConfig } from '../../perception/odometry/odometry.ts';
import { odometryForLog } from '../../perception/odometry/odometryLog.ts';
import { parseConfigJson, validateConfig } from '../../core/configSchema.ts';
import { addForce, addLogInput, logInput, printJson } from '../cliOptions.ts';

interface OdometryOptions {
  log: string;
  config?: string;
  deskew?: string;
  write: boolean;
  force?: boolean;
  json?: boolean;
}

/** An odometry config from a JSON file (any subset of the fields, checked against the defaults' types). */
export function readOdometryConfig(file: string | undefined): Partial<OdometryConfig> {
  if (!file) return {};
  // core/configSchema.ts: types and known keys from the defaults, every problem named in one line.
  const v = parseConfigJson(file, (f) => fs.readFileSync(f, 'utf8'));
  return validateConfig(v, DEFAULT_ODOMETRY_CONFIG, {}, file.trimStart().startsWith('{') ? '--config' : file);
}

export function register(program: Command): void {
  const d = DEFAULT_ODOMETRY_CONFIG;
  const cmd = program
    .command('odometry')
    .description(
      'estimate world_from_vehicle poses from the sweeps (scan-to-map ICP, KISS-ICP style) and write poses.arrow',
    );
  addLogInput(cmd)
    .option(
      '--config <json>',
      `odometry overrides, e.g. {"voxelM": ${d.voxelM}, "maxRangeM": ${d.maxRangeM}, "pointToPlane": ${d.pointToPlane}}`,
    )
    .option(
      '--deskew <mode>',
      `motion compensation: auto | on (t_offset) | azimuth (times from azimuth, KITTI raw) | off (default: ${d.deskew})`,
    )
    .option('--no-write', 'only estimate and score; leave poses.arrow as it is')
    .option('--json', 'print the summary as one JSON object (snake_case keys, docs/cli.md)');
  addForce(cmd, 'an earlier odometry estimate in poses.arrow')
    .addHelpText(
      'after',
      "\nThe first pose is the log's own first pose (identity for a log imported without poses). When the log\n" +
        'had poses, they are moved once to poses.source.arrow and the estimate is scored against them: KITTI\n' +
        'odometry drift (translation %, rotation °/100 m over 100–800 m segments, or the whole log when shorter)\n' +
        'and the relative pose error between consecutive frames. See docs/odometry.md.',
    )
    .action(async (positional: string | undefined, o: OdometryOptions) => {
      const opts = { ...o, log: logInput(positional, o) };
      const cfg = readOdometryConfig(opts.config);
      // poses.source.arrow is there once an estimate has replaced the source's poses: a rerun replaces it.
      if (opts.write && !opts.force && fs.existsSync(path.join(opts.log, 'poses.source.arrow')))
        throw new InputError(
          path.join(opts.log, 'poses.arrow'),
          'holds an earlier odometry estimate (pass --force to replace it)',
        );
      if (opts.deskew !== undefined) {
        if (!['auto', 'on', 'azimuth', 'off'].includes(opts.deskew))
          throw new InputError('--deskew', `'${opts.deskew}' is not auto, on, azimuth or off`);
        cfg.deskew = opts.deskew as OdometryConfig['deskew'];
      }
      const log = await LogReader.open(opts.log);
      let summary: Record<string, unknown>;
      try {
        if (log.frameCount === 0)
          throw new InputError(opts.log, 'the log has no frames: nothing to estimate poses from');
        const source = sourcePosesOf(opts.log);
        const bar = createProgress('odometry', log.frameCount, { silent: opts.json, unit: 'frames' });
        const started = Date.now();
        let r;
        try {
          r = await odometryForLog(log, cfg, bar);
        } finally {
          bar.stop();
        }
        summary = {
          log: opts.log,
          frames: log.frameCount,
          deskew: r.deskewed,
          deskewReason: r.deskewReason,
          pathLengthM: r.pathLengthM,
          meanIterations: r.meanIterations,
          meanInlierShare: r.meanInlierShare,
          meanPlanarShare: r.meanPlanarShare,
          finalSigmaM: r.finalSigmaM,
          rejectedSweeps: r.rejectedSweeps,
          msPerSweep: r.msPerSweep,
          seconds: (Date.now() - started) / 1000,
          drift: source ? kittiDrift(source, r.poses) : null,
          rpe: source ? relativePoseError(source, r.poses) : null,
          written: null as string | null,
          sourcePosesKept: null as string | null,
        };
        if (opts.write) {
          const kept = await replaceLogPoses(opts.log, r.poses, log.timestampsNs, {
            method: 'drivekit odometry (scan-to-map ICP, KISS-ICP style)',
            config: { ...DEFAULT_ODOMETRY_CONFIG, ...cfg },
            deskewed: r.deskewed,
            at: new Date().toISOString(),
          });
          summary.written = path.join(opts.log, 'poses.arrow');
          summary.sourcePosesKept = kept.sourceKept;
        }
      } finally {
        await log.close();
      }
      if (opts.json) printJson(summary);
      else process.stdout.write(formatOdometrySummary(summary) + '\n');
    });
}

function formatOdometrySummary(s: Record<string, unknown>): string {
  const n = (v: unknown, digits = 2) => (typeof v === 'number' ? v.toFixed(digits) : String(v));
  const drift = s.drift as ReturnType<typeof kittiDrift> | null;
  const rpe = s.rpe as ReturnType<typeof relativePoseError> | null;
  return [
    `log              ${s.log}`,
    `frames           ${s.frames}, path ${n(s.pathLengthM, 1)} m`,
    `de-skew          ${s.deskew ? 'on' : 'off'} (${s.deskewReason})`,
    `icp              ${n(s.meanIterations, 1)} iterations, ${n(100 * (s.meanInlierShare as number), 0)}% inliers, ${n(100 * (s.meanPlanarShare as number), 0)}% point-to-plane, σ ${n(s.finalSigmaM)} m`,
    `rejected         ${s.rejectedSweeps} sweeps (registration off the prediction by > maxCorrectionM: prediction kept)`,
    `speed            ${n(s.msPerSweep, 1)} ms per sweep (${n(s.seconds, 1)} s in all)`,
    drift
      ? `drift            ${n(drift.translationPct)} % translation, ${n(drift.rotationDegPer100m, 3)} °/100 m rotation (${drift.mode}, ${drift.segments} segment${drift.segments === 1 ? '' : 's'}, vs the source's poses)`
      : 'drift            no source poses to compare with',
    rpe
      ? `frame-to-frame   ${n(100 * rpe.translationMeanM, 1)} cm, ${n(rpe.rotationMeanDeg, 3)}° mean error over ${rpe.pairs} pairs (${n(rpe.motionMeanM)} m mean motion)`
      : '',
    s.written
      ? `wrote            ${s.written}${s.sourcePosesKept ? `; source poses kept in ${s.sourcePosesKept}` : ''}`
      : 'wrote            nothing (--no-write)',
  ]
    .filter(Boolean)
    .join('\n');
}
