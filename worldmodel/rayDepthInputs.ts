// The learned ray-depth head's inputs for one future frame: the observed sweeps placed there by the known poses
// (each alone and together), the ray-trace baseline over their union, and the per-ray features (pastRayFeatures.ts).
import type { LogReader } from '../datasets/logstore.ts';
import { aggregateSweeps, pastFrames, type PlacedSource } from './baselines/pastSweeps.ts';
import { rayTracePast, type RayTraceDepths } from './baselines/rayTracePast.ts';
import type { TokenizerConfig } from './config.ts';
import { removeEgo } from './forecastProtocol.ts';
import { relativePose } from './forecastTokens.ts';
import { PAST_RAY_FEATURES, pastRayFeatures, rayWindows, sweepRayStats } from './pastRayFeatures.ts';
import type { Rays } from './rays.ts';
import { sensorOrigin } from './sweep.ts';
import type { SensorPoints } from './voxelize.ts';

/** Observed sweeps are 0.2 s apart, as every past-points baseline's. */
export const PAST_DT_S = 0.2;

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
  return rayDepthInputsOf(cfg, await rayDepthJob(log, t0, target, pastSweeps, rays, cache));
}

/** Everything `rayDepthInputsOf` needs, with the log already read: what a worker thread receives. */
export interface RayDepthJob {
  /** The observed sweeps, ego removed, each in its own frame with its pose in the target frame (newest first). */
  sources: PlacedSource[];
  origin: [number, number, number];
  rays: Rays;
  horizonS: number;
  egoShiftM: number;
}

/** Reads the past sweeps of (t0, target) through `cache` and poses them in the target frame. */
export async function rayDepthJob(
  log: LogReader,
  t0: number,
  target: number,
  pastSweeps: number,
  rays: Rays,
  cache: Map<number, SensorPoints>,
): Promise<RayDepthJob> {
  const step = Math.max(1, Math.round(PAST_DT_S * log.meta.rateHz));
  const sources: PlacedSource[] = [];
  for (const f of pastFrames(t0, step, pastSweeps)) {
    if (!cache.has(f)) cache.set(f, removeEgo((await log.readFrame(f)).points));
    sources.push({ points: cache.get(f)!, targetFromSource: relativePose(log.poses, target, f) });
  }
  const m = relativePose(log.poses, target, t0);
  return {
    sources,
    origin: sensorOrigin(log.meta),
    rays,
    horizonS: (target - t0) / log.meta.rateHz,
    egoShiftM: Math.hypot(m[3], m[7], m[11]),
  };
}

/** The head's inputs of one job: pure, so worker threads compute the same numbers as this one. */
export function rayDepthInputsOf(cfg: TokenizerConfig, job: RayDepthJob): RayDepthInputs {
  const rt = rayTraceOf(cfg, job);
  const windows = rayWindows(job.rays);
  const stats = job.sources
    .slice(0, PAST_RAY_FEATURES.sweeps)
    .map((s) => sweepStatsOf(s, job.origin, job.rays, windows));
  return { features: featuresOf(cfg, job, stats, rt), rt };
}

/** The ray-trace baseline over the union of the job's sweeps (with the ground height its fallback used). */
export function rayTraceOf(cfg: TokenizerConfig, job: RayDepthJob): RayTraceDepths {
  // Each sweep placed alone, then concatenated: the same points in the same order as placing them together.
  const agg = concatClouds(job.sources.map((s) => aggregateSweeps([s], job.origin)));
  return rayTracePast(cfg, agg, job.rays);
}

/** One observed sweep placed in the target frame and what it holds along each ray (`sweepRayStats`). */
export function sweepStatsOf(
  source: PlacedSource,
  origin: [number, number, number],
  rays: Rays,
  windows: Int32Array,
): Float64Array {
  return sweepRayStats(aggregateSweeps([source], origin), rays, windows);
}

/** The head's inputs joined from the parts above. */
export function featuresOf(
  cfg: TokenizerConfig,
  job: RayDepthJob,
  stats: readonly Float64Array[],
  rt: RayTraceDepths,
): Float32Array {
  return pastRayFeatures(cfg, stats, job.rays, rt, rt.groundM, job.horizonS, job.egoShiftM);
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
