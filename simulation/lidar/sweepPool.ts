// Parallel sweeps on worker_threads: column ranges go to idle workers and are joined in column order, so the
// output is identical for any number of workers (a pool of one renders in this thread).
import { createWorkerPool } from '../../core/workerPool.ts';
import type { LidarConfig } from './beams.ts';
import type { LidarWorld } from './lidarWorld.ts';
import { type SweepPoints, allocateSweepPoints, createSweepRenderer, renderColumns } from './sweep.ts';
import type { SweepScene } from './sweepScene.ts';
import type { ColumnsReply, ColumnsRequest } from './sweepWorker.ts';

export interface SweepPool {
  /** Worker threads in use (0 = this thread). */
  workers: number;
  render(scene: SweepScene, frameIndex: number): Promise<SweepPoints>;
  close(): Promise<void>;
}

/** Column ranges per worker per sweep: a few each, so a slow sector does not hold up the others. */
const CHUNKS_PER_WORKER = 4;

export function createSweepPool(world: LidarWorld, cfg: LidarConfig, workers: number): SweepPool {
  if (workers <= 1) {
    const r = createSweepRenderer(world, cfg);
    return {
      workers: 0,
      render: async (scene, frame) => {
        const out = allocateSweepPoints(cfg.azimuthSteps * cfg.elevationsDeg.length);
        renderColumns(r, scene, frame, 0, cfg.azimuthSteps, out);
        return out;
      },
      close: async () => {},
    };
  }
  const pool = createWorkerPool<{ world: LidarWorld; cfg: LidarConfig }, ColumnsRequest, ColumnsReply>(
    new URL('./sweepWorker.ts', import.meta.url),
    workers,
    { world, cfg },
    'LiDAR worker',
  );
  const chunks = Math.min(cfg.azimuthSteps, workers * CHUNKS_PER_WORKER);
  return {
    workers,
    async render(scene, frame) {
      const parts: Promise<ColumnsReply>[] = [];
      for (let k = 0; k < chunks; k++) {
        const col0 = Math.floor((k * cfg.azimuthSteps) / chunks);
        const col1 = Math.floor(((k + 1) * cfg.azimuthSteps) / chunks);
        parts.push(pool.call({ scene, frame, col0, col1 }));
      }
      const replies = await Promise.all(parts);
      const total = replies.reduce((s, r) => s + r.count, 0);
      const out = allocateSweepPoints(total);
      let at = 0;
      for (const r of replies) {
        out.x.set(r.x, at);
        out.y.set(r.y, at);
        out.z.set(r.z, at);
        out.intensity.set(r.intensity, at);
        out.ring.set(r.ring, at);
        out.tOffset.set(r.tOffset, at);
        out.agent.set(r.agent, at);
        at += r.count;
      }
      out.count = total;
      return out;
    },
    close: () => pool.close(),
  };
}
