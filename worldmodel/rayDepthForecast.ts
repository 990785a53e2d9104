// Forecasting a log's future sweeps with the learned ray-depth head: the observed sweeps placed in each future
// frame by the known poses, the ray-trace baseline over their union, the head's correction of its depth per ray.
import type { LogReader } from '../datasets/logstore.ts';
import { createProgress } from '../core/progress.ts';
import { InputError } from '../core/errors.ts';
import { aggregateSweeps, pastFrames } from './baselines/pastSweeps.ts';
import { groundHeightM, rayTracePast, type RayTraceDepths } from './baselines/rayTracePast.ts';
import type { TokenizerConfig } from './config.ts';
import type { ForecastRecord } from './forecastFile.ts';
import { type Horizon, protocolOffsets, rayPoints, removeEgo, truthRays } from './forecastProtocol.ts';
import { relativePose, requirePoses } from './forecastTokens.ts';
import { pastRayFeatures } from './pastRayFeatures.ts';
import { depthFromOutputs, type RayDepthHead } from './rayDepthModel.ts';
import type { Rays } from './rays.ts';
import { sensorOrigin } from './sweep.ts';
import type { SensorPoints } from './voxelize.ts';

/** Observed sweeps are 0.2 s apart, as every past-points baseline's. */
const PAST_DT_S = 0.2;

/** The head's inputs for the rays of frame `target` forecast from start `t0`, and the baseline they refer to. */
export interface RayDepthInputs {
  features: Float32Array;
  rt: RayTraceDepths;
}

/**
 * Features of `rays` in frame `target`: the `pastSweeps` observed sweeps up to `t0` placed there (each alone
 * and together), the ray-trace baseline over them. `cache` holds ego-removed sweeps by frame across calls.
 */
export async function rayDepthInputs(
  log: LogReader,
  cfg: TokenizerConfig,
  t0: number,
  target: number,
  pastSweeps: number,
  rays: Rays,
  cache: Map<number, SensorPoints>,
): Promise<RayDepthInputs> {
  const origin = sensorOrigin(log.meta);
  const step = Math.max(1, Math.round(PAST_DT_S * log.meta.rateHz));
  const sources = [];
  for (const f of pastFrames(t0, step, pastSweeps)) {
    if (!cache.has(f)) cache.set(f, removeEgo((await log.readFrame(f)).points));
    sources.push({ points: cache.get(f)!, targetFromSource: relativePose(log.poses, target, f) });
  }
  // Each sweep placed once; their union (the ray-trace's cloud) is the same points in the same order.
  const each = sources.map((s) => aggregateSweeps([s], origin));
  const agg = concatClouds(each);
  const rt = rayTracePast(cfg, agg, rays);
  const m = relativePose(log.poses, target, t0);
  const features = pastRayFeatures(
    cfg,
    each,
    rays,
    rt,
    groundHeightM(agg),
    (target - t0) / log.meta.rateHz,
    Math.hypot(m[3], m[7], m[11]),
  );
  return { features, rt };
}

function concatClouds(clouds: readonly SensorPoints[]): SensorPoints {
  let n = 0;
  for (const c of clouds) n += c.x.length;
  const out = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
  let o = 0;
  for (const c of clouds) {
    out.x.set(c.x, o);
    out.y.set(c.y, o);
    out.z.set(c.z, o);
    o += c.x.length;
  }
  return out;
}

export interface RayDepthForecastOptions {
  /** Start frames (each needs its horizon inside the log). */
  starts: readonly number[];
  horizons: readonly Horizon[];
  rayStride: number;
  progress?: boolean;
}

/** One record per (start, protocol sweep), rendered along the true rays, as `forecast` writes them. */
export async function forecastLogRayDepth(
  log: LogReader,
  cfg: TokenizerConfig,
  head: RayDepthHead,
  o: RayDepthForecastOptions,
): Promise<ForecastRecord[]> {
  requirePoses(log);
  const origin = sensorOrigin(log.meta);
  const offsets = [...new Set(o.horizons.flatMap((h) => protocolOffsets(h, log.meta.rateHz)))].sort(
    (a, b) => a - b,
  );
  const starts = o.starts.filter((s) => s + offsets[offsets.length - 1] < log.frameCount);
  if (starts.length === 0)
    throw new InputError(
      log.dir,
      `${log.frameCount} frames hold no start with ${o.horizons.join(' and ')} ahead`,
    );
  const cache = new Map<number, SensorPoints>();
  const records: ForecastRecord[] = [];
  const bar = o.progress
    ? createProgress('forecast', starts.length * offsets.length, { unit: 'sweeps' })
    : null;
  for (const t0 of starts) {
    for (const d of offsets) {
      const f = t0 + d;
      const rays = truthRays(cfg, (await log.readFrame(f)).points, origin, o.rayStride);
      const { features, rt } = await rayDepthInputs(log, cfg, t0, f, head.card.pastSweeps, rays, cache);
      const out = await head.outputs(features, rays.count);
      const depth = depthFromOutputs(cfg, rays, rt.ground, out, head.card.keepThresholdLogit);
      records.push({
        startFrame: t0,
        targetFrame: f,
        horizonS: Number((d / log.meta.rateHz).toFixed(3)),
        rays: 'truth',
        points: rayPoints(rays, depth, origin, relativePose(log.poses, t0, f)),
      });
      bar?.tick();
    }
    // Sweeps older than any later start's past are not read again.
    const step = Math.max(1, Math.round(PAST_DT_S * log.meta.rateHz));
    for (const k of cache.keys()) if (k < t0 - head.card.pastSweeps * step) cache.delete(k);
  }
  bar?.stop();
  return records;
}
