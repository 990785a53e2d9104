// The floor a voxel grid sets on rendered depth: a perfect binary grid of a sweep's own returns (occupied
// voxels opaque, the rest empty) rendered along the sweep's rays, before any network (Copilot4D §3.1 renderer).
import type { GraphSession } from '../core/nn/graphSession.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';
import { raysFromPoints, sampleRays, type Rays } from './rays.ts';
import { rayFeeds } from './tokenizerFeeds.ts';
import { RENDER_CHUNK_RAYS, type DecodedSweep } from './tokenizerModel.ts';
import { voxelize, type SensorPoints } from './voxelize.ts';

/** Logit that makes a voxel opaque (α = σ(12) ≈ 1) or empty (α ≈ 6e-6) after trilinear interpolation. */
const OPAQUE_LOGIT = 12;

/** The decoder's grids a perfect tokenizer would output for `pts`: occupied voxels opaque, others empty. */
export function binaryGrids(cfg: TokenizerConfig, pts: SensorPoints, source: string): DecodedSweep {
  const v = voxelize(cfg, pts, source);
  const geo = gridGeometry(cfg);
  const n = geo.cellsZ * geo.cellsXY * geo.cellsXY;
  const density = new Float32Array(n);
  for (let i = 0; i < n; i++) density[i] = v.occupancy[i] ? OPAQUE_LOGIT : -OPAQUE_LOGIT;
  return { occupancy: density.slice(), density };
}

/** Every `stride`-th ray of the sweep (all returns in the region beyond the minimum range). */
export function strideRays(cfg: TokenizerConfig, pts: SensorPoints, stride: number): Rays {
  const all = raysFromPoints(cfg, pts);
  const keep: number[] = [];
  for (let i = 0; i < all.count; i += stride) keep.push(i);
  const f = (a: Float32Array) => Float32Array.from(keep, (i) => a[i]);
  return {
    count: keep.length,
    dirX: f(all.dirX),
    dirY: f(all.dirY),
    dirZ: f(all.dirZ),
    depthM: f(all.depthM),
    pointIndex: Int32Array.from(keep, (i) => all.pointIndex[i]),
  };
}

/** Rendered − measured depth (m) of `rays` through `grids`, in chunks (renderer: tokenizerModel.buildRenderer). */
export async function renderSigned(
  cfg: TokenizerConfig,
  renderer: GraphSession,
  grids: DecodedSweep,
  rays: Rays,
): Promise<Float32Array> {
  const out = new Float32Array(rays.count);
  for (let a = 0; a < rays.count; a += RENDER_CHUNK_RAYS) {
    const b = Math.min(rays.count, a + RENDER_CHUNK_RAYS);
    const chunk: Rays = {
      count: b - a,
      dirX: rays.dirX.subarray(a, b),
      dirY: rays.dirY.subarray(a, b),
      dirZ: rays.dirZ.subarray(a, b),
      depthM: rays.depthM.subarray(a, b),
      pointIndex: rays.pointIndex.subarray(a, b),
      originZM: rays.originZM?.subarray(a, b),
    };
    const r = await renderer.run({
      ...rayFeeds(sampleRays(cfg, chunk)),
      density: grids.density,
      occupancy: grids.occupancy,
    });
    const d = r.depth.data as Float32Array;
    for (let k = 0; k < chunk.count; k++) out[a + k] = d[k] - chunk.depthM[k];
  }
  return out;
}

/** Median and mean |error|, and the share of rays rendered more than 5 m beyond their return. */
export function depthErrorFigures(signed: Float32Array): {
  medianM: number;
  meanM: number;
  tooFar5m: number;
} {
  const abs = Float32Array.from(signed, Math.abs).sort();
  let sum = 0;
  let far = 0;
  for (let i = 0; i < signed.length; i++) {
    sum += abs[i];
    if (signed[i] > 5) far++;
  }
  const n = signed.length;
  return { medianM: n ? abs[Math.floor(n / 2)] : NaN, meanM: n ? sum / n : NaN, tooFar5m: n ? far / n : NaN };
}
