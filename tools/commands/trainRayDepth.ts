// `drivekit train-ray-depth --log <log>... --out <dir>`: fit the learned ray-depth head (the past sweeps along
// each future ray → a correction of the ray-trace baseline's depth) on logs with poses; the future sweeps label it.
import path from 'node:path';
import type { Command } from 'commander';
import { printJson } from '../cliOptions.ts';
import { createProgress, setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { DEFAULT_RAY_DEPTH_TRAIN, trainRayDepth } from '../../worldmodel/trainRayDepth.ts';
import { InputError } from '../../core/errors.ts';
import { DEFAULT_RAY_DEPTH_MODEL } from '../../worldmodel/rayDepthModel.ts';
import { ENCODER_FILE, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { SHIPPED_TOKENIZER } from './tokenize.ts';

interface Options {
  log: string[];
  out: string;
  tokenizer: string;
  epochs: number;
  stride: number;
  rayStride: number;
  validationShare: number;
  seed: number;
  gateLabel: string;
  realRepeat: number;
  realGate?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  const d = DEFAULT_RAY_DEPTH_TRAIN;
  program
    .command('train-ray-depth')
    .description(
      "fit the learned ray-depth head on logs with ego poses: each future sweep's rays are labels for what the past sweeps placed in that frame say along them; the last starts of each log choose the epoch; resumable",
    )
    .requiredOption('--log <dir...>', 'training logs (with poses); never the log it will be scored on')
    .requiredOption('--out <dir>', 'run folder: checkpoint (resumed when present), raydepth.onnx, card.json')
    .option(
      '--tokenizer <dir>',
      "the tokenizer whose region (grid) the rays are cut to, as eval-forecast's",
      SHIPPED_TOKENIZER,
    )
    .option('--epochs <n>', 'epochs', intOption('--epochs', 1), d.epochs)
    .option('--stride <n>', 'raw frames between training starts', intOption('--stride', 1), d.startStride)
    .option('--ray-stride <n>', 'every n-th true ray is a sample', intOption('--ray-stride', 1), d.rayStride)
    .option(
      '--validation-share <f>',
      "the last share of each log's starts, which choose the epoch",
      numberOption('--validation-share', { min: 0.01, max: 0.9 }),
      d.validationShare,
    )
    .option('--seed <s>', 'random seed', intOption('--seed', 0), d.seed)
    .option(
      '--gate-label <rule>',
      "the gate learns where the ray-trace is 'within' 2 % of the truth, or 'closer' to it than the head",
      DEFAULT_RAY_DEPTH_MODEL.gateLabel,
    )
    .option(
      '--real-repeat <n>',
      'each training ray of a real log enters every epoch n times',
      intOption('--real-repeat', 1),
      d.realRepeat,
    )
    .option(
      '--real-gate',
      "also choose the gate's threshold for real sweeps on the real logs' validation rays alone",
    )
    .option('--json', 'print the summary as one JSON line')
    .action(async (opts: Options) => {
      if (opts.json) setProgressSilent(true);
      if (opts.gateLabel !== 'within' && opts.gateLabel !== 'closer')
        throw new InputError('--gate-label', `'${opts.gateLabel}' is not within or closer`);
      const cfg = readTokenizerSpec(path.join(opts.tokenizer, ENCODER_FILE)).config;
      const logs = [];
      for (const dir of opts.log)
        logs.push({ name: path.basename(path.resolve(dir)), log: await LogReader.open(dir) });
      const bars = new Map<string, ReturnType<typeof createProgress>>();
      try {
        const res = await trainRayDepth(
          {
            logs,
            cfg,
            out: opts.out,
            data: {
              command: ['drivekit', ...process.argv.slice(2)].join(' '),
              train: opts.log.map((l) => path.basename(path.resolve(l))),
              tokenizer: path.basename(path.resolve(opts.tokenizer)),
            },
            onProgress: (what, done, total, status) => {
              if (!bars.has(what)) bars.set(what, createProgress(what, total, { silent: opts.json }));
              bars.get(what)!.update(done, status);
              if (done === total) bars.get(what)!.stop();
            },
          },
          {
            epochs: opts.epochs,
            startStride: opts.stride,
            rayStride: opts.rayStride,
            validationShare: opts.validationShare,
            seed: opts.seed,
            realRepeat: opts.realRepeat,
            realGate: opts.realGate === true,
            model: { gateLabel: opts.gateLabel },
          },
        );
        if (opts.json) printJson({ out: opts.out, ...res, curve: undefined });
        else
          process.stdout.write(
            `train-ray-depth: ${res.samples.train} training rays, ${res.samples.validation} validation rays, best epoch ${res.bestEpoch}\n` +
              `validation L1 mean / median ${res.validation.model.mean.toFixed(3)} / ${res.validation.model.median.toFixed(3)} m ` +
              `(ray-trace baseline ${res.validation.baseline.mean.toFixed(3)} / ${res.validation.baseline.median.toFixed(3)} m), gate at logit ${res.keepThresholdLogit}\n` +
              `wrote ${res.files.join(', ')}\n`,
          );
      } finally {
        for (const b of bars.values()) b.stop();
        for (const l of logs) await l.log.close();
      }
    });
}
