// Worker thread of the ray-depth pool: given the tokenizer config once, it computes one part of a frame's
// inputs at a time (the ray-trace over all sweeps, or one sweep's stats) and hands back its buffers.
import { serveRequests } from '../core/workerPool.ts';
import type { PlacedSource } from './baselines/pastSweeps.ts';
import type { RayTraceDepths } from './baselines/rayTracePast.ts';
import type { TokenizerConfig } from './config.ts';
import { type RayDepthJob, rayTraceOf, sweepStatsOf } from './rayDepthInputs.ts';
import type { Rays } from './rays.ts';

export type RayDepthPart =
  | { type: 'trace'; job: RayDepthJob }
  | {
      type: 'sweep';
      source: PlacedSource;
      origin: [number, number, number];
      rays: Rays;
      windows: Int32Array;
    };

export type RayDepthPartReply = { rt: RayTraceDepths } | { stats: Float64Array };

serveRequests<TokenizerConfig, RayDepthPart, RayDepthPartReply>((cfg) => (part) => {
  if (part.type === 'trace') {
    const rt = rayTraceOf(cfg, part.job);
    const transfer = [rt.raw.buffer, rt.clamped.buffer, rt.ground.buffer, rt.miss.buffer] as ArrayBuffer[];
    return { reply: { rt }, transfer };
  }
  const stats = sweepStatsOf(part.source, part.origin, part.rays, part.windows);
  return { reply: { stats }, transfer: [stats.buffer as ArrayBuffer] };
});
