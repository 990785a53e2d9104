// `drivekit train-worldmodel --log <log>... [--eval-log <log>...] [--tokenizer <dir>] --out <dir>`: trains the
// Copilot4D-style forecaster by discrete diffusion on the logs' token grids; the best on held-out forecasts ships.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { printJson } from '../cliOptions.ts';
import { InputError } from '../../core/errors.ts';
import { setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import {
  DEFAULT_FORECASTER_CONFIG,
  forecasterConfig,
  PAPER_FORECASTER_CONFIG,
  type ForecasterConfig,
} from '../../worldmodel/forecastConfig.ts';
import {
  encodeLogTokens,
  loadLogTokens,
  saveLogTokens,
  type LogTokens,
} from '../../worldmodel/forecastTokens.ts';
import { DEFAULT_TRAIN_FORECASTER, trainForecaster } from '../../worldmodel/trainForecaster.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { numberOption } from '../numberOption.ts';
import { SHIPPED_TOKENIZER } from './tokenize.ts';
import { parseConfigJson, validateConfig } from '../../core/configSchema.ts';

interface Options {
  log: string[];
  evalLog: string[];
  tokenizer: string;
  out: string;
  cache?: string;
  steps: string;
  seed: string;
  evalEvery: string;
  config?: string;
  paper?: boolean;
  json?: boolean;
}

function configFrom(json: string | undefined, paper: boolean): ForecasterConfig {
  const base = paper ? PAPER_FORECASTER_CONFIG : DEFAULT_FORECASTER_CONFIG;
  if (!json) return base;
  const over = parseConfigJson(json, (f) => fs.readFileSync(f, 'utf8'));
  // core/configSchema.ts: types and known keys (of every section) from the base config.
  validateConfig(over, base, {}, json.trimStart().startsWith('{') ? '--config' : json);
  return forecasterConfig(over as Parameters<typeof forecasterConfig>[0], base);
}

/** Raw frames between the model's frames: frameDtS at the log's rate (must be a whole number). */
export function frameStride(cfg: ForecasterConfig, rateHz: number, source: string): number {
  const s = cfg.frames.frameDtS * rateHz;
  if (Math.abs(s - Math.round(s)) > 1e-6 || Math.round(s) < 1)
    throw new InputError(source, `a ${rateHz} Hz log has no frames every ${cfg.frames.frameDtS} s`);
  return Math.round(s);
}

/** Token grids of each log, from `cacheDir` when there, else encoded (and cached). */
async function tokensOf(
  logs: readonly string[],
  tok: Tokenizer,
  cfg: ForecasterConfig,
  cacheDir: string,
  progress: boolean,
): Promise<{ lts: LogTokens[]; stride: number }> {
  const lts: LogTokens[] = [];
  let stride = 0;
  for (const dir of logs) {
    const log = await LogReader.open(dir);
    try {
      const s = frameStride(cfg, log.meta.rateHz, dir);
      if (stride && s !== stride)
        throw new InputError(dir, `rate ${log.meta.rateHz} Hz differs from the other logs`);
      stride = s;
      const file = path.join(cacheDir, `${log.meta.logId}.tok`);
      if (fs.existsSync(file)) lts.push(loadLogTokens(file));
      else {
        const offsets = Array.from({ length: cfg.frames.future }, (_, i) => (i + 1) * s);
        const lt = await encodeLogTokens(log, tok, offsets, progress);
        await saveLogTokens(file, lt);
        lts.push(lt);
      }
    } finally {
      await log.close();
    }
  }
  return { lts, stride };
}

export function register(program: Command): void {
  const d = DEFAULT_TRAIN_FORECASTER;
  program
    .command('train-worldmodel')
    .description(
      'train the world model (discrete-diffusion forecaster of future token grids) on logs with poses',
    )
    .requiredOption('--log <log...>', 'training logs (sweeps and ego poses; labels are never read)')
    .option('--eval-log <log...>', 'held-out logs: the best model is chosen on their sampled forecasts', [])
    .option('--tokenizer <dir>', 'tokenizer directory', SHIPPED_TOKENIZER)
    .requiredOption('--out <dir>', 'output directory (checkpoint, train-log.jsonl, worldmodel.onnx)')
    .option('--cache <dir>', 'token-grid cache (default: <out>/tokens)')
    .option('--steps <n>', 'optimiser steps', String(d.steps))
    .option('--seed <s>', 'seed of the weights and the data order', String(d.seed))
    .option('--eval-every <n>', 'steps between held-out forecasts', String(d.evalEvery))
    .option('--config <json|file>', 'forecaster config overrides, e.g. \'{"network":{"blocks":2}}\'')
    .option('--paper', "Copilot4D's sizes (5 + 5 frames, width 256, 8 blocks, batch 8)")
    .option('--json', 'print the result as one JSON object')
    .addHelpText(
      'after',
      '\nEvery sweep is encoded once with the tokenizer (and the last sweep once more in each later frame of a\n' +
        'window: the ego-motion prior); the grids are cached in --cache. A killed run resumes from\n' +
        "<out>/checkpoint.safetensors. <out>/worldmodel.onnx is rewritten whenever the held-out forecasts'\n" +
        'token accuracy on occupied columns improves; without --eval-log the last model is written.',
    )
    .action(async (opts: Options) => {
      if (opts.json) setProgressSilent(true);
      const config = configFrom(opts.config, !!opts.paper);
      const num = (flag: string, v: string, min: number) => numberOption(flag, { integer: true, min })(v);
      const steps = num('--steps', opts.steps, 1);
      const cacheDir = opts.cache ?? path.join(opts.out, 'tokens');
      const tok = await Tokenizer.load(opts.tokenizer);
      const train = await tokensOf(opts.log, tok, config, cacheDir, !opts.json);
      const held = await tokensOf(opts.evalLog, tok, config, cacheDir, !opts.json);
      await tok.dispose();
      const res = await trainForecaster({
        ...d,
        train: train.lts,
        held: held.lts,
        outDir: opts.out,
        config,
        codes: tok.config.quantizer.codes,
        stride: train.stride,
        steps,
        seed: num('--seed', opts.seed, 0),
        evalEvery: num('--eval-every', opts.evalEvery, 1),
        progress: !opts.json,
        facts: { logs: opts.log, evalLogs: opts.evalLog, tokenizer: path.resolve(opts.tokenizer) },
      });
      if (opts.json) {
        printJson(res);
        return;
      }
      const b = res.best;
      process.stdout.write(
        [
          `world model    ${res.modelFile}`,
          `steps          ${res.steps}${res.resumedFrom !== null ? ` (resumed from ${res.resumedFrom})` : ''}, ${res.seconds.toFixed(0)} s`,
          b
            ? `best held-out  step ${b.step}: token accuracy ${(100 * b.accuracy).toFixed(1)} %, on occupied ${(100 * b.occupiedAccuracy).toFixed(1)} % (prior ${(100 * b.priorOccupiedAccuracy).toFixed(1)} %), on changed ${(100 * b.changedAccuracy).toFixed(1)} %`
            : 'best held-out  none (no --eval-log)',
        ].join('\n') + '\n',
      );
    });
}
