// Worker thread of the sweep pool: given the LiDAR world once, it renders column ranges of sweeps and hands
// back the returns (buffers transferred, not copied).
import { serveRequests } from '../../core/workerPool.ts';
import type { LidarConfig } from './beams.ts';
import type { LidarWorld } from './lidarWorld.ts';
import { allocateSweepPoints, createSweepRenderer, renderColumns } from './sweep.ts';
import type { SweepScene } from './sweepScene.ts';

export interface ColumnsRequest {
  scene: SweepScene;
  frame: number;
  col0: number;
  col1: number;
}

export interface ColumnsReply {
  count: number;
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  intensity: Float32Array;
  ring: Uint16Array;
  tOffset: Float32Array;
  agent: Int32Array;
}

serveRequests<{ world: LidarWorld; cfg: LidarConfig }, ColumnsRequest, ColumnsReply>(({ world, cfg }) => {
  const renderer = createSweepRenderer(world, cfg);
  return ({ scene, frame, col0, col1 }) => {
    const out = allocateSweepPoints((col1 - col0) * renderer.elevRad.length);
    renderColumns(renderer, scene, frame, col0, col1, out);
    const n = out.count;
    const reply: ColumnsReply = {
      count: n,
      x: out.x.slice(0, n),
      y: out.y.slice(0, n),
      z: out.z.slice(0, n),
      intensity: out.intensity.slice(0, n),
      ring: out.ring.slice(0, n),
      tOffset: out.tOffset.slice(0, n),
      agent: out.agent.slice(0, n),
    };
    const { x, y, z, intensity, ring, tOffset, agent } = reply;
    const transfer = [x, y, z, intensity, ring, tOffset, agent].map((a) => a.buffer as ArrayBuffer);
    return { reply, transfer };
  };
});
