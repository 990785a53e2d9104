// Worker thread of the ray-depth pool: receives the tokenizer config once, then computes one part of a frame's
// inputs at a time (the ray-trace over all sweeps, or one sweep's stats) and posts it back (buffers transferred).
import { parentPort } from 'node:worker_threads';
import type { PlacedSource } from './baselines/pastSweeps.ts';
import type { RayTraceDepths } from './baselines/rayTracePast.ts';
import type { TokenizerConfig } from './config.ts';
import { type RayDepthJob, rayTraceOf, sweepStatsOf } from './rayDepthInputs.ts';
import type { Rays } from './rays.ts';

export type RayDepthWorkerRequest =
  | { type: 'init'; cfg: TokenizerConfig }
  | { type: 'trace'; id: number; job: RayDepthJob }
  | {
      type: 'sweep';
      id: number;
      source: PlacedSource;
      origin: [number, number, number];
      rays: Rays;
      windows: Int32Array;
    };

export type RayDepthWorkerReply =
  | { id: number; rt: RayTraceDepths; groundM: number }
  | { id: number; stats: Float64Array }
  | { id: number; error: string };

let cfg: TokenizerConfig | null = null;

parentPort?.on('message', (msg: RayDepthWorkerRequest) => {
  if (msg.type === 'init') {
    cfg = msg.cfg;
    return;
  }
  try {
    if (!cfg) throw new Error('a job before init');
    if (msg.type === 'trace') {
      const { rt, groundM } = rayTraceOf(cfg, msg.job);
      parentPort!.postMessage({ id: msg.id, rt, groundM } satisfies RayDepthWorkerReply, [
        rt.raw.buffer,
        rt.clamped.buffer,
        rt.ground.buffer,
        rt.miss.buffer,
      ] as ArrayBuffer[]);
    } else {
      const stats = sweepStatsOf(msg.source, msg.origin, msg.rays, msg.windows);
      parentPort!.postMessage({ id: msg.id, stats } satisfies RayDepthWorkerReply, [
        stats.buffer,
      ] as ArrayBuffer[]);
    }
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: (e as Error).message } satisfies RayDepthWorkerReply);
  }
});
