// Several ray-depth heads scored on the same validation rays: the starts a training card held out for choosing
// its epoch (or some of its logs), so two recipes whose validation sets differ can still be compared like for like.
// Run: node --import tsx tools/report/rayDepthValidation.ts --card <card.json> --logs <dir> --model <a.onnx>
// --model <b.onnx> [--exclude name,name] [--json file]
import { concatFloat64 } from '../../core/concatFloat64.ts';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { LogReader } from '../../datasets/logstore.ts';
import type { TokenizerConfig } from '../../worldmodel/config.ts';
import {
  keepBelowElevationFor,
  keepLogRatioBelowFor,
  keepThresholdFor,
  RayDepthHead,
} from '../../worldmodel/rayDepthModel.ts';
import { createRayDepthPool } from '../../worldmodel/rayDepthPool.ts';
import { ENCODER_FILE, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import {
  type DepthErrors,
  errorsOf,
  headRayErrors,
  rayDepthSamples,
} from '../../worldmodel/trainRayDepth.ts';
import { coreCount } from '../../core/workers.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { checkReportFlags } from './reportFlags.ts';

export interface ValidationRow {
  /** A log's name, or 'pooled' for every ray of the listed logs together (the trainer's figure). */
  log: string;
  rays: number;
  rayTrace: DepthErrors;
  /** One per head, in the order given. */
  heads: DepthErrors[];
}

/** The validation starts per log of a `train-ray-depth` card (`split`). */
export function validationStarts(card: {
  split?: Record<string, { validation: number[] }>;
}): Map<string, number[]> {
  if (!card.split) throw new InputError('--card', 'has no split (not a train-ray-depth card)');
  return new Map(Object.entries(card.split).map(([name, s]) => [name, s.validation]));
}

/**
 * Each head and the ray-trace on the same samples, per log and pooled; a head gates each log's rays at its threshold
 * for that log's sensor (keepThresholdFor: real or simulated).
 */
export async function scoreOnValidation(
  logs: readonly { name: string; log: LogReader; starts: readonly number[] }[],
  cfg: TokenizerConfig,
  heads: readonly RayDepthHead[],
): Promise<ValidationRow[]> {
  const pastSweeps = heads[0].card.pastSweeps;
  if (heads.some((h) => h.card.pastSweeps !== pastSweeps))
    throw new InputError('--model', 'the heads use different numbers of past sweeps; their samples differ');
  const pool = createRayDepthPool(cfg, coreCount());
  const rows: ValidationRow[] = [];
  // Per head, every log's per-ray errors, and the ray-trace's: pooled at the end.
  const headParts: Float64Array[][] = heads.map(() => []);
  const rayTraceParts: Float64Array[] = [];
  try {
    for (const { name, log, starts } of logs) {
      const s = await rayDepthSamples(log, cfg, starts, { rayStride: 16, pastSweeps }, undefined, pool);
      const scored: DepthErrors[] = [];
      for (const [k, h] of heads.entries()) {
        const err = headRayErrors(
          cfg,
          s,
          await h.outputs(s.x, s.count),
          keepThresholdFor(h.card, log.meta.source),
          keepLogRatioBelowFor(h.card, log.meta.source),
          keepBelowElevationFor(h.card, log.meta.source),
        );
        headParts[k].push(err);
        scored.push(errorsOf(err));
      }
      const rayTrace = Float64Array.from(s.truth, (t, i) => Math.abs(s.reference[i] - t));
      rayTraceParts.push(rayTrace);
      rows.push({ log: name, rays: s.count, rayTrace: errorsOf(rayTrace), heads: scored });
    }
  } finally {
    await pool.close();
  }
  rows.push({
    log: 'pooled',
    rays: rayTraceParts.reduce((n, p) => n + p.length, 0),
    rayTrace: errorsOf(concatFloat64(rayTraceParts)),
    heads: headParts.map((parts) => errorsOf(concatFloat64(parts))),
  });
  return rows;
}

const USAGE = `usage: node --import tsx tools/report/rayDepthValidation.ts --card <card.json> --logs <dir>
  --model <raydepth.onnx> [--model <raydepth.onnx> …] [--exclude name,name] [--tokenizer <dir>] [--json <file>]
Scores every --model on the validation starts of --card's split (every 16th true ray, both horizons'
protocol sweeps: the trainer's own validation samples), the logs read from <dir>/<name>; --exclude drops logs
of the split, e.g. to score a new recipe on the validation rays of the one it replaces.`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkReportFlags(process.argv, USAGE, [
    '--card',
    '--logs',
    '--model',
    '--exclude',
    '--tokenizer',
    '--json',
  ]);
  const all = (name: string) => process.argv.flatMap((a, i) => (a === name ? [process.argv[i + 1]] : []));
  const arg = (name: string) => all(name)[0];
  const cardFile = arg('--card');
  const logsDir = arg('--logs');
  const models = all('--model');
  if (!cardFile || !logsDir || !models.length) {
    process.stderr.write(`error: --card, --logs and at least one --model are required\n${USAGE}\n`);
    process.exit(2);
  }
  const exclude = new Set((arg('--exclude') ?? '').split(',').filter(Boolean));
  const starts = validationStarts(JSON.parse(fs.readFileSync(cardFile, 'utf8')));
  for (const name of exclude)
    if (!starts.has(name)) throw new InputError('--exclude', `${name} is not a log of ${cardFile}'s split`);
  const cfg = readTokenizerSpec(path.join(arg('--tokenizer') ?? SHIPPED_TOKENIZER, ENCODER_FILE)).config;
  const heads: RayDepthHead[] = [];
  const logs: { name: string; log: LogReader; starts: number[] }[] = [];
  try {
    for (const m of models) heads.push(await RayDepthHead.load(m, 1));
    for (const [name, s] of starts)
      if (!exclude.has(name))
        logs.push({ name, log: await LogReader.open(path.join(logsDir, name)), starts: s });
    const rows = await scoreOnValidation(logs, cfg, heads);
    const f = (e: DepthErrors) => `${e.mean.toFixed(3)} / ${e.median.toFixed(4)}`;
    process.stdout.write(
      `| log | rays | ray-trace mean / median m | ${models.map((m) => `${m} mean / median m`).join(' | ')} |\n` +
        `|---|---:|---|${models.map(() => '---|').join('')}\n` +
        rows
          .map((r) => `| ${r.log} | ${r.rays} | ${f(r.rayTrace)} | ${r.heads.map(f).join(' | ')} |`)
          .join('\n') +
        '\n',
    );
    const json = arg('--json');
    if (json)
      writeFileAtomicSync(
        json,
        JSON.stringify({ card: cardFile, models, exclude: [...exclude], rows }, null, 2),
      );
  } finally {
    for (const { log } of logs) await log.close();
    for (const h of heads) await h.dispose();
  }
}
