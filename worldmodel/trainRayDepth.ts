// Training the ray-depth head on logs with ego poses: every (start, protocol sweep) pair gives one sample per
// true ray (the future sweep is the label, no annotation); the last starts of each log choose the epoch.
import fs from 'node:fs';
import path from 'node:path';
import * as nn from '../core/nn/index.ts';
import { writeFileAtomic } from '../core/atomic.ts';
import type { LogReader } from '../datasets/logstore.ts';
import type { TokenizerConfig } from './config.ts';
import { forecastStarts } from './forecastLog.ts';
import { protocolOffsets, truthRays } from './forecastProtocol.ts';
import { requirePoses } from './forecastTokens.ts';
import { RAY_FEATURE_COUNT, PAST_RAY_FEATURES } from './pastRayFeatures.ts';
import { regionExitM } from './rays.ts';
import { rayDepthJob } from './rayDepthInputs.ts';
import { createRayDepthPool, type RayDepthPool } from './rayDepthPool.ts';
import { coreCount } from '../core/workers.ts';
import {
  DEFAULT_RAY_DEPTH_MODEL,
  RayDepthModel,
  type RayDepthModelConfig,
  type RayDepthOutputs,
  keepBelowDirZ,
  type RaySamples,
  rayDepth,
} from './rayDepthModel.ts';
import { sensorOrigin } from './sweep.ts';
import type { SensorPoints } from './voxelize.ts';

export interface RayDepthTrainConfig {
  /** Raw frames between start frames of a training log. */
  startStride: number;
  /** Every n-th true ray of a future sweep becomes a sample. */
  rayStride: number;
  /** Observed sweeps (0.2 s apart) the head sees. */
  pastSweeps: number;
  /** The last share of each log's starts chooses the epoch (never trained on). */
  validationShare: number;
  epochs: number;
  batch: number;
  seed: number;
  /** Each training ray of a real log (source other than 'synthetic') enters every epoch this many times. */
  realRepeat: number;
  /** Also choose a gate threshold for real sweeps on the real logs' validation rays alone (realKeepThresholdLogit). */
  realGate: boolean;
  model: Partial<RayDepthModelConfig>;
}

export const DEFAULT_RAY_DEPTH_TRAIN: RayDepthTrainConfig = {
  startStride: 2,
  rayStride: 16,
  pastSweeps: 3,
  validationShare: 0.2,
  epochs: 40,
  batch: 2048,
  seed: 1,
  realRepeat: 1,
  realGate: false,
  model: {},
};

/** Samples with what scoring them in metres needs: the baseline's depth, the true depth, the region exit. */
export interface TrainingRays extends RaySamples {
  reference: Float32Array;
  truth: Float32Array;
  exitM: Float32Array;
  /** The true ray's unit direction's z component (the sine of its elevation). */
  dirZ: Float32Array;
}

/** Samples of the given starts of a log (both horizons' protocol sweeps that fit). */
export async function rayDepthSamples(
  log: LogReader,
  cfg: TokenizerConfig,
  starts: readonly number[],
  c: Pick<RayDepthTrainConfig, 'rayStride' | 'pastSweeps'>,
  onPair?: () => void,
  pool?: RayDepthPool,
): Promise<TrainingRays> {
  requirePoses(log);
  const origin = sensorOrigin(log.meta);
  const offsets = [
    ...new Set([...protocolOffsets('1s', log.meta.rateHz), ...protocolOffsets('3s', log.meta.rateHz)]),
  ];
  const cache = new Map<number, SensorPoints>();
  const parts: TrainingRays[] = [];
  const inputsOf = pool ?? createRayDepthPool(cfg, 1);
  for (const t0 of starts) {
    // A start's sweeps go to the pool together (their inputs in parallel); samples keep their order.
    const pending = [];
    for (const d of offsets) {
      const f = t0 + d;
      if (f >= log.frameCount) continue;
      const rays = truthRays(cfg, (await log.readFrame(f)).points, origin, c.rayStride);
      const inputs = inputsOf.inputs(await rayDepthJob(log, t0, f, c.pastSweeps, rays, cache));
      // Awaited below in order; a rejection must not go unhandled meanwhile (or if a later read throws).
      inputs.catch(() => {});
      pending.push({ rays, inputs });
    }
    for (const { rays, inputs } of pending) {
      const { features, rt } = await inputs;
      const n = rays.count;
      const y = new Float32Array(n);
      const w = new Float32Array(n);
      const ref = new Float32Array(n);
      const exitM = new Float32Array(n);
      for (let k = 0; k < n; k++) {
        ref[k] = Math.max(rt.ground[k], 0.1);
        y[k] = Math.max(-3, Math.min(3, Math.log(rays.depthM[k] / ref[k])));
        w[k] = ref[k] / 10;
        exitM[k] = regionExitM(cfg, rays.dirX[k], rays.dirY[k], rays.dirZ[k]);
      }
      parts.push({
        count: n,
        x: features,
        y,
        weight: w,
        reference: ref,
        truth: rays.depthM.slice(),
        exitM,
        dirZ: rays.dirZ.slice(),
      });
      onPair?.();
    }
  }
  return concatRays(parts);
}

/** `n` samples, all zero. */
export function allocateTrainingRays(n: number): TrainingRays {
  return {
    count: n,
    x: new Float32Array(n * RAY_FEATURE_COUNT),
    y: new Float32Array(n),
    weight: new Float32Array(n),
    reference: new Float32Array(n),
    truth: new Float32Array(n),
    exitM: new Float32Array(n),
    dirZ: new Float32Array(n),
  };
}

/** The samples of `parts` one after another, in one set. */
export function concatRays(parts: readonly TrainingRays[]): TrainingRays {
  const F = RAY_FEATURE_COUNT;
  const out = allocateTrainingRays(parts.reduce((s, p) => s + p.count, 0));
  let o = 0;
  for (const p of parts) {
    out.x.set(p.x, o * F);
    out.y.set(p.y, o);
    out.weight.set(p.weight, o);
    out.reference.set(p.reference, o);
    out.truth.set(p.truth, o);
    out.exitM.set(p.exitM, o);
    out.dirZ.set(p.dirZ, o);
    o += p.count;
  }
  return out;
}

/** Mean and median |depth error| (m) over the samples. */
export interface DepthErrors {
  mean: number;
  median: number;
}

/** Mean and median of per-ray |depth error|s. */
export function errorsOf(err: Float64Array): DepthErrors {
  let sum = 0;
  for (const e of err) sum += e;
  const sorted = err.slice().sort();
  const n = sorted.length;
  const median = n === 0 ? 0 : n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return { mean: sum / Math.max(1, n), median };
}

/** The ray-trace baseline's depth errors on `s`. */
export function baselineErrors(s: TrainingRays): DepthErrors {
  return errorsOf(Float64Array.from(s.truth, (t, k) => Math.abs(s.reference[k] - t)));
}

/**
 * The head's |depth error| per ray of `s` with the gate at `keepThresholdLogit` (Infinity: never keeps), the dead
 * zone `keepLogRatioBelow` and the reference kept below `keepBelowElevationDeg` (−90: nowhere).
 */
export function headRayErrors(
  cfg: TokenizerConfig,
  s: TrainingRays,
  out: RayDepthOutputs,
  keepThresholdLogit: number,
  keepLogRatioBelow = 0,
  keepBelowElevationDeg = -90,
): Float64Array {
  const min = cfg.render.minRangeM;
  const belowDirZ = keepBelowDirZ(keepBelowElevationDeg);
  return Float64Array.from(s.truth, (t, k) =>
    Math.abs(
      (s.dirZ[k] < belowDirZ
        ? s.reference[k]
        : rayDepth(
            min,
            s.exitM[k],
            s.reference[k],
            out.logRatio[k],
            out.keepLogit[k],
            keepThresholdLogit,
            keepLogRatioBelow,
          )) - t,
    ),
  );
}

/** The head's depth errors on `s` with the gate at `keepThresholdLogit` (Infinity: never keeps). */
export function headErrors(
  cfg: TokenizerConfig,
  s: TrainingRays,
  out: RayDepthOutputs,
  keepThresholdLogit: number,
): DepthErrors {
  return errorsOf(headRayErrors(cfg, s, out, keepThresholdLogit));
}

/** Gate thresholds tried on the validation starts (logits; Infinity: the gate never keeps). */
export const KEEP_THRESHOLDS = [Infinity, 4, 3, 2, 1.5, 1, 0.5, 0, -0.5, -1, -2];

/**
 * The gate threshold: the least mean error among those whose median error is no worse than the baseline's
 * (the gate exists to keep the baseline's exact depths), else the least median error.
 */
export function chooseKeepThreshold(
  cfg: TokenizerConfig,
  s: TrainingRays,
  out: RayDepthOutputs,
): { threshold: number; table: { threshold: number; mean: number; median: number }[] } {
  const base = baselineErrors(s);
  const table = KEEP_THRESHOLDS.map((threshold) => ({ threshold, ...headErrors(cfg, s, out, threshold) }));
  const ok = table.filter((r) => r.median <= base.median);
  const pick = ok.length
    ? ok.reduce((a, b) => (b.mean < a.mean ? b : a))
    : table.reduce((a, b) => (b.median < a.median ? b : a));
  return { threshold: pick.threshold, table };
}

/**
 * The gate threshold for real sweeps: the trainer's rule (chooseKeepThreshold) on the validation rays of the real
 * logs alone (source other than 'synthetic'); null when every log is synthetic. Simulated beams' range noise is
 * drawn afresh each sweep, a real beam's error repeats on the same surface, so the head's corrections pay on the
 * synthetic rays that dominate the pooled set where the past points as they are win on real ones.
 */
export async function chooseRealKeepThreshold(
  cfg: TokenizerConfig,
  parts: readonly { source: string | undefined; rays: TrainingRays }[],
  predict: (x: Float32Array, n: number) => Promise<RayDepthOutputs>,
): Promise<{
  threshold: number;
  table: { threshold: number; mean: number; median: number }[];
  head: DepthErrors;
  rayTrace: DepthErrors;
  rays: number;
} | null> {
  const real = parts.filter((p) => p.source !== 'synthetic').map((p) => p.rays);
  if (real.length === 0) return null;
  const rays = concatRays(real);
  const out = await predict(rays.x, rays.count);
  const gate = chooseKeepThreshold(cfg, rays, out);
  return {
    ...gate,
    head: headErrors(cfg, rays, out, gate.threshold),
    rayTrace: baselineErrors(rays),
    rays: rays.count,
  };
}

/** A gate threshold as JSON holds it (no Infinity: a gate that never keeps gets a logit no head reaches). */
export function thresholdForJson(threshold: number): number {
  return Number.isFinite(threshold) ? threshold : 1e9;
}

/** A gate table as a card records it ('never' for the gate that never keeps). */
export function gateTableForJson(
  table: readonly { threshold: number; mean: number; median: number }[],
): { threshold: number | 'never'; mean: number; median: number }[] {
  return table.map((r) => ({ ...r, threshold: Number.isFinite(r.threshold) ? r.threshold : 'never' }));
}

/**
 * Dead zones tried for real sweeps (|log ratio| below which the reference is kept; 0: none). Up to 0.5: on KITTI
 * 0048's validation rays the median still fell at 0.05 and reached the ray-trace's only at 0.2.
 */
export const KEEP_LOG_RATIO_BELOW = [
  0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5,
];

/**
 * The dead zone for real sweeps, with the gate at `keepThresholdLogit`: the least median error on `s` among the
 * zones whose mean error is no worse than without one. The head's gain on real sweeps is in the mean (the rays it
 * moves far); the zone buys back the median where the head only nudges the reference, never at the mean's cost.
 */
export function chooseKeepLogRatioBelow(
  cfg: TokenizerConfig,
  s: TrainingRays,
  out: RayDepthOutputs,
  keepThresholdLogit: number,
): { below: number; table: { below: number; mean: number; median: number }[] } {
  const table = KEEP_LOG_RATIO_BELOW.map((below) => ({
    below,
    ...errorsOf(headRayErrors(cfg, s, out, keepThresholdLogit, below)),
  }));
  const none = table[0];
  const pick = table.filter((r) => r.mean <= none.mean).reduce((a, b) => (b.median < a.median ? b : a));
  return { below: pick.below, table };
}

/** Elevations tried for real sweeps (degrees; a ray below keeps the reference; −90: none). */
export const KEEP_BELOW_ELEVATION_DEG = [-90, -30, -25, -20, -17.5, -15, -12.5, -10, -8, -6, -4, -2, 0];

/**
 * The elevation below which real sweeps keep the reference, with the gate at `keepThresholdLogit` and the dead zone
 * `keepLogRatioBelow`: the dead zone's rule (the least median error on `s` among the elevations whose mean error is no
 * worse than with none). Where the head loses the median on real sweeps is the near ground; the rays it moves far,
 * where its mean gain lies, are level.
 */
export function chooseKeepBelowElevation(
  cfg: TokenizerConfig,
  s: TrainingRays,
  out: RayDepthOutputs,
  keepThresholdLogit: number,
  keepLogRatioBelow = 0,
): { belowDeg: number; table: { belowDeg: number; mean: number; median: number }[] } {
  const table = KEEP_BELOW_ELEVATION_DEG.map((belowDeg) => ({
    belowDeg,
    ...errorsOf(headRayErrors(cfg, s, out, keepThresholdLogit, keepLogRatioBelow, belowDeg)),
  }));
  const none = table[0];
  const pick = table.filter((r) => r.mean <= none.mean).reduce((a, b) => (b.median < a.median ? b : a));
  return { belowDeg: pick.belowDeg, table };
}

export interface RayDepthTrainInput {
  logs: readonly { name: string; log: LogReader }[];
  cfg: TokenizerConfig;
  /** Run folder: checkpoint (resumed), raydepth.onnx, card.json. */
  out: string;
  /** Facts recorded in the card (command, folds). */
  data: Record<string, unknown>;
  onProgress?: (what: string, done: number, total: number, status?: string) => void;
  /** Threads computing the samples' inputs (≤ 1: this one). Default: every core. */
  workers?: number;
}

export interface RayDepthTrainResult {
  samples: { train: number; validation: number };
  bestEpoch: number;
  keepThresholdLogit: number;
  validation: { model: DepthErrors; baseline: DepthErrors };
  curve: { epoch: number; trainLoss: number; validationL1: number }[];
  files: string[];
}

const CHECKPOINT = 'checkpoint.safetensors';

export async function trainRayDepth(
  input: RayDepthTrainInput,
  over: Partial<RayDepthTrainConfig> = {},
): Promise<RayDepthTrainResult> {
  const c = { ...DEFAULT_RAY_DEPTH_TRAIN, ...over };
  fs.mkdirSync(input.out, { recursive: true });
  const pool = createRayDepthPool(input.cfg, input.workers ?? coreCount());
  const trainParts: TrainingRays[] = [];
  const valParts: TrainingRays[] = [];
  const split: Record<string, { train: number[]; validation: number[] }> = {};
  const step = (log: LogReader) => Math.max(1, Math.round(0.2 * log.meta.rateHz));
  try {
    for (const { name, log } of input.logs) {
      // Starts with the 1 s horizon ahead; the 3 s sweeps are added where they fit.
      const starts = forecastStarts(
        log.frameCount,
        step(log),
        c.pastSweeps,
        protocolOffsets('1s', log.meta.rateHz).at(-1)!,
        c.startStride,
      );
      if (starts.length < 2)
        throw new Error(
          `train-ray-depth: ${log.dir} holds ${starts.length} start(s); need 2 (one to choose the epoch)`,
        );
      const nVal = Math.max(1, Math.round(starts.length * c.validationShare));
      const train = starts.slice(0, starts.length - nVal);
      const validation = starts.slice(starts.length - nVal);
      split[name] = { train, validation };
      let done = 0;
      const total = starts.length * 9;
      const tick = () => input.onProgress?.(`samples ${name}`, ++done, total);
      trainParts.push(await rayDepthSamples(log, input.cfg, train, c, tick, pool));
      valParts.push(await rayDepthSamples(log, input.cfg, validation, c, tick, pool));
    }
  } finally {
    await pool.close();
  }
  const train = concatRays(trainParts);
  const val = concatRays(valParts);
  const model = await RayDepthModel.create({ ...DEFAULT_RAY_DEPTH_MODEL, seed: c.seed, ...c.model });
  const rng = new nn.Rng(c.seed);
  const ckpt = path.join(input.out, CHECKPOINT);
  const baseline = baselineErrors(val).mean;
  let startEpoch = 0;
  let best = { epoch: 0, l1: baseline, params: null as Map<string, Float32Array> | null };
  let curve: RayDepthTrainResult['curve'] = [];
  if (fs.existsSync(ckpt)) {
    const r = await nn.loadCheckpoint(ckpt, {
      params: model.params,
      optimizer: model.optimizer,
      rngs: { data: rng },
    });
    const extra = r.extra as { curve: typeof curve; bestEpoch: number; bestL1: number };
    startEpoch = r.step;
    curve = extra.curve;
    best = { epoch: extra.bestEpoch, l1: extra.bestL1, params: r.best };
  }
  // Every training ray once, and the real logs' rays realRepeat − 1 times more.
  const copies = trainParts.map((_, k) =>
    input.logs[k].log.meta.source === 'synthetic' ? 1 : Math.max(1, Math.round(c.realRepeat)),
  );
  const order = new Int32Array(trainParts.reduce((n, part, k) => n + copies[k] * part.count, 0));
  for (let k = 0, first = 0, o = 0; k < trainParts.length; first += trainParts[k].count, k++)
    for (let r = 0; r < copies[k]; r++) for (let i = 0; i < trainParts[k].count; i++) order[o++] = first + i;
  for (let epoch = startEpoch + 1; epoch <= c.epochs; epoch++) {
    rng.shuffle(order);
    let sum = 0;
    let steps = 0;
    for (let s = 0; s + c.batch <= order.length || (steps === 0 && s < order.length); s += c.batch) {
      sum += await model.step(train, order.subarray(s, Math.min(order.length, s + c.batch)));
      steps++;
    }
    // The epoch is chosen on the ungated head's mean error; the gate's threshold after.
    const l1 = headErrors(input.cfg, val, await model.predict(val.x, val.count), Infinity).mean;
    curve.push({ epoch, trainLoss: sum / steps, validationL1: l1 });
    // Epoch 0 is the baseline itself (the head's zero): a head that never beats it is not kept.
    if (l1 < best.l1) best = { epoch, l1, params: model.snapshot() };
    input.onProgress?.(
      'epochs',
      epoch,
      c.epochs,
      `val L1 ${l1.toFixed(3)} m (baseline ${baseline.toFixed(3)}, best ${best.epoch})`,
    );
    await nn.saveCheckpoint(ckpt, {
      step: epoch,
      params: model.params,
      optimizer: model.optimizer,
      rngs: { data: rng },
      extra: { curve, bestEpoch: best.epoch, bestL1: best.l1 },
      best: best.params,
    });
  }
  if (!best.params)
    throw new Error(
      `train-ray-depth: no epoch beat the ray-trace baseline on the validation starts (${baseline.toFixed(3)} m); nothing written`,
    );
  model.restore(best.params);
  const outputs = await model.predict(val.x, val.count);
  const gate = chooseKeepThreshold(input.cfg, val, outputs);
  const validation = {
    model: headErrors(input.cfg, val, outputs, gate.threshold),
    baseline: baselineErrors(val),
  };
  const realGate = !c.realGate
    ? null
    : await chooseRealKeepThreshold(
        input.cfg,
        valParts.map((rays, k) => ({ source: input.logs[k].log.meta.source, rays })),
        (x, n) => model.predict(x, n),
      );
  const card = {
    features: RAY_FEATURE_COUNT,
    pastSweeps: c.pastSweeps,
    keepThresholdLogit: thresholdForJson(gate.threshold),
    gateTable: gateTableForJson(gate.table),
    ...(realGate && {
      realKeepThresholdLogit: thresholdForJson(realGate.threshold),
      realGateTable: gateTableForJson(realGate.table),
    }),
    featureWindow: PAST_RAY_FEATURES,
    grid: input.cfg.grid,
    minRangeM: input.cfg.render.minRangeM,
    ...input.data,
    split,
    config: c,
    samples: { train: train.count, validation: val.count, trainRowsPerEpoch: order.length },
    bestEpoch: best.epoch,
    validation: {
      headL1M: validation.model,
      rayTraceGroundL1M: validation.baseline,
      ...(realGate && {
        real: { rays: realGate.rays, headL1M: realGate.head, rayTraceGroundL1M: realGate.rayTrace },
      }),
    },
    curve,
  };
  const onnx = path.join(input.out, 'raydepth.onnx');
  const json = path.join(input.out, 'card.json');
  await writeFileAtomic(onnx, model.onnxBytes(card));
  await writeFileAtomic(json, `${JSON.stringify(card, null, 1)}\n`);
  await model.dispose();
  return {
    samples: { train: train.count, validation: val.count },
    bestEpoch: best.epoch,
    keepThresholdLogit: card.keepThresholdLogit,
    validation,
    curve,
    files: [onnx, json],
  };
}
