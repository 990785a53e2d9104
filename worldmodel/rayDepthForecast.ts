// Forecasting a log's future sweeps with the learned ray-depth head: the observed sweeps placed in each future
// frame by the known poses, the ray-trace baseline over their union, the head's correction of its depth per ray.
import type { LogReader } from '../datasets/logstore.ts';
import { createProgress } from '../core/progress.ts';
import { InputError } from '../core/errors.ts';
import { coreCount } from '../core/workers.ts';
import type { ForecastRecord } from './forecastFile.ts';
import { type Horizon, protocolOffsets, rayPoints, truthRays } from './forecastProtocol.ts';
import { relativePose, requirePoses } from './forecastTokens.ts';
import type { TokenizerConfig } from './config.ts';
import { PAST_DT_S, rayDepthJob } from './rayDepthInputs.ts';
import { createRayDepthPool, type RayDepthPool } from './rayDepthPool.ts';
import {
  depthFromOutputs,
  keepBelowElevationFor,
  keepLogRatioBelowFor,
  keepThresholdFor,
  type RayDepthHead,
} from './rayDepthModel.ts';
import { sensorOrigin } from './sweep.ts';
import type { SensorPoints } from './voxelize.ts';

export interface RayDepthForecastOptions {
  /** Start frames (each needs its horizon inside the log). */
  starts: readonly number[];
  horizons: readonly Horizon[];
  rayStride: number;
  progress?: boolean;
  /** Threads computing the inputs (≤ 1: this one); a `pool` given is used instead. Default: every core. */
  workers?: number;
  pool?: RayDepthPool;
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
  const keepThreshold = keepThresholdFor(head.card, log.meta.source);
  const keepBelow = keepLogRatioBelowFor(head.card, log.meta.source);
  const keepBelowElevation = keepBelowElevationFor(head.card, log.meta.source);
  const pool = o.pool ?? createRayDepthPool(cfg, o.workers ?? coreCount());
  const cache = new Map<number, SensorPoints>();
  const records: ForecastRecord[] = [];
  const bar = o.progress
    ? createProgress('forecast', starts.length * offsets.length, { unit: 'sweeps' })
    : null;
  try {
    for (const t0 of starts) {
      // Every future frame of a start is handed to the pool before the first is awaited, so the workers
      // featurise them in parallel while the head runs on the ones done.
      const frames = [];
      for (const d of offsets) {
        const f = t0 + d;
        const rays = truthRays(cfg, (await log.readFrame(f)).points, origin, o.rayStride);
        const inputs = pool.inputs(await rayDepthJob(log, t0, f, head.card.pastSweeps, rays, cache));
        // Awaited below in order; a rejection must not go unhandled meanwhile (or if a later read throws).
        inputs.catch(() => {});
        frames.push({ d, f, rays, inputs });
      }
      for (const { d, f, rays, inputs } of frames) {
        const { features, rt } = await inputs;
        const out = await head.outputs(features, rays.count);
        const depth = depthFromOutputs(
          cfg,
          rays,
          rt.ground,
          out,
          keepThreshold,
          keepBelow,
          keepBelowElevation,
        );
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
  } finally {
    if (!o.pool) await pool.close();
  }
  bar?.stop();
  return records;
}
