// The ray-depth head's inputs on worker threads. A frame's inputs split into independent parts (the ray-trace
// over all past sweeps, each sweep's window stats) that go to idle workers, so the frames of one forecast keep
// every core busy; the parts are joined here. The numbers are the same as in this thread (a pool of 0).
import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../core/workers.ts';
import type { RayTraceDepths } from './baselines/rayTracePast.ts';
import type { PlacedSource } from './baselines/pastSweeps.ts';
import type { TokenizerConfig } from './config.ts';
import { PAST_RAY_FEATURES, rayWindows } from './pastRayFeatures.ts';
import { featuresOf, type RayDepthInputs, type RayDepthJob, rayDepthInputsOf } from './rayDepthInputs.ts';
import type { RayDepthWorkerReply, RayDepthWorkerRequest } from './rayDepthWorker.ts';
import type { Rays } from './rays.ts';
import type { SensorPoints } from './voxelize.ts';

export interface RayDepthPool {
  /** Worker threads in use (0 = this thread). */
  readonly workers: number;
  inputs(job: RayDepthJob): Promise<RayDepthInputs>;
  close(): Promise<void>;
}

type Request = Exclude<RayDepthWorkerRequest, { type: 'init' }>;
// Omit over each member of the union (a plain Omit would keep only the keys they share).
type Part = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;
type Pending = { resolve: (reply: RayDepthWorkerReply) => void; reject: (e: Error) => void };

/** A pool of `workers` threads (≤ 1: none, each job runs here when awaited). Close it when done. */
export function createRayDepthPool(cfg: TokenizerConfig, workers: number): RayDepthPool {
  if (workers <= 1)
    return { workers: 0, inputs: async (job) => rayDepthInputsOf(cfg, job), close: async () => {} };
  const threads: Worker[] = [];
  const idle: Worker[] = [];
  const queue: Request[] = [];
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let failure: Error | null = null;
  const fail = (e: Error) => {
    failure ??= e;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  const dispatch = () => {
    while (idle.length && queue.length) idle.pop()!.postMessage(queue.shift()!);
  };
  const call = (msg: Part): Promise<RayDepthWorkerReply> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    const done = new Promise<RayDepthWorkerReply>((resolve, reject) => pending.set(id, { resolve, reject }));
    queue.push({ ...msg, id } as Request);
    dispatch();
    return done;
  };
  for (let k = 0; k < workers; k++) {
    const w = startTsWorker(new URL('./rayDepthWorker.ts', import.meta.url));
    w.postMessage({ type: 'init', cfg } satisfies RayDepthWorkerRequest);
    w.on('message', (reply: RayDepthWorkerReply) => {
      idle.push(w);
      const p = pending.get(reply.id);
      pending.delete(reply.id);
      if ('error' in reply) p?.reject(new Error(`ray-depth worker: ${reply.error}`));
      else p?.resolve(reply);
      dispatch();
    });
    w.on('error', (e: Error) => fail(new Error(`ray-depth worker failed: ${e.message}`)));
    w.on('exit', (code) => {
      if (code !== 0) fail(new Error(`ray-depth worker exited with code ${code}`));
    });
    threads.push(w);
    idle.push(w);
  }
  return {
    workers,
    async inputs(original) {
      // Shared memory: the workers read the sweeps and rays in place instead of each receiving a copy.
      const job = {
        ...original,
        sources: original.sources.map(sharedSource),
        rays: sharedRays(original.rays),
      };
      const trace = call({ type: 'trace', job });
      const windows = sharedCopy(rayWindows(job.rays));
      const sweeps = job.sources
        .slice(0, PAST_RAY_FEATURES.sweeps)
        .map((source) => call({ type: 'sweep', source, origin: job.origin, rays: job.rays, windows }));
      const [t, ...s] = await Promise.all([trace, ...sweeps]);
      const { rt, groundM } = t as { rt: RayTraceDepths; groundM: number };
      const stats = s.map((r) => (r as { stats: Float64Array }).stats);
      return { features: featuresOf(cfg, job, stats, rt, groundM), rt };
    },
    async close() {
      failure ??= new Error('ray-depth pool closed');
      await Promise.all(threads.map((w) => w.terminate()));
    },
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
