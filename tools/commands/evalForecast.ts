// `drivekit eval-forecast --log <log> --pred <file.arrow> --json`: the 4D-Occ protocol (squared Chamfer, near
// field, L1/AbsRel along the true rays) at 1 s and 3 s, beside the tokenizer floor, copy-last and constant velocity.
import type { Command } from 'commander';
import { setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { evalForecast, METHODS } from '../../worldmodel/evalForecast.ts';
import { readForecastFile } from '../../worldmodel/forecastFile.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { SHIPPED_TOKENIZER } from './tokenize.ts';
import { addLogInput, logInput, printJson } from '../cliOptions.ts';

interface Options {
  log: string;
  pred: string;
  tokenizer: string;
  oracle: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('eval-forecast')
    .description(
      'score a forecast by the 4D-Occ protocol beside the tokenizer floor, copy-last and constant velocity',
    );
  addLogInput(cmd, 'the log the forecast is of (sweeps, ego poses; labels when it has them)')
    .requiredOption('--pred <file.arrow>', 'forecast file (drivekit forecast)')
    .option(
      '--tokenizer <dir>',
      'tokenizer: its region bounds the scored truth; it makes the oracle',
      SHIPPED_TOKENIZER,
    )
    .option('--no-oracle', 'leave out the tokenizer floor (encode-then-decode of the true future)')
    .option('--json', 'print the figures as one JSON object (snake_case keys, docs/cli.md)')
    .addHelpText(
      'after',
      '\nPer horizon (1s: t0 + 0.2 … 1.0 s; 3s: t0 + 0.6 … 3.0 s) and method (model, oracle, copy_last, const_vel):\n' +
        'chamfer (squared, ½(pred→true + true→pred) means, m²), chamfer_near (inside ±70 × ±70 × ±4.5 m of t0),\n' +
        'l1 (m) and absrel of depth along the true rays, chamfer_median, and chamfer_movers on labelled logs.\n' +
        "Truth: the future sweep's returns inside the tokenizer's region around its sensor, ego box removed;\n" +
        'averaged over the output sweeps of a start, then over the starts that hold every output sweep.',
    )
    .action(async (positional: string | undefined, o: Options) => {
      const opts = { ...o, log: logInput(positional, o) };
      if (opts.json) setProgressSilent(true);
      const { records, meta } = readForecastFile(opts.pred);
      const log = await LogReader.open(opts.log);
      const tok = await Tokenizer.load(opts.tokenizer);
      try {
        const res = await evalForecast({
          log,
          records,
          tokenizerConfig: tok.config,
          tokenizer: opts.oracle ? tok : null,
          rayStride: Number(meta.ray_stride ?? 1) || 1,
          progress: !opts.json,
        });
        if (opts.json) {
          printJson(res);
          return;
        }
        const lines = [`log        ${opts.log}`, `starts     ${res.starts.join(', ')}`];
        for (const h of ['1s', '3s'] as const) {
          const r = res[h];
          if (!r) continue;
          lines.push(`${h} (${r.starts.length} starts)   chamfer  near     l1 (m)   absrel   movers`);
          for (const m of METHODS) {
            const f = r[m];
            if (!f) continue;
            const c = (v: number | undefined) =>
              (v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(3)).padEnd(8);
            lines.push(
              `  ${m.padEnd(13)} ${c(f.chamfer)} ${c(f.chamfer_near)} ${c(f.l1)} ${c(f.absrel)} ${c(f.chamfer_movers)}`,
            );
          }
        }
        process.stdout.write(lines.join('\n') + '\n');
      } finally {
        await tok.dispose();
        await log.close();
      }
    });
}
