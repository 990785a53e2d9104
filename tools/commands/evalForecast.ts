// `drivekit eval-forecast --log <log> [--pred <file.arrow>...] --json`: the 4D-Occ protocol (squared Chamfer, near
// field, L1/AbsRel along the true rays) at 1 s and 3 s, beside every baseline and the bar they set.
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { BAR_FIGURES, evalForecast, type NamedForecast } from '../../worldmodel/evalForecast.ts';
import { readForecastFile } from '../../worldmodel/forecastFile.ts';
import type { Horizon } from '../../worldmodel/forecastProtocol.ts';
import { forecastStarts } from '../../worldmodel/forecastLog.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { intOption } from '../numberOption.ts';
import { SHIPPED_TOKENIZER } from './tokenize.ts';
import { addLogInput, logInput, printJson } from '../cliOptions.ts';

interface Options {
  log: string;
  pred?: string[];
  tokenizer: string;
  oracle: boolean;
  pastSweeps: string;
  stride: string;
  rayStride: string;
  horizon?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('eval-forecast')
    .description(
      'score forecasts by the 4D-Occ protocol beside copy-last, the ray-trace of past sweeps, the multi-sweep prior and the tokenizer floor',
    );
  addLogInput(cmd, 'the log the forecast is of (sweeps, ego poses; labels when it has them)')
    .option(
      '--pred <file.arrow...>',
      "forecast files (drivekit forecast), each scored under its 'name' metadata (model, residual); none: baselines only",
    )
    .option(
      '--tokenizer <dir>',
      'tokenizer: its region bounds the scored truth; it makes the oracle and the token baselines',
      SHIPPED_TOKENIZER,
    )
    .option('--no-oracle', 'leave out the tokenizer floor (encode-then-decode of the true future)')
    .option(
      '--past-sweeps <n>',
      'observed sweeps (0.2 s apart) the ray-trace baselines and the prior aggregate',
      '3',
    )
    .option('--stride <n>', 'without --pred: raw frames between start frames', '2')
    .option('--ray-stride <n>', 'without --pred: score every n-th true ray', '1')
    .option('--horizon <s>', 'score only this horizon: 1 or 3 (default: both)')
    .option('--json', 'print the figures as one JSON object (snake_case keys, docs/cli.md)')
    .addHelpText(
      'after',
      '\nPer horizon (1s: t0 + 0.2 … 1.0 s; 3s: t0 + 0.6 … 3.0 s) and method: chamfer (squared, ½(pred→true +\n' +
        "true→pred) means, m²), chamfer_median and chamfer_trimmed (each direction's median / 99 %-trimmed mean),\n" +
        'chamfer_near (inside ±70 × ±70 × ±4.5 m of t0, against every true return there), l1 / l1_median (m) and\n' +
        'absrel of depth along the true rays, chamfer_movers on labelled logs. bar: the best baseline per figure.\n' +
        "Truth: the future sweep's returns inside the tokenizer's region around its sensor, ego box removed;\n" +
        'averaged over the output sweeps of a start, then over the starts that hold every output sweep.',
    )
    .action(async (positional: string | undefined, o: Options) => {
      const opts = { ...o, log: logInput(positional, o) };
      if (opts.json) setProgressSilent(true);
      const pastSweeps = intOption('--past-sweeps', 1)(opts.pastSweeps);
      const stride = intOption('--stride', 1)(opts.stride);
      let rayStride = intOption('--ray-stride', 1)(opts.rayStride);
      if (opts.horizon !== undefined && opts.horizon !== '1' && opts.horizon !== '3')
        throw new InputError('--horizon', `'${opts.horizon}' is not 1 or 3`);
      const horizons = opts.horizon ? [`${opts.horizon}s` as Horizon] : undefined;
      const forecasts: NamedForecast[] = [];
      const strides = new Set<number>();
      for (const file of opts.pred ?? []) {
        const { records, meta } = readForecastFile(file);
        forecasts.push({ name: meta.name || 'model', records });
        strides.add(Number(meta.ray_stride ?? 1) || 1);
      }
      if (strides.size > 1)
        throw new InputError(
          '--pred',
          `the forecasts were rendered along different ray strides (${[...strides]})`,
        );
      if (strides.size === 1) rayStride = [...strides][0];
      const log = await LogReader.open(opts.log);
      const tok = await Tokenizer.load(opts.tokenizer);
      try {
        const step = Math.max(1, Math.round(0.2 * log.meta.rateHz));
        const res = await evalForecast({
          log,
          forecasts,
          starts: forecasts.length ? undefined : forecastStarts(log.frameCount, step, 3, step, stride),
          tokenizerConfig: tok.config,
          tokenizer: tok,
          oracle: opts.oracle,
          rayStride,
          pastSweeps,
          horizons,
          progress: !opts.json,
        });
        if (opts.json) {
          printJson(res);
          return;
        }
        const c = (v: number | undefined) =>
          (v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(3)).padEnd(9);
        const lines = [`log        ${path.resolve(opts.log)}`, `starts     ${res.starts.join(', ')}`];
        for (const h of ['1s', '3s'] as const) {
          const r = res[h];
          if (!r) continue;
          lines.push(
            `${h} (${r.starts.length} starts)      chamfer  median   trimmed  near     l1 (m)   l1 med   absrel   movers`,
          );
          for (const [m, f] of Object.entries(r.methods))
            lines.push(
              `  ${m.padEnd(18)} ${c(f.chamfer)}${c(f.chamfer_median)}${c(f.chamfer_trimmed)}${c(f.chamfer_near)}${c(f.l1)}${c(f.l1_median)}${c(f.absrel)}${c(f.chamfer_movers)}`,
            );
          lines.push(
            `  bar: ${BAR_FIGURES.map((k) => `${k} ${r.bar[k].value.toFixed(3)} (${r.bar[k].method})`).join(', ')}`,
          );
        }
        process.stdout.write(lines.join('\n') + '\n');
      } finally {
        await tok.dispose();
        await log.close();
      }
    });
}
