// A forecaster that cannot do much harm: the multi-sweep prior's token is kept unless the forecaster gives its
// own choice at least a threshold probability; the threshold is chosen on training logs by token accuracy.
import type { LogReader } from '../datasets/logstore.ts';
import { createProgress } from '../core/progress.ts';
import { Rng } from '../core/rng.ts';
import { aggregateSweeps, pastFrames } from './baselines/pastSweeps.ts';
import { priorTokens } from './baselines/tokenizedPrior.ts';
import { poseFeatures } from './diffusionBatch.ts';
import { removeEgo, truthRays } from './forecastProtocol.ts';
import { rayTracePast, type RayTraceDepths } from './baselines/rayTracePast.ts';
import type { Rays } from './rays.ts';
import { changedColumns, countChanged, hybridDepth, type HybridMisses } from './hybridRender.ts';
import { medianOf } from './chamfer.ts';
import type { TokenizerConfig } from './config.ts';
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
  /** The true sweep's rays (sensor frame, thinned) and the ray-trace of the aggregated past along them. */
  rays?: Rays;
  rt?: RayTraceDepths;
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

/** The observed sweeps up to `t0` (0.2 s apart, ego returns removed) aggregated in frame `target`, sensor-relative. */
export async function aggregatedPast(
  log: LogReader,
  poses: Float64Array,
  t0: number,
  target: number,
  pastSweeps: number,
  cache: Map<number, SensorPoints> = new Map(),
): Promise<SensorPoints> {
  const step = Math.max(1, Math.round(0.2 * log.meta.rateHz));
  const sources = [];
  for (const f of pastFrames(t0, step, pastSweeps)) {
    if (!cache.has(f)) cache.set(f, removeEgo((await log.readFrame(f)).points));
    sources.push({ points: cache.get(f)!, targetFromSource: relativePose(poses, target, f) });
  }
  return aggregateSweeps(sources, sensorOrigin(log.meta));
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
  return priorTokens(
    tok,
    await aggregatedPast(log, poses, t0, target, pastSweeps, cache),
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
  rayStride = 16,
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
      const raw = (await log.readFrame(fut[j])).points;
      const pts = sensorPoints(raw, origin);
      const agg = await aggregatedPast(log, poses, t0, fut[j], pastSweeps, cache);
      const rays = truthRays(tok.config, raw, origin, rayStride);
      out.push({
        pred: pred[j],
        prob: probs[j],
        prior: await priorTokens(tok, agg, `${log.dir} frames ≤ ${t0} placed in frame ${fut[j]}`),
        truth: await ownTokens(fut[j]),
        occupied: occupiedTokens(tok.config, pts),
        rays,
        rt: rayTracePast(tok.config, agg, rays),
      });
    }
    bar?.tick();
  }
  bar?.stop();
  return out;
}

/** One row of the depth fit: a threshold and miss rule, and the hybrid's depth error along the true rays. */
export interface HybridFitRow {
  threshold: number;
  misses: HybridMisses;
  /** Mean |depth error| over every scored ray of every frame (m), and its median. */
  l1: number;
  l1_median: number;
  /** Share of the token columns the forecaster changed (over the prior). */
  changed: number;
}

export interface HybridFit {
  threshold: number;
  misses: HybridMisses;
  l1: number;
  l1_median: number;
  table: HybridFitRow[];
  samples: number;
}

/**
 * The hybrid's threshold and miss rule with the smallest mean depth error along the true rays of the training
 * samples (a tie goes to the higher threshold, then to the ground: nearer the ray-trace). `render` decodes a grid
 * and renders it along rays (the tokenizer); it is called only where the decoder is needed.
 */
export async function chooseHybridRule(
  cfg: TokenizerConfig,
  samples: readonly ResidualSample[],
  render: (grid: Int32Array, rays: Rays) => Promise<Float32Array>,
  thresholds: readonly number[] = RESIDUAL_THRESHOLDS,
  misses: readonly HybridMisses[] = ['ground', 'decoder'],
): Promise<HybridFit> {
  const table: HybridFitRow[] = [];
  const errs = new Map<string, number[]>();
  const changedShare = new Map<number, number>();
  for (const s of samples) {
    const { rays, rt } = s;
    if (!rays || !rt) throw new Error('chooseHybridRule: a sample without its rays and ray-trace');
    const decodedBy = new Map<string, Float32Array>();
    for (const th of thresholds) {
      const grid = residualGrid(s.pred, s.prob, s.prior, th);
      const changed = changedColumns(grid, s.prior);
      const nChanged = countChanged(changed);
      changedShare.set(th, (changedShare.get(th) ?? 0) + nChanged / changed.length / samples.length);
      for (const m of misses) {
        let decoded: Float32Array | null = null;
        if (nChanged > 0 || m === 'decoder') {
          // The same residual grid (no change between thresholds) is decoded once.
          const key = nChanged === 0 ? 'prior' : `${th}`;
          if (!decodedBy.has(key)) decodedBy.set(key, await render(grid, rays));
          decoded = decodedBy.get(key)!;
        }
        const d = hybridDepth(cfg, rays, rt, decoded, changed, m);
        const key = `${th}|${m}`;
        if (!errs.has(key)) errs.set(key, []);
        const e = errs.get(key)!;
        for (let k = 0; k < rays.count; k++) e.push(Math.abs(d[k] - rays.depthM[k]));
      }
    }
  }
  for (const th of thresholds)
    for (const m of misses) {
      const e = errs.get(`${th}|${m}`) ?? [];
      table.push({
        threshold: th,
        misses: m,
        l1: e.length ? e.reduce((a, b) => a + b, 0) / e.length : NaN,
        l1_median: e.length ? medianOf(Float64Array.from(e)) : NaN,
        changed: changedShare.get(th) ?? 0,
      });
    }
  let best = table.find((r) => r.threshold === thresholds[thresholds.length - 1] && r.misses === misses[0])!;
  for (const r of table) {
    const better =
      r.l1 < best.l1 ||
      (r.l1 === best.l1 &&
        (r.threshold > best.threshold || (r.threshold === best.threshold && r.misses === 'ground')));
    if (better) best = r;
  }
  return {
    threshold: best.threshold,
    misses: best.misses,
    l1: best.l1,
    l1_median: best.l1_median,
    table,
    samples: samples.length,
  };
}
