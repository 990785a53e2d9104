// The ray-depth head's inputs on worker threads. A frame's inputs split into independent parts (the ray-trace
// over all past sweeps, each sweep's window stats) that go to idle workers, so the frames of one forecast keep
// every core busy; the parts are joined here. The numbers are the same as in this thread (a pool of 0).
import { createWorkerPool } from '../core/workerPool.ts';
import type { RayTraceDepths } from './baselines/rayTracePast.ts';
import type { PlacedSource } from './baselines/pastSweeps.ts';
import type { TokenizerConfig } from './config.ts';
import { PAST_RAY_FEATURES, rayWindows } from './pastRayFeatures.ts';
import { featuresOf, type RayDepthInputs, type RayDepthJob, rayDepthInputsOf } from './rayDepthInputs.ts';
import type { RayDepthPart, RayDepthPartReply } from './rayDepthWorker.ts';
import type { Rays } from './rays.ts';
import type { SensorPoints } from './voxelize.ts';

export interface RayDepthPool {
  /** Worker threads in use (0 = this thread). */
  readonly workers: number;
  inputs(job: RayDepthJob): Promise<RayDepthInputs>;
  close(): Promise<void>;
}

/** A pool of `workers` threads (≤ 1: none, each job runs here when awaited). Close it when done. */
export function createRayDepthPool(cfg: TokenizerConfig, workers: number): RayDepthPool {
  if (workers <= 1)
    return { workers: 0, inputs: async (job) => rayDepthInputsOf(cfg, job), close: async () => {} };
  const pool = createWorkerPool<TokenizerConfig, RayDepthPart, RayDepthPartReply>(
    new URL('./rayDepthWorker.ts', import.meta.url),
    workers,
    cfg,
    'ray-depth worker',
  );
  return {
    workers,
    async inputs(original) {
      // Shared memory: the workers read the sweeps and rays in place instead of each receiving a copy.
      const job = {
        ...original,
        sources: original.sources.map(sharedSource),
        rays: sharedRays(original.rays),
      };
      const windows = sharedCopy(rayWindows(job.rays));
      const trace = pool.call({ type: 'trace', job });
      const sweeps = job.sources
        .slice(0, PAST_RAY_FEATURES.sweeps)
        .map((source) => pool.call({ type: 'sweep', source, origin: job.origin, rays: job.rays, windows }));
      const [t, ...s] = await Promise.all([trace, ...sweeps]);
      const { rt } = t as { rt: RayTraceDepths };
      const stats = s.map((r) => (r as { stats: Float64Array }).stats);
      return { features: featuresOf(cfg, job, stats, rt), rt };
    },
    close: () => pool.close(),
  };
}

// Each cached sweep is copied to shared memory once, however many frames and jobs read it.
const sharedClouds = new WeakMap<SensorPoints, SensorPoints>();

function sharedSource(s: PlacedSource): PlacedSource {
  let points = sharedClouds.get(s.points);
  if (!points) {
    points = { x: sharedCopy(s.points.x), y: sharedCopy(s.points.y), z: sharedCopy(s.points.z) };
    sharedClouds.set(s.points, points);
  }
  return { points, targetFromSource: s.targetFromSource };
}

function sharedRays(r: Rays): Rays {
  return { ...r, dirX: sharedCopy(r.dirX), dirY: sharedCopy(r.dirY), dirZ: sharedCopy(r.dirZ) };
}

function sharedCopy<T extends Float32Array | Int32Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const out = new (a.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(a.byteLength));
  out.set(a);
  return out;
}
