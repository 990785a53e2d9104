// Training the tokenizer on unlabelled logs: random augmented sweeps, an autoencoder warm-up, k-means codebook
// start, dead-code re-initialisation, held-out evaluation, checkpoints that resume exactly, best-model export.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic.ts';
import { InputError } from '../core/errors.ts';
import { checkpointExists, loadCheckpoint, saveCheckpoint } from '../core/nn/checkpoint.ts';
import { GraphSession } from '../core/nn/graphSession.ts';
import { ParamStore } from '../core/nn/params.ts';
import { Rng } from '../core/rng.ts';
import { warmupCosine } from '../core/nn/schedules.ts';
import type { ort } from '../core/nn/runtime.ts';
import { createProgress } from '../core/progress.ts';
import { LogReader } from '../datasets/logstore.ts';
import type { TokenizerConfig } from './config.ts';
import { codeUsage, kmeansCodebook, MemoryBank, reinitDeadCodes } from './quantizer.ts';
import {
  dropBeams,
  NO_EXTRA_AUGMENT,
  randomAugment,
  sensorOrigin,
  sensorPoints,
  type AugmentRanges,
} from './sweep.ts';
import { warmStartTokenizer, type WarmStartReport } from './tokenizerInit.ts';
import { buildTokenizerGraph, createTokenizerTrainer } from './tokenizerGraph.ts';
import { type LaserBlock, laserBlocksOf } from './laserLines.ts';
import { trainingFeeds, type TrainingExample } from './tokenizerFeeds.ts';
import { exportTokenizer } from './tokenizerModel.ts';
import { makeDirs } from '../core/dirs.ts';

export interface TrainTokenizerOptions {
  /** Training logs (any source; only the sweeps are used, never labels). */
  logs: readonly string[];
  /** Held-out logs: the best checkpoint is chosen on their depth error (default: none, last one kept). */
  evalLogs: readonly string[];
  /** Output directory: checkpoint, training log, and model/ (the best encoder.onnx + decoder.onnx). */
  outDir: string;
  config: TokenizerConfig;
  /** Optimiser steps in total (one sweep per step). */
  steps: number;
  /** Peak learning rate (AdamW, linear warm-up then cosine decay). */
  lr: number;
  seed: number;
  evalEvery: number;
  checkpointEvery: number;
  /** Held-out sweeps per evaluation (spread evenly over the eval logs) and rays rendered in each. */
  evalFrames: number;
  evalRays: number;
  /** Show a progress bar (stderr). */
  progress: boolean;
  /** Sub-voxel shift and beam dropout of the training sweeps (besides yaw and mirror; default off). */
  augment?: AugmentRanges;
  /** Start from this exported tokenizer's weights and codebook (no autoencoder warm-up, no k-means). */
  initFrom?: string;
  /** Stop after this many steps of this call (tests simulate a kill with it). */
  stopAfter?: number;
  /**
   * Render each sweep's returns from their lasers where the log says where its lasers sit (laserLines.ts), in
   * training and in the held-out evaluation; default: every ray from the origin.
   */
  laserRays?: boolean;
}

export const DEFAULT_TRAIN_TOKENIZER: Omit<TrainTokenizerOptions, 'logs' | 'evalLogs' | 'outDir' | 'config'> =
  {
    steps: 4000,
    lr: 1e-3,
    seed: 1,
    evalEvery: 250,
    checkpointEvery: 50,
    evalFrames: 8,
    evalRays: 4096,
    progress: true,
  };

export interface HeldOutFigures {
  step: number;
  depthL1MeanM: number;
  depthL1MedianM: number;
  within1m: number;
  codesUsed: number;
  perplexity: number;
}

export interface TrainTokenizerResult {
  steps: number;
  resumedFrom: number | null;
  evals: HeldOutFigures[];
  best: HeldOutFigures | null;
  modelDir: string;
  seconds: number;
}

interface FrameRef {
  log: LogReader;
  index: number;
  origin: [number, number, number];
  lasers: readonly LaserBlock[] | null;
}

async function openFrames(
  logs: readonly string[],
  laserRays: boolean,
): Promise<{ readers: LogReader[]; frames: FrameRef[] }> {
  const readers: LogReader[] = [];
  const frames: FrameRef[] = [];
  for (const dir of logs) {
    const r = await LogReader.open(dir);
    readers.push(r);
    const origin = sensorOrigin(r.meta);
    const lasers = laserRays ? laserBlocksOf(r.meta, dir) : null;
    for (let i = 0; i < r.frameCount; i++) frames.push({ log: r, index: i, origin, lasers });
  }
  return { readers, frames };
}

const encodeF32 = (a: Float32Array | Uint32Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
function decodeInto(b64: string, into: Float32Array | Uint32Array): void {
  const buf = Buffer.from(b64, 'base64');
  new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(buf);
}

interface ExtraState {
  best: HeldOutFigures | null;
  evals: HeldOutFigures[];
  bankSize: number;
  bankCursor: number;
  bank: string;
  counts: string;
  codebookInitialised: boolean;
  warmStart?: WarmStartReport;
}

export async function trainTokenizer(opts: TrainTokenizerOptions): Promise<TrainTokenizerResult> {
  const started = Date.now();
  const cfg = opts.config;
  const q = cfg.quantizer;
  if (opts.logs.length === 0) throw new InputError('--log', 'no training log given');
  const train = await openFrames(opts.logs, !!opts.laserRays);
  const held = await openFrames(opts.evalLogs, !!opts.laserRays);
  if (train.frames.length === 0)
    throw new InputError(opts.logs.join(', '), 'the training logs hold no sweep');
  makeDirs(opts.outDir);
  const ckpt = path.join(opts.outDir, 'checkpoint.safetensors');
  const modelDir = path.join(opts.outDir, 'model');
  const logFile = path.join(opts.outDir, 'train-log.jsonl');

  const ps = new ParamStore({ seed: opts.seed });
  const tg = buildTokenizerGraph(ps, cfg);
  const trainer = await createTokenizerTrainer(
    tg,
    warmupCosine({
      lr: opts.lr,
      // A warm start only needs the optimiser's moments to settle, not a network to get going.
      warmupSteps: Math.min(opts.initFrom ? 20 : 200, opts.steps),
      totalSteps: opts.steps,
      minLr: opts.lr / 20,
    }),
  );
  const evalSession = await GraphSession.create(tg.graph, {
    depth: tg.outputs.depth,
    codeIndex: tg.outputs.codeIndex,
  });
  const dataRng = new Rng(opts.seed * 7919 + 1);
  const bank = new MemoryBank(q.memoryBank, q.codeDim);
  const counts = new Uint32Array(q.codes);
  let state: ExtraState = {
    best: null,
    evals: [],
    bankSize: 0,
    bankCursor: 0,
    bank: '',
    counts: '',
    codebookInitialised: false,
  };
  const extra = (): ExtraState => ({
    ...state,
    bankSize: bank.size,
    bankCursor: bank.cursor,
    bank: encodeF32(bank.data.subarray(0, bank.size * bank.dim)),
    counts: encodeF32(counts),
  });
  let resumedFrom: number | null = null;
  const augment = opts.augment ?? NO_EXTRA_AUGMENT;
  if (opts.initFrom && !checkpointExists(ckpt)) {
    state.warmStart = warmStartTokenizer(ps, cfg, opts.initFrom);
    state.codebookInitialised = true;
  }
  if (checkpointExists(ckpt)) {
    const loaded = await loadCheckpoint(ckpt, {
      params: ps,
      optimizer: trainer.optimizer,
      rngs: { data: dataRng },
    });
    trainer.stepCount = loaded.step;
    resumedFrom = loaded.step;
    state = loaded.extra as ExtraState;
    decodeInto(state.bank, bank.data.subarray(0, state.bankSize * bank.dim));
    bank.size = state.bankSize;
    bank.cursor = state.bankCursor;
    decodeInto(state.counts, counts);
  }

  const evaluate = async (step: number): Promise<HeldOutFigures> => {
    const errs: number[] = [];
    const idx: number[] = [];
    const evalRng = new Rng(opts.seed + 104729); // the same rays at every evaluation
    const n = Math.min(opts.evalFrames, held.frames.length);
    for (let k = 0; k < n; k++) {
      const f = held.frames[Math.floor((k * held.frames.length) / n)];
      const frame = await f.log.readFrame(f.index);
      const ex = trainingFeeds(
        { ...cfg, render: { ...cfg.render, raysPerFrame: opts.evalRays } },
        sensorPoints(frame.points, f.origin),
        evalRng,
        state.codebookInitialised,
        `${f.log.dir} frame ${f.index}`,
        f.lasers,
      );
      const out = await evalSession.run(ex.feeds);
      const depth = out.depth.data as Float32Array;
      for (let r = 0; r < depth.length; r++) errs.push(Math.abs(depth[r] - ex.rays.depthM[r]));
      for (const v of out.codeIndex.data as BigInt64Array) idx.push(Number(v));
    }
    errs.sort((a, b) => a - b);
    const usage = codeUsage(idx, q.codes);
    return {
      step,
      depthL1MeanM: errs.reduce((a, b) => a + b, 0) / Math.max(1, errs.length),
      depthL1MedianM: errs.length ? errs[Math.floor(errs.length / 2)] : NaN,
      within1m: errs.filter((e) => e <= 1).length / Math.max(1, errs.length),
      codesUsed: usage.used,
      perplexity: usage.perplexity,
    };
  };

  const training = () => ({
    logs: opts.logs,
    evalLogs: opts.evalLogs,
    steps: opts.steps,
    lr: opts.lr,
    seed: opts.seed,
    frames: train.frames.length,
    augment,
    laserRays: !!opts.laserRays,
    warmStart: state.warmStart ?? null,
    best: state.best,
  });

  const bar = opts.progress ? createProgress('train-tokenizer', opts.steps, { unit: 'steps' }) : null;
  bar?.resume(trainer.stepCount);
  const window: Record<string, number[]> = { loss: [], depthL1: [], perplexity: [] };
  let ranThisCall = 0;
  // Each step's sweep, augmentation and rays come from a generator of its own (seed, step), so the next
  // example can be prepared while the current step runs and a resumed run still sees the same data.
  const exampleFor = async (step: number): Promise<TrainingExample> => {
    const rng = new Rng((opts.seed * 100003 + step * 7 + 11) >>> 0);
    const f = train.frames[rng.int(train.frames.length)];
    const frame = await f.log.readFrame(f.index);
    const pts = dropBeams(
      sensorPoints(frame.points, f.origin, randomAugment(rng, augment)),
      rng,
      augment.beamDropout,
    );
    const vqOn = step >= q.warmupSteps || !!state.warmStart;
    return trainingFeeds(cfg, pts, rng, vqOn, `${f.log.dir} frame ${f.index}`, f.lasers);
  };
  let next: TrainingExample | null = null;
  try {
    while (trainer.stepCount < opts.steps) {
      if (opts.stopAfter !== undefined && ranThisCall >= opts.stopAfter) break;
      const step = trainer.stepCount;
      if (step >= q.warmupSteps && !state.codebookInitialised) {
        // End of the autoencoder warm-up: start the codes where the encoder's vectors are.
        const kRng = new Rng(opts.seed + 15485863);
        ps.get(tg.net.codebook.name).data.set(kmeansCodebook(bank, q.codes, 10, kRng));
        state.codebookInitialised = true;
        counts.fill(0);
      }
      const ex = next ?? (await exampleFor(step));
      const running = trainer.step(ex.feeds);
      next = step + 1 < opts.steps ? await exampleFor(step + 1) : null;
      const r = await running;
      ranThisCall++;
      const done = trainer.stepCount;
      const index = r.outputs.codeIndex.data as BigInt64Array;
      for (const v of index) counts[Number(v)]++;
      bank.add(r.outputs.zNorm.data as Float32Array, 64, dataRng);
      const usage = codeUsage(index, q.codes);
      const depthL1 = Number((r.outputs.depthL1 as ort.Tensor).data[0]);
      window.loss.push(r.loss);
      window.depthL1.push(depthL1);
      window.perplexity.push(usage.perplexity);
      if (state.codebookInitialised && done % q.reinitEvery === 0) {
        const revived = reinitDeadCodes(
          ps.get(tg.net.codebook.name).data as Float32Array,
          counts,
          bank,
          dataRng,
        );
        const used = q.codes - revived;
        fs.appendFileSync(logFile, JSON.stringify({ step: done, codesUsedWindow: used, revived }) + '\n');
        counts.fill(0);
      }
      bar?.tick(
        1,
        `loss ${r.loss.toFixed(3)} depth ${depthL1.toFixed(2)} m ppl ${usage.perplexity.toFixed(0)}`,
      );
      if (done % 10 === 0) {
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
        fs.appendFileSync(
          logFile,
          JSON.stringify({
            step: done,
            loss: mean(window.loss),
            depthL1M: mean(window.depthL1),
            perplexity: mean(window.perplexity),
            lr: r.lr,
          }) + '\n',
        );
        for (const k of Object.keys(window)) window[k] = [];
      }
      const last = done === opts.steps;
      if (held.frames.length && (done % opts.evalEvery === 0 || last)) {
        const fig = await evaluate(done);
        state.evals.push(fig);
        fs.appendFileSync(logFile, JSON.stringify({ eval: fig }) + '\n');
        // Only a quantised model can be shipped: warm-up evaluations are logged, never chosen.
        if (state.codebookInitialised && (!state.best || fig.depthL1MeanM < state.best.depthL1MeanM)) {
          state.best = fig;
          await exportTokenizer(tg.net, modelDir, training());
        }
      } else if (!held.frames.length && last) {
        await exportTokenizer(tg.net, modelDir, training());
      }
      if (done % opts.checkpointEvery === 0 || last) {
        await saveCheckpoint(ckpt, {
          step: done,
          params: ps,
          optimizer: trainer.optimizer,
          rngs: { data: dataRng },
          extra: extra(),
        });
      }
    }
  } finally {
    bar?.stop();
    await trainer.dispose();
    await evalSession.dispose();
    for (const r of [...train.readers, ...held.readers]) await r.close();
  }
  await writeFileAtomic(
    path.join(opts.outDir, 'summary.json'),
    JSON.stringify({ ...training(), evals: state.evals }, null, 2),
  );
  return {
    steps: trainer.stepCount,
    resumedFrom,
    evals: state.evals,
    best: state.best,
    modelDir,
    seconds: (Date.now() - started) / 1000,
  };
}
