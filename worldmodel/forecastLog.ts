// Forecasting a log's future sweeps: encode the past, sample the future token grids chunk by chunk
// (autoregressively to the horizon), decode and render them, and place the points in the start frame.
import type { LogReader } from '../datasets/logstore.ts';
import { createProgress } from '../core/progress.ts';
import { Rng } from '../core/rng.ts';
import { poseFeatures } from './diffusionBatch.ts';
import type { SamplingConfig } from './forecastConfig.ts';
import type { ForecastRecord } from './forecastFile.ts';
import { protocolOffsets, rayPoints, truthRays } from './forecastProtocol.ts';
import { egoPriorTokens, relativePose, requirePoses } from './forecastTokens.ts';
import type { Forecaster } from './forecasterModel.ts';
import type { Rays } from './rays.ts';
import { sampleFuture } from './sampling.ts';
import { sensorOrigin, sensorPoints } from './sweep.ts';
import type { Tokenizer } from './tokenizerModel.ts';
import { InputError } from '../core/errors.ts';
import { constantVelocityPose } from './evalForecast.ts';
import { aggregatedPast, residualGrid } from './residual.ts';
import { priorTokens } from './baselines/tokenizedPrior.ts';
import { rayTracePast } from './baselines/rayTracePast.ts';
import { changedColumns, countChanged, hybridDepth, type HybridRule } from './hybridRender.ts';
import type { SensorPoints } from './voxelize.ts';

export interface ForecastLogOptions {
  /** Observed frames (default: the model's). */
  past: number;
  horizonS: number;
  /** Raw frames between start frames. */
  startStride: number;
  sampling: SamplingConfig;
  seed: number;
  /** Render along every n-th true ray (1 = all); eval-forecast reads it from the file and scores the same. */
  rayStride?: number;
  /** Render and write every predicted frame ('all') or only the protocol's output sweeps ('protocol'). */
  write: 'all' | 'protocol';
  /** Only these start frames (default: every `startStride` from the first with enough past). */
  starts?: readonly number[];
  /**
   * A residual forecaster: each predicted token is kept only where the model gives it probability ≥
   * `threshold`, elsewhere the multi-sweep prior's token (the last `pastSweeps` observed sweeps, 0.2 s apart,
   * aggregated in that future frame and tokenized).
   */
  residual?: { threshold: number; pastSweeps: number };
  /**
   * The hybrid forecaster: the residual grids as above (at `hybrid.threshold`), rendered by the hybrid renderer —
   * the ray-trace of the aggregated past sweeps, the decoder only on rays meeting a changed column (hybridRender.ts).
   */
  hybrid?: HybridRule;
  progress?: boolean;
}

/** A 64-beam sensor's nominal rays (HDL-64E: +2° … −24.8°, 1024 columns) for frames with no sweep. */
export function nominalRays(): Rays {
  const beams = 64;
  const cols = 1024;
  const n = beams * cols;
  const r: Rays = {
    count: n,
    dirX: new Float32Array(n),
    dirY: new Float32Array(n),
    dirZ: new Float32Array(n),
    depthM: new Float32Array(n),
    pointIndex: new Int32Array(n),
  };
  for (let b = 0; b < beams; b++) {
    const el = ((2 - (26.8 * b) / (beams - 1)) * Math.PI) / 180;
    for (let c = 0; c < cols; c++) {
      const az = (2 * Math.PI * c) / cols;
      const k = b * cols + c;
      r.dirX[k] = Math.cos(el) * Math.cos(az);
      r.dirY[k] = Math.cos(el) * Math.sin(az);
      r.dirZ[k] = Math.sin(el);
      r.pointIndex[k] = k;
    }
  }
  return r;
}

/** Start frames of a log: the first with `past` frames behind it, then every `stride` while the horizon fits. */
export function forecastStarts(
  frames: number,
  step: number,
  past: number,
  horizonFrames: number,
  stride: number,
): number[] {
  const out: number[] = [];
  for (let t0 = (past - 1) * step; t0 + horizonFrames < frames; t0 += stride) out.push(t0);
  return out;
}

export async function forecastLog(
  log: LogReader,
  tok: Tokenizer,
  fc: Forecaster,
  o: ForecastLogOptions,
): Promise<ForecastRecord[]> {
  requirePoses(log);
  const cfg = fc.config;
  const { future } = cfg.frames;
  const past = cfg.frames.past;
  if (o.past !== past)
    throw new InputError('--past', `the model was trained with ${past} past frames, not ${o.past}`);
  const step = Math.round(cfg.frames.frameDtS * log.meta.rateHz);
  if (step < 1 || Math.abs(step - cfg.frames.frameDtS * log.meta.rateHz) > 1e-6)
    throw new InputError(log.dir, `a ${log.meta.rateHz} Hz log has no frames every ${cfg.frames.frameDtS} s`);
  const nFuture = Math.round(o.horizonS / cfg.frames.frameDtS);
  const horizonFrames = nFuture * step;
  const starts = o.starts ?? forecastStarts(log.frameCount, step, past, horizonFrames, o.startStride);
  if (starts.length === 0)
    throw new InputError(
      log.dir,
      `${log.frameCount} frames hold no start with ${past} past frames and ${o.horizonS} s ahead`,
    );
  const origin = sensorOrigin(log.meta);
  const G = fc.spec.tokensXY ** 2;
  const last = log.frameCount - 1;
  const extra = Math.ceil(nFuture / future) * future * step;
  const poses = new Float64Array(16 * (log.frameCount + extra));
  poses.set(log.poses.subarray(0, 16 * log.frameCount));
  for (let k = 1; k <= extra; k++) poses.set(constantVelocityPose(log.poses, last, k), 16 * (last + k));
  const own = new Map<number, Int32Array>();
  const ownTokens = async (f: number) => {
    if (!own.has(f))
      own.set(
        f,
        await tok.encode(sensorPoints((await log.readFrame(f)).points, origin), `${log.dir} frame ${f}`),
      );
    return own.get(f)!;
  };
  const sweeps = new Map<number, SensorPoints>();
  const rule = o.hybrid ?? o.residual;
  const records: ForecastRecord[] = [];
  const bar = o.progress ? createProgress('forecast', starts.length, { unit: 'forecasts' }) : null;
  const logits = (feeds: Parameters<Forecaster['logits']>[0]) => fc.logits(feeds);
  for (const t0 of starts) {
    const rng = new Rng((o.seed * 1000003 + t0) >>> 0);
    const start = (await log.readFrame(t0)).points;
    // Frame indices (raw) and token grids of the rollout: observed past, then predicted.
    const idx: number[] = [];
    const grids: Int32Array[] = [];
    // The multi-sweep prior of each predicted frame (residual and hybrid) and its aggregated points.
    const priorOf = new Map<number, Int32Array>();
    const aggOf = new Map<number, SensorPoints>();
    for (let k = -(past - 1); k <= 0; k++) {
      idx.push(t0 + k * step);
      grids.push(await ownTokens(t0 + k * step));
    }
    while (idx.length < past + nFuture) {
      const ref = idx[idx.length - 1];
      const ctx = idx.slice(-past);
      const fut = Array.from({ length: future }, (_, j) => ref + (j + 1) * step);
      // Future poses are given (the protocol's). A last chunk that reaches past the horizon may reach past
      // the log's end: those frames (never written) get the last motion repeated.
      const priors = await egoPriorTokens(tok, cfg.network.egoPrior, start, poses, t0, fut, origin, log.dir);
      const probs: Float32Array[] = [];
      const pred = await sampleFuture(
        logits,
        {
          cfg,
          codes: fc.spec.codes,
          tokensXY: fc.spec.tokensXY,
          past: grids.slice(-past),
          priors,
          poses: [...ctx, ...fut].map((f) => poseFeatures(poses, ref, f)),
          confidenceOut: rule ? probs : undefined,
          // The residual only asks whether a probability reaches its threshold.
          confidenceFloor: rule?.threshold,
        },
        o.sampling,
        rng,
      );
      // A last chunk's frames past the horizon are dropped below: they need no prior (an encode each).
      const kept = Math.min(future, past + nFuture - idx.length);
      if (rule)
        for (let j = 0; j < kept; j++) {
          const agg = await aggregatedPast(log, poses, t0, fut[j], rule.pastSweeps, sweeps);
          const prior = await priorTokens(tok, agg, `${log.dir} frames ≤ ${t0} placed in frame ${fut[j]}`);
          priorOf.set(fut[j], prior);
          aggOf.set(fut[j], agg);
          pred[j] = residualGrid(pred[j], probs[j], prior, rule.threshold);
        }
      for (let j = 0; j < kept; j++) {
        idx.push(fut[j]);
        grids.push(pred[j]);
        if (pred[j].length !== G) throw new Error('forecast: grid size mismatch');
      }
    }
    const scored = new Set([
      ...protocolOffsets('1s', log.meta.rateHz),
      ...protocolOffsets('3s', log.meta.rateHz),
    ]);
    for (let k = past; k < idx.length; k++) {
      const f = idx[k];
      if (o.write === 'protocol' && !scored.has(f - t0)) continue;
      const sweep = (await log.readFrame(f)).points;
      const along0 = truthRays(tok.config, sweep, origin, o.rayStride ?? 1);
      // Along the true sweep's rays (so L1 and AbsRel apply); a sweep with no return in the region gets the
      // sensor's nominal rays.
      const along = along0.count > 0 ? 'truth' : 'nominal';
      const rays = along === 'truth' ? along0 : nominalRays();
      let depth: Float32Array;
      if (o.hybrid) {
        const changed = changedColumns(grids[k], priorOf.get(f)!);
        const rt = rayTracePast(tok.config, aggOf.get(f)!, rays);
        const needDecoder = countChanged(changed) > 0 || o.hybrid.misses === 'decoder';
        const decoded = needDecoder ? await tok.render(await tok.decode(grids[k]), rays) : null;
        depth = hybridDepth(tok.config, rays, rt, decoded, changed, o.hybrid.misses);
      } else depth = await tok.render(await tok.decode(grids[k]), rays);
      records.push({
        startFrame: t0,
        targetFrame: f,
        horizonS: Number(((f - t0) / log.meta.rateHz).toFixed(3)),
        rays: along,
        points: rayPoints(rays, depth, origin, relativePose(poses, t0, f)),
      });
    }
    bar?.tick();
  }
  bar?.stop();
  return records;
}
