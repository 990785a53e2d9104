// Training the forecaster by Copilot4D's discrete diffusion on cached token grids: objective mix, held-out
// forecasts sampled every few hundred steps to choose the shipped model, checkpoints that resume exactly.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic.ts';
import { InputError } from '../core/errors.ts';
import { checkpointExists, loadCheckpoint, saveCheckpoint } from '../core/nn/checkpoint.ts';
import { GraphSession } from '../core/nn/graphSession.ts';
import { ParamStore } from '../core/nn/params.ts';
import { warmupCosine } from '../core/nn/schedules.ts';
import { createProgress } from '../core/progress.ts';
import { Rng } from '../core/rng.ts';
import { lossFeeds, poseFeatures, trainingWindow, windowFeeds } from './diffusionBatch.ts';
import type { ForecasterConfig } from './forecastConfig.ts';
import { buildForecasterGraph, buildInferenceGraph, createForecasterTrainer } from './forecasterGraph.ts';
import { exportForecaster } from './forecasterModel.ts';
import type { LogTokens } from './forecastTokens.ts';
import { drawObjective } from './maskSchedule.ts';
import { sampleFuture } from './sampling.ts';
import { makeDirs } from '../core/dirs.ts';

export interface TrainForecasterOptions {
  train: readonly LogTokens[];
  /** Held-out logs: the shipped model is the best on their sampled forecasts (none: the last is kept). */
  held: readonly LogTokens[];
  outDir: string;
  config: ForecasterConfig;
  codes: number;
  /** Raw frames between the model's frames (frameDtS × the logs' rate). */
  stride: number;
  steps: number;
  seed: number;
  evalEvery: number;
  /** Held-out windows forecast per evaluation, and the sampling steps used there. */
  evalWindows: number;
  evalSamplingSteps: number;
  checkpointEvery: number;
  progress: boolean;
  /** Facts about the data recorded in the model's metadata (logs, tokenizer). */
  facts: Record<string, unknown>;
  /** Stop after this many steps of this call (tests simulate a kill with it). */
  stopAfter?: number;
}

export const DEFAULT_TRAIN_FORECASTER = {
  steps: 1500,
  seed: 1,
  evalEvery: 100,
  evalWindows: 4,
  evalSamplingSteps: 4,
  checkpointEvery: 25,
};

/** Token accuracy of a forecast: all, on occupied columns and on tokens that differ from the prior. */
export interface TokenFigures {
  step: number;
  accuracy: number;
  occupiedAccuracy: number;
  changedAccuracy: number;
  /** The same for the ego-motion prior itself (copy-last as tokens). */
  priorOccupiedAccuracy: number;
}

interface Extra {
  best: TokenFigures | null;
  evals: TokenFigures[];
}

/** Every (log, t0) with the full window and its priors inside the log. */
function windowsOf(lts: readonly LogTokens[], cfg: ForecasterConfig, stride: number): [number, number][] {
  const out: [number, number][] = [];
  lts.forEach((lt, l) => {
    for (let t0 = (cfg.frames.past - 1) * stride; t0 + cfg.frames.future * stride < lt.frames; t0++) {
      let ok = true;
      for (let f = 1; f <= cfg.frames.future; f++) if (!lt.priors.has(`${t0},${t0 + f * stride}`)) ok = false;
      if (ok) out.push([l, t0]);
    }
  });
  return out;
}

export async function trainForecaster(opts: TrainForecasterOptions) {
  const started = Date.now();
  const cfg = opts.config;
  const T = cfg.frames.past + cfg.frames.future;
  const t = opts.train[0]?.tokensXY;
  const train = windowsOf(opts.train, cfg, opts.stride);
  if (train.length === 0) throw new InputError('--log', 'the training logs hold no full forecasting window');
  const held = windowsOf(opts.held, cfg, opts.stride);
  makeDirs(opts.outDir);
  const ckpt = path.join(opts.outDir, 'checkpoint.safetensors');
  const logFile = path.join(opts.outDir, 'train-log.jsonl');
  const modelFile = path.join(opts.outDir, 'worldmodel.onnx');

  const ps = new ParamStore({ seed: opts.seed });
  const fg = buildForecasterGraph(ps, cfg, opts.codes, t);
  const tr = cfg.train;
  const trainer = await createForecasterTrainer(
    fg,
    warmupCosine({ lr: tr.lr, warmupSteps: tr.warmupSteps, totalSteps: opts.steps, minLr: tr.lr / 20 }),
  );
  const ig = buildInferenceGraph(fg.net);
  const infer = await GraphSession.create(ig.graph, { logits: ig.logits });
  const dataRng = new Rng(opts.seed * 7919 + 3);
  let extra: Extra = { best: null, evals: [] };
  let resumedFrom: number | null = null;
  if (checkpointExists(ckpt)) {
    const loaded = await loadCheckpoint(ckpt, {
      params: ps,
      optimizer: trainer.optimizer,
      rngs: { data: dataRng },
    });
    trainer.stepCount = loaded.step;
    resumedFrom = loaded.step;
    extra = loaded.extra as Extra;
  }

  // Held-out forecasts: the same windows, priors and noise at every evaluation.
  const evaluate = async (step: number): Promise<TokenFigures> => {
    const rng = new Rng(opts.seed + 104729);
    const n = Math.min(opts.evalWindows, held.length);
    const c = { all: 0, ok: 0, occ: 0, occOk: 0, chg: 0, chgOk: 0, priorOk: 0 };
    const G = t * t;
    for (let k = 0; k < n; k++) {
      const [l, t0] = held[Math.floor(((k + 0.5) * held.length) / n)];
      const lt = opts.held[l];
      const frames: number[] = [];
      for (let i = -(cfg.frames.past - 1); i <= cfg.frames.future; i++) frames.push(t0 + i * opts.stride);
      const fut = frames.slice(cfg.frames.past);
      const priors = fut.map((f) => lt.priors.get(`${t0},${f}`) ?? null);
      const pred = await sampleFuture(
        async (feeds) => (await infer.run(feeds)).logits.data as Float32Array,
        {
          cfg,
          codes: opts.codes,
          tokensXY: t,
          past: frames.slice(0, cfg.frames.past).map((f) => lt.tokens.subarray(f * G, (f + 1) * G)),
          priors,
          poses: frames.map((f) => poseFeatures(lt.poses, t0, f)),
        },
        { ...cfg.sampling, steps: opts.evalSamplingSteps },
        rng,
      );
      fut.forEach((f, j) => {
        const truth = lt.tokens.subarray(f * G, (f + 1) * G);
        const occ = lt.occupied.subarray(f * G, (f + 1) * G);
        const pr = priors[j];
        for (let i = 0; i < G; i++) {
          const ok = pred[j][i] === truth[i] ? 1 : 0;
          c.all++;
          c.ok += ok;
          if (occ[i]) {
            c.occ++;
            c.occOk += ok;
            c.priorOk += pr && pr[i] === truth[i] ? 1 : 0;
          }
          if (!pr || pr[i] !== truth[i]) {
            c.chg++;
            c.chgOk += ok;
          }
        }
      });
    }
    return {
      step,
      accuracy: c.ok / Math.max(1, c.all),
      occupiedAccuracy: c.occOk / Math.max(1, c.occ),
      changedAccuracy: c.chgOk / Math.max(1, c.chg),
      priorOccupiedAccuracy: c.priorOk / Math.max(1, c.occ),
    };
  };

  const facts = () => ({
    ...opts.facts,
    steps: opts.steps,
    seed: opts.seed,
    trainWindows: train.length,
    heldWindows: held.length,
    best: extra.best,
  });
  const bar = opts.progress ? createProgress('train-worldmodel', opts.steps, { unit: 'steps' }) : null;
  bar?.resume(trainer.stepCount);
  const win = { loss: [] as number[], acc: [] as number[], occ: [] as number[], chg: [] as number[] };
  let ran = 0;
  try {
    while (trainer.stepCount < opts.steps) {
      if (opts.stopAfter !== undefined && ran >= opts.stopAfter) break;
      const step = trainer.stepCount;
      // Each step's windows and corruption come from a generator of its own: a resumed run sees the same data.
      const rng = new Rng((opts.seed * 100003 + step * 7 + 11) >>> 0);
      const ws = Array.from({ length: tr.batch }, () => {
        const [l, t0] = train[rng.int(train.length)];
        return trainingWindow(
          cfg,
          opts.train[l],
          t0,
          opts.stride,
          opts.codes,
          drawObjective(rng, cfg.diffusion.mix),
          rng,
        );
      });
      const lf = lossFeeds(ws, T, tr.lossTokens, rng);
      const r = await trainer.step({ ...windowFeeds(ws, T, t), ...lf });
      ran++;
      // Accuracy over the scored tokens that the loss weighed (masked, noised or given), split as evaluated.
      const pred = r.outputs.prediction.data as BigInt64Array;
      const target = lf.positions as BigInt64Array;
      let n = 0;
      let ok = 0;
      for (let i = 0; i < pred.length; i++) {
        if ((lf.weights as Float32Array)[i] === 0) continue;
        n++;
        if (Number(pred[i]) === (lf.targets as Int32Array)[i]) ok++;
      }
      void target;
      win.loss.push(r.loss);
      win.acc.push(ok / Math.max(1, n));
      const done = trainer.stepCount;
      bar?.tick(1, `loss ${r.loss.toFixed(3)} acc ${(ok / Math.max(1, n)).toFixed(3)}`);
      if (done % 10 === 0) {
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
        const line = {
          step: done,
          loss: mean(win.loss),
          scoredAccuracy: mean(win.acc),
          lr: r.lr,
          s: (Date.now() - started) / 1000,
        };
        fs.appendFileSync(logFile, JSON.stringify(line) + '\n');
        win.loss = [];
        win.acc = [];
      }
      const last = done === opts.steps;
      if (held.length && (done % opts.evalEvery === 0 || last)) {
        const fig = await evaluate(done);
        extra.evals.push(fig);
        fs.appendFileSync(logFile, JSON.stringify({ eval: fig }) + '\n');
        if (!extra.best || fig.occupiedAccuracy > extra.best.occupiedAccuracy) {
          extra.best = fig;
          await exportForecaster(fg.net, modelFile, facts());
        }
      } else if (!held.length && last) await exportForecaster(fg.net, modelFile, facts());
      if (done % opts.checkpointEvery === 0 || last)
        await saveCheckpoint(ckpt, {
          step: done,
          params: ps,
          optimizer: trainer.optimizer,
          rngs: { data: dataRng },
          extra,
        });
    }
  } finally {
    bar?.stop();
    await trainer.dispose();
    await infer.dispose();
  }
  await writeFileAtomic(
    path.join(opts.outDir, 'summary.json'),
    JSON.stringify({ ...facts(), evals: extra.evals }, null, 2),
  );
  return {
    steps: trainer.stepCount,
    resumedFrom,
    evals: extra.evals,
    best: extra.best,
    modelFile,
    seconds: (Date.now() - started) / 1000,
  };
}
