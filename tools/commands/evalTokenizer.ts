// `drivekit eval-tokenizer --log <log> [--model <dir>] --json`: how well the tokenizer reconstructs a log's
// sweeps — depth L1 along the sweep's own rays, share within 1 m, squared Chamfer, codebook usage.
import type { Command } from 'commander';
import { addLogInput, logInput, printJson } from '../cliOptions.ts';
import { createProgress, setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { reconstructFrame, TokenizerScore } from '../../worldmodel/evalTokenizer.ts';
import { laserBlocksOf } from '../../worldmodel/laserLines.ts';
import { sensorOrigin } from '../../worldmodel/sweep.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { SHIPPED_TOKENIZER } from './tokenize.ts';
import { intOption } from '../numberOption.ts';

interface Options {
  log: string;
  model: string;
  frames?: string;
  rayStride: string;
  originRays?: boolean;
  json?: boolean;
}

/** Frame indices spread evenly over the log: all of them, or `n` when fewer are asked for. */
export function spreadFrames(frameCount: number, n: number | undefined): number[] {
  const k = n === undefined ? frameCount : Math.min(n, frameCount);
  return Array.from({ length: k }, (_, i) => Math.floor((i * frameCount) / k));
}

export function register(program: Command): void {
  const cmd = program
    .command('eval-tokenizer')
    .description("score the tokenizer's reconstruction of a log (encode → decode → render along its rays)");
  addLogInput(cmd)
    .option('--model <dir>', 'tokenizer directory (encoder.onnx + decoder.onnx)', SHIPPED_TOKENIZER)
    .option('--frames <n>', 'score n frames spread over the log (default: all)')
    .option('--ray-stride <n>', 'score every n-th ray of each sweep (rendering is the cost)', '1')
    .option(
      '--origin-rays',
      "render every return from the sensor origin, also where the log's lasers sit above it (extra.laserBlocks, or a KITTI source)",
    )
    .option('--json', 'print the figures as one JSON object (snake_case keys, shares as fractions)')
    .addHelpText(
      'after',
      '\nFigures: depth_l1_mean_m / depth_l1_median_m (|rendered − measured| range over every return inside\n' +
        "the tokenizer's region, pooled), within_1m (share of those ≤ 1 m), too_far_5m (share rendered > 5 m\n" +
        'beyond their return), chamfer_m2 (squared-distance\n' +
        'Chamfer between the decoded and the input cloud, mean over frames), chamfer_near_m2 (the same inside\n' +
        '±70 m × ±70 m × ±4.5 m), codes_used and perplexity of the token grids. rays_from: lasers when each return is\n' +
        "rendered along the line from its laser (a sensor whose lasers sit above its origin, e.g. KITTI's HDL-64E;\n" +
        'docs/worldmodel.md), else origin.',
    )
    .action(async (positional: string | undefined, o: Options) => {
      const opts = { ...o, log: logInput(positional, o) };
      if (opts.json) setProgressSilent(true);
      const rayStride = intOption('--ray-stride', 1)(opts.rayStride);
      let n: number | undefined;
      if (opts.frames !== undefined) {
        n = intOption('--frames', 1)(opts.frames);
      }
      const log = await LogReader.open(opts.log);
      const tok = await Tokenizer.load(opts.model);
      try {
        const origin = sensorOrigin(log.meta);
        const lasers = opts.originRays ? null : laserBlocksOf(log.meta, opts.log);
        const score = new TokenizerScore(tok.config.quantizer.codes);
        const frames = spreadFrames(log.frameCount, n);
        const bar = createProgress('eval-tokenizer', frames.length, { unit: 'frames' });
        for (const i of frames) {
          score.add(
            await reconstructFrame(
              tok,
              await log.readFrame(i),
              origin,
              `${opts.log} frame ${i}`,
              rayStride,
              lasers,
            ),
          );
          bar.tick();
        }
        bar.stop();
        const f = { ...score.figures(), rays_from: lasers ? 'lasers' : 'origin' };
        if (opts.json) {
          printJson(f);
          return;
        }
        process.stdout.write(
          [
            `log              ${opts.log} (${f.frames} frames, rays from the ${f.rays_from === 'lasers' ? "sensor's lasers" : 'sensor origin'})`,
            `depth L1         mean ${f.depth_l1_mean_m.toFixed(3)} m, median ${f.depth_l1_median_m.toFixed(3)} m, ${(100 * f.within_1m).toFixed(1)} % within 1 m, ${(100 * f.too_far_5m).toFixed(2)} % > 5 m too far`,
            `Chamfer          ${f.chamfer_m2.toFixed(3)} m² (near field ${f.chamfer_near_m2.toFixed(3)} m²)`,
            `codebook         ${f.codes_used} of ${tok.config.quantizer.codes} codes used, perplexity ${f.perplexity.toFixed(1)}`,
          ].join('\n') + '\n',
        );
      } finally {
        await tok.dispose();
        await log.close();
      }
    });
}
