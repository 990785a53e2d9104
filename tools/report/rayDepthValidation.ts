// Several ray-depth heads scored on the same validation rays: the starts a training card held out for choosing
// its epoch (or some of its logs), so two recipes whose validation sets differ can still be compared like for like.
// Run: node --import tsx tools/report/rayDepthValidation.ts --card <card.json> --logs <dir> --model <a.onnx>
// --model <b.onnx> [--exclude name,name] [--json file]
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { LogReader } from '../../datasets/logstore.ts';
import type { TokenizerConfig } from '../../worldmodel/config.ts';
import { RayDepthHead } from '../../worldmodel/rayDepthModel.ts';
import { createRayDepthPool } from '../../worldmodel/rayDepthPool.ts';
import { ENCODER_FILE, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import {
  type DepthErrors,
  type TrainingRays,
  baselineErrors,
  concatRays,
  headErrors,
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

/** Each head (at its own gate threshold) and the ray-trace on the same samples, per log and pooled. */
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
  const parts: TrainingRays[] = [];
  const score = async (name: string, s: TrainingRays) => {
    const scored: DepthErrors[] = [];
    for (const h of heads)
      scored.push(headErrors(cfg, s, await h.outputs(s.x, s.count), h.card.keepThresholdLogit));
    rows.push({ log: name, rays: s.count, rayTrace: baselineErrors(s), heads: scored });
  };
  try {
    for (const { name, log, starts } of logs) {
      const s = await rayDepthSamples(log, cfg, starts, { rayStride: 16, pastSweeps }, undefined, pool);
      await score(name, s);
      parts.push(s);
    }
  } finally {
    await pool.close();
  }
  await score('pooled', concatRays(parts));
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
