// Vector quantisation of the encoder's token vectors (VQ-VAE, van den Oord et al. 2017) with a cosine
// codebook and a straight-through gradient; codebook upkeep (k-means start, dead-code re-initialisation).
import type { Tensor } from '../core/nn/graph.ts';
import * as o from '../core/nn/ops/index.ts';
import type { Rng } from '../core/rng.ts';
import type { QuantizerConfig } from './config.ts';

export interface Quantized {
  /** [N, D] what the decoder sees: the chosen codes, with the encoder's gradient passed straight through. */
  zq: Tensor;
  /** [N] int64 chosen code per vector. */
  index: Tensor;
  /** Codebook + commitment loss (already weighted). */
  loss: Tensor;
  /** [N, D] the normalised encoder vectors (for the memory bank). */
  zNorm: Tensor;
}

/** x / ‖x‖ along the last axis. */
export function l2Normalize(x: Tensor): Tensor {
  return o.div(x, o.sqrt(o.add(o.reduceSum(o.mul(x, x), [-1], true), 1e-12)));
}

/** Index of the nearest code by cosine similarity: argmax of ẑ·ĉᵀ. `codebook` is [K, D]. */
export function nearestCode(z: Tensor, codebook: Tensor): Tensor {
  return o.argMax(o.matmul(l2Normalize(z), o.transpose(l2Normalize(codebook))), -1);
}

/**
 * Quantise `z` [N, D]. `vqOn` is a scalar input (1 after the autoencoder warm-up, 0 before): at 0 the
 * decoder sees the normalised encoder vectors themselves and the VQ losses are off.
 */
export function quantize(z: Tensor, codebook: Tensor, vqOn: Tensor, cfg: QuantizerConfig): Quantized {
  const zn = l2Normalize(z);
  const cn = l2Normalize(codebook);
  const index = o.argMax(o.matmul(zn, o.transpose(cn)), -1);
  const e = o.gather(cn, index, 0);
  const zq = o.add(zn, o.mul(vqOn, o.stopGradient(o.sub(e, zn))));
  const sq = (t: Tensor) => o.reduceMean(o.mul(t, t));
  const codebookLoss = sq(o.sub(o.stopGradient(zn), e));
  const commitment = sq(o.sub(zn, o.stopGradient(e)));
  const loss = o.mul(
    vqOn,
    o.add(o.mul(codebookLoss, cfg.codebookWeight), o.mul(commitment, cfg.commitmentWeight)),
  );
  return { zq, index, loss, zNorm: zn };
}

/** Usage statistics of a set of code indices. */
export function codeUsage(
  index: ArrayLike<number | bigint>,
  codes: number,
): { used: number; perplexity: number } {
  const counts = new Float64Array(codes);
  for (let i = 0; i < index.length; i++) counts[Number(index[i])]++;
  let used = 0;
  let h = 0;
  const n = index.length;
  for (const c of counts) {
    if (c === 0) continue;
    used++;
    const p = c / n;
    h -= p * Math.log(p);
  }
  return { used, perplexity: Math.exp(h) };
}

/** A ring buffer of recent encoder vectors (normalised), drawn from for k-means and re-initialisation. */
export class MemoryBank {
  readonly data: Float32Array;
  size = 0;
  /** Where the next vector is written (the ring buffer's head; part of a checkpoint's state). */
  cursor = 0;

  constructor(
    readonly capacity: number,
    readonly dim: number,
  ) {
    this.data = new Float32Array(capacity * dim);
  }

  /** Add `take` random rows of `z` [N, dim]. */
  add(z: Float32Array, take: number, rng: Rng): void {
    const n = z.length / this.dim;
    for (let t = 0; t < Math.min(take, n); t++) {
      const r = rng.int(n);
      this.data.set(z.subarray(r * this.dim, (r + 1) * this.dim), this.cursor * this.dim);
      this.cursor = (this.cursor + 1) % this.capacity;
      this.size = Math.min(this.size + 1, this.capacity);
    }
  }

  row(i: number): Float32Array {
    return this.data.subarray(i * this.dim, (i + 1) * this.dim);
  }
}

/** Spherical k-means on the bank (cosine), seeded by k-means++-style distinct random rows; returns [k, dim]. */
export function kmeansCodebook(bank: MemoryBank, k: number, iterations: number, rng: Rng): Float32Array {
  const D = bank.dim;
  const n = bank.size;
  if (n < k) throw new Error(`k-means: ${n} vectors in the memory bank, need at least ${k}`);
  const C = new Float32Array(k * D);
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(n - i);
    [perm[i], perm[j]] = [perm[j], perm[i]];
    C.set(bank.row(perm[i]), i * D);
  }
  const assign = new Int32Array(n);
  const sums = new Float64Array(k * D);
  const counts = new Int32Array(k);
  for (let it = 0; it < iterations; it++) {
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const x = bank.row(i);
      let best = 0;
      let bestDot = -Infinity;
      for (let c = 0; c < k; c++) {
        let dot = 0;
        for (let d = 0; d < D; d++) dot += x[d] * C[c * D + d];
        if (dot > bestDot) {
          bestDot = dot;
          best = c;
        }
      }
      assign[i] = best;
      counts[best]++;
      for (let d = 0; d < D; d++) sums[best * D + d] += x[d];
    }
    for (let c = 0; c < k; c++) {
      if (counts[c] === 0) {
        C.set(bank.row(rng.int(n)), c * D); // an empty cluster restarts at a random vector
        continue;
      }
      let norm = 0;
      for (let d = 0; d < D; d++) norm += sums[c * D + d] ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < D; d++) C[c * D + d] = sums[c * D + d] / norm;
    }
  }
  return C;
}

/**
 * Replace every code whose count is 0 by a random bank vector (plus a little noise so two revived codes
 * differ). Returns how many were replaced. `codebook` is [K, D], updated in place.
 */
export function reinitDeadCodes(
  codebook: Float32Array,
  counts: Uint32Array,
  bank: MemoryBank,
  rng: Rng,
): number {
  const D = bank.dim;
  let replaced = 0;
  if (bank.size === 0) return 0;
  for (let c = 0; c < counts.length; c++) {
    if (counts[c] > 0) continue;
    const row = bank.row(rng.int(bank.size));
    for (let d = 0; d < D; d++) codebook[c * D + d] = row[d] + 0.01 * rng.normal();
    replaced++;
  }
  return replaced;
}
