// `drivekit tokenize --log <log> [--model <dir>]`: every sweep of a log as a grid of discrete BEV tokens
// (the world model's input), written atomically into the log as tokens.arrow (DESIGN.md "Tokens").
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { tokensToBatch } from '../../core/arrow/codec.ts';
import type { TokenGrid } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { createProgress, setProgressSilent } from '../../core/progress.ts';
import { LogReader, writeLogArrowFile } from '../../datasets/logstore.ts';
import { gridGeometry } from '../../worldmodel/config.ts';
import { codeUsage } from '../../worldmodel/quantizer.ts';
import { sensorOrigin, sensorPoints } from '../../worldmodel/sweep.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { addForce, addLogInput, logInput, printJson } from '../cliOptions.ts';

/** The tokenizer shipped with drivekit (trained on synthetic logs only; see its metadata). */
export const SHIPPED_TOKENIZER = path.join(REPO_ROOT, 'models', 'tokenizer');

interface Options {
  log: string;
  model: string;
  force?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('tokenize')
    .description(
      "encode every sweep of a log into the tokenizer's BEV token grid, written as <log>/tokens.arrow",
    );
  addLogInput(cmd).option(
    '--model <dir>',
    'tokenizer directory (encoder.onnx + decoder.onnx)',
    SHIPPED_TOKENIZER,
  );
  addForce(cmd, 'an existing tokens.arrow')
    .option('--json', 'print the summary as one JSON object (snake_case keys, docs/cli.md)')
    .addHelpText(
      'after',
      '\ntokens.arrow: one row per frame with frame_index, pose (world_from_vehicle, row-major 4×4) and the\n' +
        'token grid (int32, row-major, rows along y and columns along x of the sensor-centred frame); its\n' +
        'schema metadata holds grid_rows, grid_cols, token_m, range_m and the model it came from.',
    )
    .action(async (positional: string | undefined, o: Options) => {
      const opts = { ...o, log: logInput(positional, o) };
      if (opts.json) setProgressSilent(true);
      const out = path.join(opts.log, 'tokens.arrow');
      const log = await LogReader.open(opts.log);
      try {
        if (fs.existsSync(out) && !opts.force)
          throw new InputError(out, 'exists (pass --force to replace it)');
        const tok = await Tokenizer.load(opts.model);
        const geo = gridGeometry(tok.config);
        const origin = sensorOrigin(log.meta);
        const grids: TokenGrid[] = [];
        const bar = createProgress('tokenize', log.frameCount, { unit: 'frames' });
        const started = Date.now();
        for (let i = 0; i < log.frameCount; i++) {
          const frame = await log.readFrame(i);
          const tokens = await tok.encode(sensorPoints(frame.points, origin), `${opts.log} frame ${i}`);
          grids.push({ frameIndex: i, rows: geo.tokensXY, cols: geo.tokensXY, pose: frame.pose, tokens });
          bar.tick();
        }
        bar.stop();
        await tok.dispose();
        writeLogArrowFile(out, [
          tokensToBatch(grids, {
            token_m: String(geo.tokenM),
            range_m: String(tok.config.grid.rangeM),
            sensor_origin_m: origin.join(','),
            model: path.resolve(opts.model),
          }),
        ]);
        const usage = codeUsage(
          grids.flatMap((g) => Array.from(g.tokens)),
          tok.config.quantizer.codes,
        );
        const summary = {
          log: opts.log,
          tokens_file: out,
          frames: grids.length,
          grid: [geo.tokensXY, geo.tokensXY],
          token_m: geo.tokenM,
          codes_used: usage.used,
          ms_per_frame: (Date.now() - started) / Math.max(1, grids.length),
        };
        if (opts.json) printJson(summary);
        else
          process.stdout.write(
            `tokens     ${out}\nframes     ${summary.frames}, grid ${geo.tokensXY} × ${geo.tokensXY} of ${geo.tokenM} m\ncodes used ${summary.codes_used} of ${tok.config.quantizer.codes}\n`,
          );
      } finally {
        await log.close();
      }
    });
}
