// `drivekit fit-residual --log <log>... [--model m] --json`: the hybrid (or residual) forecaster's threshold — keep
// the multi-sweep prior unless the model's probability reaches it — chosen on training logs by depth error.
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { forecastStarts } from '../../worldmodel/forecastLog.ts';
import { Forecaster } from '../../worldmodel/forecasterModel.ts';
import {
  chooseHybridRule,
  chooseResidualThreshold,
  residualSamples,
  type ResidualSample,
} from '../../worldmodel/residual.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { intOption } from '../numberOption.ts';
import { printJson } from '../cliOptions.ts';
import { SHIPPED_WORLDMODEL } from './forecast.ts';
import { SHIPPED_TOKENIZER } from './tokenize.ts';

interface Options {
  log: string[];
  model: string;
  tokenizer: string;
  stride: string;
  pastSweeps: string;
  by: string;
  rayStride: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('fit-residual')
    .description(
      "choose the hybrid (or residual) forecaster's threshold on training logs: the model's token where its probability ≥ p, else the multi-sweep prior's",
    )
    .requiredOption('--log <dir...>', 'training logs (never the logs the forecast is scored on)')
    .option('--model <file>', 'world model (.onnx)', SHIPPED_WORLDMODEL)
    .option('--tokenizer <dir>', 'tokenizer directory', SHIPPED_TOKENIZER)
    .option('--stride <n>', 'raw frames between start frames', '4')
    .option('--past-sweeps <n>', 'observed sweeps (0.2 s apart) the prior aggregates', '3')
    .option(
      '--by <criterion>',
      "'depth': the hybrid forecaster's threshold and miss rule by mean depth error along the true rays; 'tokens': the residual's threshold by token accuracy",
      'depth',
    )
    .option('--ray-stride <n>', 'with --by depth: score every n-th true ray', '16')
    .option('--json', 'print the fit as one JSON object (snake_case keys, docs/cli.md)')
    .addHelpText(
      'after',
      "\nAt every start: the model's one-shot (K = 1) first chunk of future frames with its probabilities, the\n" +
        'multi-sweep prior of each, and the truth. --by depth: the hybrid (forecast --hybrid) rendered along the\n' +
        'true rays at every threshold and miss rule; the least mean |depth error| wins (1.01 = the ray-trace alone).\n' +
        "--by tokens: accuracy on the truth's occupied token columns (each future sweep encoded in its own frame).",
    )
    .action(async (o: Options) => {
      if (o.json) setProgressSilent(true);
      if (o.by !== 'depth' && o.by !== 'tokens')
        throw new InputError('--by', `'${o.by}' is not depth or tokens`);
      const rayStride = intOption('--ray-stride', 1)(o.rayStride);
      const stride = intOption('--stride', 1)(o.stride);
      const pastSweeps = intOption('--past-sweeps', 1)(o.pastSweeps);
      const fc = await Forecaster.load(o.model);
      const tok = await Tokenizer.load(o.tokenizer);
      const samples: ResidualSample[] = [];
      try {
        for (const dir of o.log) {
          const log = await LogReader.open(dir);
          try {
            const step = Math.round(fc.config.frames.frameDtS * log.meta.rateHz);
            const starts = forecastStarts(
              log.frameCount,
              step,
              fc.config.frames.past,
              fc.config.frames.future * step,
              stride,
            );
            samples.push(...(await residualSamples(log, tok, fc, starts, pastSweeps, !o.json, rayStride)));
          } finally {
            await log.close();
          }
        }
        if (samples.length === 0) throw new InputError('--log', 'the logs hold no start with a full window');
        if (o.by === 'depth') {
          const fit = await chooseHybridRule(tok.config, samples, async (g, rays) =>
            tok.render(await tok.decode(g), rays),
          );
          const res = {
            ...fit,
            by: 'depth',
            logs: o.log.map((l) => path.resolve(l)),
            past_sweeps: pastSweeps,
            stride,
            ray_stride: rayStride,
          };
          if (o.json) printJson(res);
          else {
            const lines = fit.table.map(
              (r) =>
                `  p ≥ ${r.threshold.toFixed(2)} misses ${r.misses.padEnd(7)}  L1 ${r.l1.toFixed(3)} m  median ${r.l1_median.toFixed(3)} m  changed ${(100 * r.changed).toFixed(2)} %`,
            );
            process.stdout.write(
              `hybrid threshold ${fit.threshold}, misses ${fit.misses} (L1 ${fit.l1.toFixed(3)} m on ${fit.samples} frames)\n${lines.join('\n')}\n`,
            );
          }
          return;
        }
      } finally {
        await fc.dispose();
        await tok.dispose();
      }
      const fit = chooseResidualThreshold(samples);
      const res = {
        ...fit,
        by: 'tokens',
        logs: o.log.map((l) => path.resolve(l)),
        past_sweeps: pastSweeps,
        stride,
      };
      if (o.json) printJson(res);
      else {
        const lines = fit.table.map(
          (r) => `  p ≥ ${r.threshold.toFixed(2)}   accuracy ${(100 * r.accuracy).toFixed(2)} %`,
        );
        process.stdout.write(
          `residual threshold ${fit.threshold} (accuracy ${(100 * fit.accuracy).toFixed(2)} % on ${fit.samples} frames)\n${lines.join('\n')}\n`,
        );
      }
    });
}
