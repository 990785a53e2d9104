// `drivekit detect --model <onnx> --log <log> [--out <file.arrow>]`: run a trained BEV detector (plain
// ONNX on onnxruntime-node) on every sweep of a log and write the Boxes (the log's detector.arrow by default).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { LogReader, writeBoxesFile } from '../../datasets/logstore.ts';
import { DEFAULT_DECODE_CONFIG } from '../../perception/detector/decode.ts';
import { Detector } from '../../perception/detector/model.ts';
import { detectLog } from '../../perception/selftrain.ts';
import { upperMedianOfSorted } from '../../core/stats.ts';
import { intOption, numberOption } from '../numberOption.ts';
import {
  addForce,
  addLogInput,
  addRenamed,
  logInput,
  printJson,
  refuseExisting,
  renamedInput,
} from '../cliOptions.ts';

/** The model shipped with the repository (trained by `drivekit selftrain`, see docs/detector.md). */
export const SHIPPED_MODEL = fileURLToPath(new URL('../../models/detector.onnx', import.meta.url));

interface DetectOptions {
  model: string;
  log: string;
  out?: string;
  gridRange?: number;
  /** Old name of --grid-range (one version). */
  range?: number;
  force?: boolean;
  score?: number;
  nms?: number;
  threads?: number;
  device?: 'cpu' | 'cuda';
  json?: boolean;
}

const positive = (name: string) => numberOption(name, { above: 0 });
const unit = (name: string) => numberOption(name, { min: 0, below: 1 });

export function register(program: Command): void {
  const cmd = program
    .command('detect')
    .description('run a trained BEV detector (ONNX) on every sweep of a log and write its Boxes')
    .option('--model <onnx>', 'detector model (default: the shipped models/detector.onnx)', SHIPPED_MODEL);
  addLogInput(cmd)
    .option('--out <file.arrow>', "Boxes output (default: the log's detector.arrow)")
    .option(
      '--grid-range <m>',
      'half side of the square grid around the ego, m (default: the range the model was trained at; the shipped one: 80)',
      positive('--grid-range'),
    )
    .option(
      '--score <p>',
      `drop boxes scored below this (default: the model’s, ${DEFAULT_DECODE_CONFIG.scoreThreshold})`,
      unit('--score'),
    )
    .option('--nms <iou>', `BEV IoU of rotated NMS (default: ${DEFAULT_DECODE_CONFIG.nmsIou})`, unit('--nms'))
    .option('--threads <n>', 'onnxruntime threads (default: all cores)', intOption('--threads', 1))
    .option('--device <device>', "'cpu' or 'cuda' (needs onnxruntime's CUDA binaries)", 'cpu')
    .option('--json', 'print the summary as one JSON object (snake_case keys, docs/cli.md)');
  addRenamed(cmd, '--range', positive('--range'));
  addForce(cmd, 'an existing --out').action(async (positional: string | undefined, o: DetectOptions) => {
    const opts = {
      ...o,
      log: logInput(positional, o),
      gridRange: renamedInput(o.gridRange, o.range, '--range', '--grid-range'),
    };
    const out = opts.out ?? path.join(opts.log, 'detector.arrow');
    refuseExisting(out, opts.force);
    if (!fs.existsSync(opts.model))
      throw new InputError(opts.model, 'no such model file (train one with `drivekit selftrain`)');
    const decode: Record<string, number> = {};
    if (opts.score !== undefined) decode.scoreThreshold = opts.score;
    if (opts.nms !== undefined) decode.nmsIou = opts.nms;
    const detector = await Detector.load(opts.model, {
      rangeM: opts.gridRange,
      decode,
      threads: opts.threads,
      device: opts.device,
    });
    const log = await LogReader.open(opts.log);
    try {
      const t0 = Date.now();
      const bar = createProgress('detect', log.frameCount, { silent: opts.json, unit: 'frames' });
      const ms: number[] = [];
      let boxes;
      try {
        boxes = await detectLog(detector, log, {
          tick: (n, status) => {
            const t = detector.lastTiming;
            ms.push(t.featuresMs + t.networkMs + t.decodeMs);
            bar.tick(n, status);
          },
          update: (v, s) => bar.update(v, s),
          resume: (v) => bar.resume(v),
          stop: () => bar.stop(),
        });
      } finally {
        bar.stop();
      }
      await writeBoxesFile(out, boxes, { model: path.basename(opts.model) });
      ms.sort((a, b) => a - b);
      const summary = {
        log: opts.log,
        model: opts.model,
        frames: log.frameCount,
        boxes: boxes.cx.length,
        boxesPerFrame: log.frameCount ? boxes.cx.length / log.frameCount : 0,
        grid: `±${detector.rangeM} m at ${detector.spec.cellM} m (${detector.grid.cols}×${detector.grid.rows})`,
        msPerSweepMedian: ms.length ? upperMedianOfSorted(ms) : null,
        seconds: (Date.now() - t0) / 1000,
        out,
      };
      if (opts.json) return printJson(summary);
      process.stdout.write(
        [
          `log        ${summary.log}`,
          `model      ${summary.model}`,
          `grid       ${summary.grid}`,
          `boxes      ${summary.boxes} over ${summary.frames} frames (${summary.boxesPerFrame.toFixed(1)} per frame)`,
          `time       ${summary.seconds.toFixed(1)} s (${summary.msPerSweepMedian?.toFixed(1) ?? '–'} ms per sweep, median)`,
          `wrote      ${out}`,
        ].join('\n') + '\n',
      );
    } finally {
      await log.close();
      await detector.dispose();
    }
  });
}
