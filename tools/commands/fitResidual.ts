// `drivekit fit-residual --log <log>... [--model m] --json`: the residual forecaster's threshold (keep the
// multi-sweep prior's token unless the model's probability reaches it), chosen on training logs by token accuracy.
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { forecastStarts } from '../../worldmodel/forecastLog.ts';
import { Forecaster } from '../../worldmodel/forecasterModel.ts';
import { chooseResidualThreshold, residualSamples, type ResidualSample } from '../../worldmodel/residual.ts';
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
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('fit-residual')
    .description(
      "choose the residual forecaster's threshold on training logs: the model's token where its probability ≥ p, else the multi-sweep prior's",
    )
    .requiredOption('--log <dir...>', 'training logs (never the logs the forecast is scored on)')
    .option('--model <file>', 'world model (.onnx)', SHIPPED_WORLDMODEL)
    .option('--tokenizer <dir>', 'tokenizer directory', SHIPPED_TOKENIZER)
    .option('--stride <n>', 'raw frames between start frames', '4')
    .option('--past-sweeps <n>', 'observed sweeps (0.2 s apart) the prior aggregates', '3')
    .option('--json', 'print the fit as one JSON object (snake_case keys, docs/cli.md)')
    .addHelpText(
      'after',
      "\nAt every start: the model's one-shot (K = 1) first chunk of future frames with its probabilities, the\n" +
        'multi-sweep prior of each, and the truth (each future sweep encoded in its own frame). Accuracy is on the\n' +
        "truth's occupied token columns, pooled; the best threshold wins (1.01 = the prior alone, 0 = the model alone).",
    )
    .action(async (o: Options) => {
      if (o.json) setProgressSilent(true);
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
            samples.push(...(await residualSamples(log, tok, fc, starts, pastSweeps, !o.json)));
          } finally {
            await log.close();
          }
        }
      } finally {
        await fc.dispose();
        await tok.dispose();
      }
      if (samples.length === 0) throw new InputError('--log', 'the logs hold no start with a full window');
      const fit = chooseResidualThreshold(samples);
      const res = { ...fit, logs: o.log.map((l) => path.resolve(l)), past_sweeps: pastSweeps, stride };
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
