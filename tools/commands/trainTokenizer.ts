// `drivekit train-tokenizer --log <log>... [--eval-log <log>...] --out <dir>`: trains the world model's LiDAR
// tokenizer (Copilot4D VQ-VAE) on unlabelled sweeps; the best model on held-out depth error goes to <dir>/model.
import fs from 'node:fs';
import type { Command } from 'commander';
import { printJson } from '../cliOptions.ts';
import { setProgressSilent } from '../../core/progress.ts';
import {
  DEFAULT_TOKENIZER_CONFIG,
  TOKENIZER_CONFIG_RANGES,
  PAPER_TOKENIZER_CONFIG,
  tokenizerConfig,
  type DeepPartial,
  type TokenizerConfig,
} from '../../worldmodel/config.ts';
import { DEFAULT_TRAIN_TOKENIZER, trainTokenizer } from '../../worldmodel/trainTokenizer.ts';
import { numberOption } from '../numberOption.ts';
import { parseConfigJson, validateConfig } from '../../core/configSchema.ts';

interface Options {
  log: string[];
  evalLog: string[];
  out: string;
  steps: string;
  lr: string;
  seed: string;
  evalEvery: string;
  checkpointEvery: string;
  config?: string;
  paper?: boolean;
  shiftXy: string;
  shiftZ: string;
  beamDropout: string;
  initFrom?: string;
  laserRays?: boolean;
  json?: boolean;
}

function num(flag: string, v: string, opts: { int?: boolean; min?: number; max?: number } = {}): number {
  return numberOption(flag, { integer: opts.int, min: opts.min, max: opts.max })(v);
}

/** The config from the defaults (or the paper's scale) and a JSON override (inline or a file). */
export function configFrom(json: string | undefined, paper: boolean): TokenizerConfig {
  const base = paper ? PAPER_TOKENIZER_CONFIG : DEFAULT_TOKENIZER_CONFIG;
  if (!json) return base;
  const over = parseConfigJson(json, (f) => fs.readFileSync(f, 'utf8')) as DeepPartial<TokenizerConfig>;
  validateConfig(over, base, TOKENIZER_CONFIG_RANGES, fs.existsSync(json) ? json : '--config');
  return tokenizerConfig(over, base);
}

export function register(program: Command): void {
  const d = DEFAULT_TRAIN_TOKENIZER;
  program
    .command('train-tokenizer')
    .description('train the LiDAR tokenizer (VQ-VAE, differentiable depth rendering) on unlabelled logs')
    .requiredOption('--log <log...>', 'training logs (sweeps only; labels are never read)')
    .option('--eval-log <log...>', 'held-out logs: the best model is chosen on their depth error', [])
    .requiredOption('--out <dir>', 'output directory (checkpoint, train-log.jsonl, model/)')
    .option('--steps <n>', 'optimiser steps, one sweep each', String(d.steps))
    .option('--lr <x>', 'peak learning rate (AdamW, warm-up then cosine)', String(d.lr))
    .option('--seed <s>', 'seed of the weights and the data order', String(d.seed))
    .option('--eval-every <n>', 'steps between held-out evaluations', String(d.evalEvery))
    .option('--checkpoint-every <n>', 'steps between checkpoints', String(d.checkpointEvery))
    .option('--config <json|file>', 'tokenizer config overrides, e.g. \'{"quantizer":{"codes":1024}}\'')
    .option('--paper', "Copilot4D's scale (±80 m, 1024² × 64 voxels, 128² tokens, 1024 codes)")
    .option('--shift-xy <m>', 'largest random shift of a training sweep along x and y, in m', '0')
    .option('--shift-z <m>', 'largest random shift of a training sweep along z, in m', '0')
    .option('--beam-dropout <share>', 'largest share of beams dropped from a training sweep', '0')
    .option('--init-from <dir>', "start from this tokenizer's weights (its z cells may be split k-fold)")
    .option(
      '--laser-rays',
      'render returns from their lasers where a log says where its lasers sit (extra.laserBlocks, or a KITTI source), in training and the held-out evaluation (default: from the origin)',
    )
    .option('--json', 'print the result as one JSON object')
    .addHelpText(
      'after',
      '\nA killed run resumes from <dir>/checkpoint.safetensors when started again with the same --out.\n' +
        'The model is written to <dir>/model (encoder.onnx, decoder.onnx) each time the held-out mean depth\n' +
        'error improves after the quantiser is on; without --eval-log the last model is written.',
    )
    .action(async (opts: Options) => {
      if (opts.json) setProgressSilent(true);
      const config = configFrom(opts.config, !!opts.paper);
      const res = await trainTokenizer({
        ...d,
        logs: opts.log,
        evalLogs: opts.evalLog,
        outDir: opts.out,
        config,
        steps: num('--steps', opts.steps, { int: true, min: 1 }),
        lr: num('--lr', opts.lr, { min: 0 }),
        seed: num('--seed', opts.seed, { int: true, min: 0 }),
        evalEvery: num('--eval-every', opts.evalEvery, { int: true, min: 1 }),
        checkpointEvery: num('--checkpoint-every', opts.checkpointEvery, { int: true, min: 1 }),
        augment: {
          shiftXYM: num('--shift-xy', opts.shiftXy, { min: 0 }),
          shiftZM: num('--shift-z', opts.shiftZ, { min: 0 }),
          beamDropout: num('--beam-dropout', opts.beamDropout, { min: 0, max: 1 }),
        },
        initFrom: opts.initFrom,
        laserRays: !!opts.laserRays,
        progress: !opts.json,
      });
      if (opts.json) {
        printJson(res);
        return;
      }
      const b = res.best;
      process.stdout.write(
        [
          `tokenizer      ${res.modelDir}`,
          `steps          ${res.steps}${res.resumedFrom !== null ? ` (resumed from ${res.resumedFrom})` : ''}, ${res.seconds.toFixed(0)} s`,
          b
            ? `best held-out  step ${b.step}: depth L1 mean ${b.depthL1MeanM.toFixed(2)} m, median ${b.depthL1MedianM.toFixed(2)} m, ${(100 * b.within1m).toFixed(1)} % within 1 m, ${b.codesUsed} codes used, perplexity ${b.perplexity.toFixed(0)}`
            : 'best held-out  none (no --eval-log, or no evaluation after the warm-up)',
        ].join('\n') + '\n',
      );
    });
}
