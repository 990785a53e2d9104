// Counter-based random numbers for LiDAR noise: a hash of (seed, frame, ray, stream), so every ray's dropout and
// range noise is the same however the sweep is split across workers, and frames are byte-identical per seed.
import { fmix32 } from '../../core/rng.ts';

/** Uniform in [0, 1) for one ray and stream. */
export function rayUniform(seed: number, frame: number, ray: number, stream: number): number {
  const h = fmix32(fmix32(fmix32((seed ^ 0x9e3779b9) + stream * 0x632be5ab) ^ frame) + ray);
  return h / 4294967296;
}

/** Standard normal for one ray (Box–Muller on two of its streams). */
export function rayGaussian(seed: number, frame: number, ray: number): number {
  const u = Math.max(1e-12, rayUniform(seed, frame, ray, 2));
  const v = rayUniform(seed, frame, ray, 3);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
