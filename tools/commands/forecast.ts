// `drivekit forecast --log <log> [--model <m>] [--past 3] [--horizon 3] [--stride 5] --out <file.arrow>`: the
// world model's forecast of a log's future sweeps, one record batch per (start, target) in the start's frame.
import path from 'node:path';
import { coreCount } from '../../core/workers.ts';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import type { HybridMisses } from '../../worldmodel/hybridRender.ts';
import { setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { forecastLog, forecastStarts } from '../../worldmodel/forecastLog.ts';
import { type Horizon, protocolOffsets } from '../../worldmodel/forecastProtocol.ts';
import { forecastLogRayDepth } from '../../worldmodel/rayDepthForecast.ts';
import { RayDepthHead } from '../../worldmodel/rayDepthModel.ts';
import { writeForecastFile } from '../../worldmodel/forecastFile.ts';
import { Forecaster } from '../../worldmodel/forecasterModel.ts';
import { ENCODER_FILE, readTokenizerSpec, Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { SHIPPED_TOKENIZER } from './tokenize.ts';
import { addForce, addLogInput, logInput, printJson, refuseExisting } from '../cliOptions.ts';

/** The world model shipped with drivekit (trained on synthetic logs only; see its metadata). */
export const SHIPPED_WORLDMODEL = path.join(REPO_ROOT, 'models', 'worldmodel.onnx');

/** The learned ray-depth head shipped with drivekit: fold A (kitti-raw-78 + synthetic; KITTI 0048 never seen). */
export const SHIPPED_RAY_DEPTH = path.join(REPO_ROOT, 'models', 'raydepth-foldA', 'raydepth.onnx');

interface Options {
  log: string;
  model: string;
  tokenizer: string;
  past: string;
  horizon: string;
  stride: string;
  steps?: string;
  guidance?: string;
  seed: string;
  out: string;
  force?: boolean;
  allFrames?: boolean;
  rayStride: string;
  residual?: string;
  hybrid?: string;
  hybridMisses: string;
  pastSweeps: string;
  rayModel?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('forecast')
    .description(
      "forecast a log's future sweeps with the world model, written as Arrow IPC in each start's frame",
    );
  addLogInput(cmd, 'log directory (sweeps and ego poses)')
    .option('--model <file>', 'world model (.onnx)', SHIPPED_WORLDMODEL)
    .option('--tokenizer <dir>', 'tokenizer directory', SHIPPED_TOKENIZER)
    .option('--past <n>', 'observed frames (must match the model)', '3')
    .option('--horizon <s>', 'seconds ahead (rolled out autoregressively)', '3')
    .option('--stride <n>', 'raw frames between start frames', '5')
    .option('--steps <k>', "denoising steps (1 = one-shot argmax; default the model's, 10)")
    .option('--guidance <w>', "classifier-free guidance weight (0 = none; default the model's)")
    .option('--seed <s>', 'seed of the sampling noise', '1')
    .requiredOption('--out <file.arrow>', 'output forecast file')
    .option(
      '--all-frames',
      'write every predicted frame (default: the 4D-Occ output sweeps, t0 + 0.2 … 1.0 s and + 0.6 … 3.0 s)',
    )
    .option(
      '--ray-stride <n>',
      'render along every n-th true ray (cheaper; eval-forecast scores the same rays)',
      '1',
    )
    .option(
      '--residual <p>',
      "residual over the multi-sweep prior: keep the model's token only where its probability ≥ p (drivekit fit-residual chooses p)",
    )
    .option(
      '--hybrid <p>',
      'the residual grids (threshold p) drawn by the hybrid renderer: the ray-trace of the past sweeps, the decoder only on rays meeting a column the model changed (drivekit fit-residual chooses p)',
    )
    .option(
      '--hybrid-misses <rule>',
      "with --hybrid: rays with no past point near them take 'ground' (flat ground or region exit) or 'decoder'",
      'ground',
    )
    .option(
      '--past-sweeps <n>',
      "observed sweeps (0.2 s apart) the residual's or hybrid's prior aggregates",
      '3',
    )
    .option(
      '--ray-model <file>',
      'forecast with a learned ray-depth head instead (drivekit train-ray-depth): the past sweeps placed in each future frame, the ray-trace baseline corrected per ray; no tokens',
    )
    .option('--json', 'print the summary as one JSON object (snake_case keys, docs/cli.md)');
  addForce(cmd, 'an existing --out')
    .addHelpText(
      'after',
      '\nOne record batch per (start frame, target frame): columns x, y, z (float32) in the vehicle frame of the\n' +
        'start frame (the 4D-Occ reference frame), batch metadata start_frame, target_frame, horizon_s and rays\n' +
        "('truth': rendered along the true future sweep's rays, in their order; 'nominal': a 64-beam pattern).\n" +
        'Starts: the first frame with --past frames behind it, then every --stride frames while the horizon fits.',
    )
    .action(async (positional: string | undefined, o: Options) => {
      const opts = { ...o, log: logInput(positional, o) };
      if (opts.json) setProgressSilent(true);
      refuseExisting(opts.out, opts.force);
      const past = intOption('--past', 1)(opts.past);
      const horizonS = numberOption('--horizon', { min: 0.1 })(opts.horizon);
      const stride = intOption('--stride', 1)(opts.stride);
      const seed = intOption('--seed', 0)(opts.seed);
      const rayStride = intOption('--ray-stride', 1)(opts.rayStride);
      const pastSweeps = intOption('--past-sweeps', 1)(opts.pastSweeps);
      const residual =
        opts.residual === undefined
          ? undefined
          : { threshold: numberOption('--residual', { min: 0 })(opts.residual), pastSweeps };
      if (opts.hybrid !== undefined && opts.residual !== undefined)
        throw new InputError('--hybrid', 'give either --residual or --hybrid, not both');
      if (opts.hybridMisses !== 'ground' && opts.hybridMisses !== 'decoder')
        throw new InputError('--hybrid-misses', `'${opts.hybridMisses}' is not ground or decoder`);
      const hybrid =
        opts.hybrid === undefined
          ? undefined
          : {
              threshold: numberOption('--hybrid', { min: 0 })(opts.hybrid),
              pastSweeps,
              misses: opts.hybridMisses as HybridMisses,
            };
      if (opts.rayModel !== undefined) {
        if (hybrid || residual)
          throw new InputError('--ray-model', 'give --ray-model without --residual or --hybrid');
        await forecastWithRayModel({ ...opts, rayModel: opts.rayModel }, horizonS, stride, rayStride);
        return;
      }
      const log = await LogReader.open(opts.log);
      const fc = await Forecaster.load(opts.model);
      const tok = await Tokenizer.load(opts.tokenizer);
      try {
        const sampling = {
          ...fc.config.sampling,
          ...(opts.steps !== undefined ? { steps: intOption('--steps', 1)(opts.steps) } : {}),
          ...(opts.guidance !== undefined
            ? { guidance: numberOption('--guidance', { min: 0 })(opts.guidance) }
            : {}),
        };
        const started = Date.now();
        const records = await forecastLog(log, tok, fc, {
          past,
          horizonS,
          startStride: stride,
          sampling,
          seed,
          write: opts.allFrames ? 'all' : 'protocol',
          rayStride,
          residual,
          hybrid,
          progress: !opts.json,
        });
        await writeForecastFile(opts.out, records, {
          log: path.resolve(opts.log),
          model: path.resolve(opts.model),
          steps: String(sampling.steps),
          guidance: String(sampling.guidance),
          ray_stride: String(rayStride),
          name: hybrid ? 'hybrid' : residual ? 'residual' : 'model',
          tokenizer: path.resolve(opts.tokenizer),
          ...(residual
            ? { residual_threshold: String(residual.threshold), past_sweeps: String(residual.pastSweeps) }
            : {}),
          ...(hybrid
            ? {
                residual_threshold: String(hybrid.threshold),
                hybrid_misses: hybrid.misses,
                past_sweeps: String(hybrid.pastSweeps),
              }
            : {}),
        });
        const starts = [...new Set(records.map((r) => r.startFrame))];
        const summary = {
          out: opts.out,
          starts,
          records: records.length,
          steps: sampling.steps,
          guidance: sampling.guidance,
          seconds: (Date.now() - started) / 1000,
        };
        if (opts.json) printJson(summary);
        else
          process.stdout.write(
            `forecast   ${opts.out}\nstarts     ${starts.join(', ')}\nsweeps     ${records.length} (K = ${sampling.steps}, guidance ${sampling.guidance}), ${summary.seconds.toFixed(0)} s\n`,
          );
      } finally {
        await fc.dispose();
        await tok.dispose();
        await log.close();
      }
    });
}

/** `forecast --ray-model`: the learned ray-depth head's forecast, written like the world model's. */
async function forecastWithRayModel(
  opts: Options & { rayModel: string },
  horizonS: number,
  stride: number,
  rayStride: number,
): Promise<void> {
  const horizons: Horizon[] = horizonS >= 3 ? ['1s', '3s'] : ['1s'];
  const head = await RayDepthHead.load(opts.rayModel, coreCount());
  const log = await LogReader.open(opts.log);
  try {
    const cfg = readTokenizerSpec(path.join(opts.tokenizer, ENCODER_FILE)).config;
    const step = Math.max(1, Math.round(0.2 * log.meta.rateHz));
    const last = protocolOffsets(horizons.at(-1)!, log.meta.rateHz).at(-1)!;
    const started = Date.now();
    const records = await forecastLogRayDepth(log, cfg, head, {
      starts: forecastStarts(log.frameCount, step, head.card.pastSweeps, last, stride),
      horizons,
      rayStride,
      progress: !opts.json,
    });
    await writeForecastFile(opts.out, records, {
      log: path.resolve(opts.log),
      model: path.resolve(opts.rayModel),
      ray_stride: String(rayStride),
      name: 'ray_depth',
      tokenizer: path.resolve(opts.tokenizer),
      past_sweeps: String(head.card.pastSweeps),
    });
    const starts = [...new Set(records.map((r) => r.startFrame))];
    const summary = {
      out: opts.out,
      starts,
      records: records.length,
      seconds: (Date.now() - started) / 1000,
    };
    if (opts.json) printJson(summary);
    else
      process.stdout.write(
        `forecast   ${opts.out}\nstarts     ${starts.join(', ')}\nsweeps     ${records.length} (ray-depth head), ${summary.seconds.toFixed(0)} s\n`,
      );
  } finally {
    await head.dispose();
    await log.close();
  }
}
