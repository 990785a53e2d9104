// Counter-based random numbers for LiDAR noise: a hash of (seed, frame, ray, stream), so every ray's dropout and
// range noise is the same however the sweep is split across workers, and frames are byte-identical per seed.
import { fmix32 } from '../../core/rng.ts';

/** The (seed, frame, stream) part of the hash: the same for every ray of a frame, so a sweep forms it once. */
export function rayStreamKey(seed: number, frame: number, stream: number): number {
  return fmix32(fmix32((seed ^ 0x9e3779b9) + stream * 0x632be5ab) ^ frame);
}

/** Uniform in [0, 1) for one ray of the stream whose key is `key` (rayStreamKey). */
export function rayUniformKeyed(key: number, ray: number): number {
  return fmix32(key + ray) / 4294967296;
}

/** Uniform in [0, 1) for one ray and stream. */
export function rayUniform(seed: number, frame: number, ray: number, stream: number): number {
  return rayUniformKeyed(rayStreamKey(seed, frame, stream), ray);
}

/** Standard normal for one ray (Box–Muller on streams 2 and 3, whose keys are k2 and k3). */
export function rayGaussianKeyed(k2: number, k3: number, ray: number): number {
  const u = Math.max(1e-12, rayUniformKeyed(k2, ray));
  const v = rayUniformKeyed(k3, ray);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Standard normal for one ray (Box–Muller on two of its streams). */
export function rayGaussian(seed: number, frame: number, ray: number): number {
  return rayGaussianKeyed(rayStreamKey(seed, frame, 2), rayStreamKey(seed, frame, 3), ray);
}
