// Worker thread of the sweep pool: receives the LiDAR world once, then renders column ranges of sweeps and
// posts the returns back (buffers transferred, not copied).
import { parentPort } from 'node:worker_threads';
import type { LidarConfig } from './beams.ts';
import type { LidarWorld } from './lidarWorld.ts';
import { type SweepRenderer, allocateSweepPoints, createSweepRenderer, renderColumns } from './sweep.ts';
import type { SweepScene } from './sweepScene.ts';

export type WorkerRequest =
  | { type: 'init'; world: LidarWorld; cfg: LidarConfig }
  | { type: 'render'; job: number; scene: SweepScene; frame: number; col0: number; col1: number };

export interface WorkerReply {
  job: number;
  count: number;
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  intensity: Float32Array;
  ring: Uint16Array;
  tOffset: Float32Array;
  agent: Int32Array;
  error?: string;
}

let renderer: SweepRenderer | null = null;

parentPort?.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'init') {
    renderer = createSweepRenderer(msg.world, msg.cfg);
    return;
  }
  try {
    if (!renderer) throw new Error('sweep worker: render before init');
    const out = allocateSweepPoints((msg.col1 - msg.col0) * renderer.elevRad.length);
    renderColumns(renderer, msg.scene, msg.frame, msg.col0, msg.col1, out);
    const n = out.count;
    const reply: WorkerReply = {
      job: msg.job,
      count: n,
      x: out.x.slice(0, n),
      y: out.y.slice(0, n),
      z: out.z.slice(0, n),
      intensity: out.intensity.slice(0, n),
      ring: out.ring.slice(0, n),
      tOffset: out.tOffset.slice(0, n),
      agent: out.agent.slice(0, n),
    };
    parentPort!.postMessage(reply, [
      reply.x.buffer,
      reply.y.buffer,
      reply.z.buffer,
      reply.intensity.buffer,
      reply.ring.buffer,
      reply.tOffset.buffer,
      reply.agent.buffer,
    ] as ArrayBuffer[]);
  } catch (e) {
    parentPort!.postMessage({ job: msg.job, count: 0, error: (e as Error).message } as Partial<WorkerReply>);
  }
});
