// Copilot4D's discrete diffusion corruption: the cosine mask schedule γ(u) = cos(uπ/2), a share (up to 20 %)
// of the kept tokens replaced by random codes, and the 50/40/10 mix of training objectives.
import type { Rng } from '../core/rng.ts';

/** Share of tokens masked at diffusion time u ∈ [0, 1]: γ(u) = cos(uπ/2) (1 at u = 0, 0 at u = 1). */
export function maskSchedule(u: number): number {
  return Math.cos((u * Math.PI) / 2);
}

/** Tokens masked at time u out of n: ⌈γ(u)·n⌉. */
export function maskCount(u: number, n: number): number {
  return Math.min(n, Math.max(0, Math.ceil(maskSchedule(u) * n - 1e-9)));
}

/** future: the past is given, the future denoised; joint: all frames denoised, causally; frame: each alone. */
export type Objective = 'future' | 'joint' | 'frame';

/** Draw an objective with probabilities `mix` (future, joint, frame). */
export function drawObjective(rng: Rng, mix: readonly [number, number, number]): Objective {
  const total = mix[0] + mix[1] + mix[2];
  const r = rng.uniform() * total;
  if (r < mix[0]) return 'future';
  if (r < mix[0] + mix[1]) return 'joint';
  return 'frame';
}

export interface Corrupted {
  /** The corrupted tokens: `maskId` where masked, a random code where noised, else the original. */
  tokens: Int32Array;
  /** Share of tokens masked (the network's time input). */
  maskRatio: number;
  masked: number;
  noised: number;
}

/**
 * Corrupt one frame's tokens: draw u ~ U(0, 1), mask ⌈γ(u)·n⌉ tokens chosen at random, then replace a share
 * η ~ U(0, maxNoise) of the remaining tokens by random codes (`maskId` = codes, so codes are 0 … maskId − 1).
 */
export function corruptFrame(tokens: Int32Array, maskId: number, maxNoise: number, rng: Rng): Corrupted {
  const n = tokens.length;
  const masked = maskCount(rng.uniform(), n);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // Partial Fisher–Yates: the first `masked` are masked, the next `noised` get random codes.
  const eta = rng.uniform() * maxNoise;
  const noised = Math.floor(eta * (n - masked));
  for (let i = 0; i < masked + noised; i++) {
    const j = i + rng.int(n - i);
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  const out = tokens.slice();
  for (let i = 0; i < masked; i++) out[order[i]] = maskId;
  for (let i = masked; i < masked + noised; i++) out[order[i]] = rng.int(maskId);
  return { tokens: out, maskRatio: masked / n, masked, noised };
}
