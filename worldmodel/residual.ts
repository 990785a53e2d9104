// A forecaster that cannot do much harm: the multi-sweep prior's token is kept unless the forecaster gives its
// own choice at least a threshold probability; the threshold is chosen on training logs by token accuracy.
import type { LogReader } from '../datasets/logstore.ts';
import { createProgress } from '../core/progress.ts';
import { Rng } from '../core/rng.ts';
import { aggregateSweeps, pastFrames } from './baselines/pastSweeps.ts';
import { priorTokens } from './baselines/tokenizedPrior.ts';
import { poseFeatures } from './diffusionBatch.ts';
import { removeEgo } from './forecastProtocol.ts';
import { egoPriorTokens, occupiedTokens, relativePose, requirePoses } from './forecastTokens.ts';
import type { Forecaster } from './forecasterModel.ts';
import { sampleFuture } from './sampling.ts';
import { sensorOrigin, sensorPoints } from './sweep.ts';
import type { Tokenizer } from './tokenizerModel.ts';
import type { SensorPoints } from './voxelize.ts';

/** Thresholds tried when fitting (probabilities; above 1 = always the prior, 0 = always the forecaster). */
export const RESIDUAL_THRESHOLDS = [
  0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01,
] as const;

/** The residual grid: the forecaster's token where its probability ≥ `threshold`, else the prior's. */
export function residualGrid(
  pred: Int32Array,
  prob: Float32Array,
  prior: Int32Array,
  threshold: number,
): Int32Array {
  const out = new Int32Array(pred.length);
  for (let i = 0; i < pred.length; i++) out[i] = prob[i] >= threshold ? pred[i] : prior[i];
  return out;
}

/** One future frame of a training window: the forecaster's choice and probability, the prior, the truth. */
export interface ResidualSample {
  pred: Int32Array;
  prob: Float32Array;
  prior: Int32Array;
  truth: Int32Array;
  /** 1 where the true sweep has a return in the token's column. */
  occupied: Uint8Array;
}

/** Token accuracy of the residual grid on the truth's occupied columns, pooled over the samples. */
export function residualAccuracy(samples: readonly ResidualSample[], threshold: number): number {
  let hit = 0;
  let n = 0;
  for (const s of samples) {
    const g = residualGrid(s.pred, s.prob, s.prior, threshold);
    for (let i = 0; i < g.length; i++) {
      if (!s.occupied[i]) continue;
      n++;
      if (g[i] === s.truth[i]) hit++;
    }
  }
  return n ? hit / n : NaN;
}

export interface ResidualFit {
  threshold: number;
  accuracy: number;
  /** Accuracy at every threshold tried; 1.01 is the prior alone, 0 the forecaster alone. */
  table: { threshold: number; accuracy: number }[];
  samples: number;
}

/** The threshold with the best accuracy (the higher threshold — nearer the prior — on a tie). */
export function chooseResidualThreshold(
  samples: readonly ResidualSample[],
  thresholds: readonly number[] = RESIDUAL_THRESHOLDS,
): ResidualFit {
  const table = thresholds.map((t) => ({ threshold: t, accuracy: residualAccuracy(samples, t) }));
  let best = table[table.length - 1];
  for (const r of table)
    if (r.accuracy > best.accuracy || (r.accuracy === best.accuracy && r.threshold > best.threshold))
      best = r;
  return { threshold: best.threshold, accuracy: best.accuracy, table, samples: samples.length };
}

/** The multi-sweep prior of frame `target`: the observed sweeps up to `t0` aggregated there and tokenized. */
export async function multiSweepPrior(
  log: LogReader,
  tok: Tokenizer,
  poses: Float64Array,
  t0: number,
  target: number,
  pastSweeps: number,
  cache: Map<number, SensorPoints> = new Map(),
): Promise<Int32Array> {
  const step = Math.max(1, Math.round(0.2 * log.meta.rateHz));
  const origin = sensorOrigin(log.meta);
  const sources = [];
  for (const f of pastFrames(t0, step, pastSweeps)) {
    if (!cache.has(f)) cache.set(f, removeEgo((await log.readFrame(f)).points));
    sources.push({ points: cache.get(f)!, targetFromSource: relativePose(poses, target, f) });
  }
  return priorTokens(
    tok,
    aggregateSweeps(sources, origin),
    `${log.dir} frames ≤ ${t0} placed in frame ${target}`,
  );
}

/**
 * Samples for fitting the threshold: at each start, the forecaster's one-shot (K = 1) first chunk with its
 * probabilities, the multi-sweep prior and the truth (each future sweep encoded in its own frame).
 */
export async function residualSamples(
  log: LogReader,
  tok: Tokenizer,
  fc: Forecaster,
  starts: readonly number[],
  pastSweeps: number,
  progress = false,
): Promise<ResidualSample[]> {
  requirePoses(log);
  const cfg = fc.config;
  const { past, future } = cfg.frames;
  const step = Math.round(cfg.frames.frameDtS * log.meta.rateHz);
  const origin = sensorOrigin(log.meta);
  const poses = log.poses;
  const own = new Map<number, Int32Array>();
  const ownTokens = async (f: number) => {
    if (!own.has(f))
      own.set(
        f,
        await tok.encode(sensorPoints((await log.readFrame(f)).points, origin), `${log.dir} frame ${f}`),
      );
    return own.get(f)!;
  };
  const cache = new Map<number, SensorPoints>();
  const out: ResidualSample[] = [];
  const bar = progress ? createProgress(`residual ${log.meta.logId}`, starts.length) : null;
  for (const t0 of starts) {
    const ctxFrames = Array.from({ length: past }, (_, k) => t0 - (past - 1 - k) * step);
    const fut = Array.from({ length: future }, (_, j) => t0 + (j + 1) * step);
    if (ctxFrames[0] < 0 || fut[future - 1] >= log.frameCount) continue;
    const start = (await log.readFrame(t0)).points;
    const priors = await egoPriorTokens(tok, cfg.network.egoPrior, start, poses, t0, fut, origin, log.dir);
    const probs: Float32Array[] = [];
    const pred = await sampleFuture(
      (feeds) => fc.logits(feeds),
      {
        cfg,
        codes: fc.spec.codes,
        tokensXY: fc.spec.tokensXY,
        past: await Promise.all(ctxFrames.map(ownTokens)),
        priors,
        poses: [...ctxFrames, ...fut].map((f) => poseFeatures(poses, t0, f)),
        confidenceOut: probs,
      },
      { ...cfg.sampling, steps: 1 },
      new Rng(t0 + 1),
    );
    for (let j = 0; j < future; j++) {
      const pts = sensorPoints((await log.readFrame(fut[j])).points, origin);
      out.push({
        pred: pred[j],
        prob: probs[j],
        prior: await multiSweepPrior(log, tok, poses, t0, fut[j], pastSweeps, cache),
        truth: await ownTokens(fut[j]),
        occupied: occupiedTokens(tok.config, pts),
      });
    }
    bar?.tick();
  }
  bar?.stop();
  return out;
}
