// Discrete-diffusion sampling of the future token grids (MaskGIT with Copilot4D's changes): K steps, each
// fixing the most confident tokens under Gumbel-perturbed log-probabilities, with classifier-free guidance.
import type { Feeds } from '../core/nn/graphSession.ts';
import type { Rng } from '../core/rng.ts';
import { temporalMask, windowFeeds, type WindowInput } from './diffusionBatch.ts';
import type { ForecasterConfig, SamplingConfig } from './forecastConfig.ts';
import { maskId, noPriorId, POSE_FEATURES } from './forecasterNetwork.ts';
import { maskCount } from './maskSchedule.ts';

/** Runs the inference graph: feeds → future logits [B, future, t, t, codes] (flat). */
export type LogitsFn = (feeds: Feeds) => Promise<Float32Array>;

export interface SamplingContext {
  cfg: ForecasterConfig;
  codes: number;
  tokensXY: number;
  /** The `past` observed (or already predicted) grids, oldest first. */
  past: readonly Int32Array[];
  /** The ego-motion prior of each future frame, or null. */
  priors: readonly (Int32Array | null)[];
  /** Pose features of the T frames (past then future), relative to the last past frame. */
  poses: readonly Float32Array[];
  /**
   * Future tokens already known (the rest masked); default none. Sampling never changes a given token.
   */
  given?: readonly (Int32Array | null)[];
  /**
   * Filled when given: per future frame, the (guided) probability the model gave each token it chose, at the
   * step that fixed it (K = 1: the largest softmax probability) — what a residual forecaster thresholds.
   */
  confidenceOut?: Float32Array[];
  /**
   * Only whether a confidence reaches this floor is asked (a residual's threshold): one surely below it may
   * read 0, and above 1 none is computed (each costs an exp per code). Default 0: every one exact.
   */
  confidenceFloor?: number;
}

/** A standard Gumbel variate. */
const gumbel = (rng: Rng) => -Math.log(-Math.log(rng.uniform() * (1 - 2e-12) + 1e-12));

/**
 * Σ_c exp(l[c] − max) over the first `n` entries, summed in order (bit for bit the plain loop), or Infinity as
 * soon as the partial sum reaches `limit` (the sum only grows: the probability 1/sum is surely below 1/limit).
 */
export function expSum(l: Float64Array, n: number, max: number, limit = Infinity): number {
  let z = 0;
  for (let c = 0; c < n; c++) {
    z += Math.exp(l[c] - max);
    if (z >= limit) return Infinity;
  }
  return z;
}

/** Predict the future grids: `sampling.steps` denoising steps (1 = one-shot argmax). */
export async function sampleFuture(
  logitsFn: LogitsFn,
  ctx: SamplingContext,
  sampling: SamplingConfig,
  rng: Rng,
): Promise<Int32Array[]> {
  const { cfg, codes, tokensXY } = ctx;
  const { past, future } = cfg.frames;
  const T = past + future;
  const G = tokensXY * tokensXY;
  const P = G / cfg.network.merge ** 2;
  const C = codes;
  const MASK = maskId(codes);
  const fut = Array.from(
    { length: future },
    (_, f) => ctx.given?.[f]?.slice() ?? new Int32Array(G).fill(MASK),
  );
  const guided = sampling.guidance !== 0;
  const K = Math.max(1, sampling.steps);
  const pose = new Float32Array(T * POSE_FEATURES);
  ctx.poses.forEach((p, i) => pose.set(p, i * POSE_FEATURES));
  const probOut = ctx.confidenceOut;
  const floor = ctx.confidenceFloor ?? 0;
  if (probOut) {
    probOut.length = 0;
    for (let f = 0; f < future; f++) probOut.push(new Float32Array(G).fill(1));
  }
  const causal = temporalMask(T, P, 'causal');
  const self = temporalMask(T, P, 'self');
  for (let k = 0; k < K; k++) {
    const tokens = new Int32Array(T * G);
    const priorCond = new Int32Array(T * G).fill(noPriorId(codes));
    const maskRatio = new Float32Array(T);
    ctx.past.forEach((g, i) => tokens.set(g, i * G));
    fut.forEach((g, f) => {
      tokens.set(g, (past + f) * G);
      const pr = ctx.priors[f];
      if (pr) priorCond.set(pr, (past + f) * G);
      let m = 0;
      for (let i = 0; i < G; i++) if (g[i] === MASK) m++;
      maskRatio[past + f] = m / G;
    });
    const cond: WindowInput = { tokens, prior: priorCond, pose, maskRatio, temporal: causal };
    const batch = guided
      ? [cond, { ...cond, prior: new Int32Array(T * G).fill(noPriorId(codes)), temporal: self }]
      : [cond];
    const logits = await logitsFn(windowFeeds(batch, T, tokensXY));
    const uncondOffset = future * G * C;
    // Noise on the choice and on the confidence, annealed to nothing at the last step.
    const tau = K === 1 ? 0 : sampling.temperature * (1 - k / K);
    const l = new Float64Array(C);
    for (let f = 0; f < future; f++) {
      const g = fut[f];
      const masked: number[] = [];
      for (let i = 0; i < G; i++) if (g[i] === MASK) masked.push(i);
      if (masked.length === 0) continue;
      // Keep the ⌈γ((k+1)/K)·G⌉ least confident masked (none after the last step); fix the rest.
      const keep = k === K - 1 ? 0 : Math.min(masked.length - 1, maskCount((k + 1) / K, G));
      // The normaliser costs an exp per code (most of the sampling's time), so it is summed only where it is read:
      // by the ordering when tokens are kept, by the probabilities when asked for — and then only until it shows
      // the probability (≤ 1/sum) below the floor; the margin covers the rounding, the Float32 one included.
      const exact = keep > 0 || (probOut !== undefined && !(floor > 0));
      const zLimit = exact ? Infinity : probOut && floor <= 1 ? (1 + 1e-6) / floor : 0;
      const choice = new Int32Array(masked.length);
      const conf = new Float64Array(masked.length);
      const prob = new Float32Array(masked.length);
      for (let j = 0; j < masked.length; j++) {
        const base = (f * G + masked[j]) * C;
        let max = -Infinity;
        let first = 0;
        for (let c = 0; c < C; c++) {
          const v = logits[base + c];
          const x = guided ? v + sampling.guidance * (v - logits[uncondOffset + base + c]) : v;
          l[c] = x;
          if (x > max) {
            max = x;
            first = c;
          }
        }
        let best = first; // without noise the choice is the (first) largest logit
        if (tau > 0) {
          let bestV = -Infinity;
          for (let c = 0; c < C; c++) {
            const v = l[c] + tau * gumbel(rng);
            if (v > bestV) {
              bestV = v;
              best = c;
            }
          }
        }
        choice[j] = best;
        const z = zLimit > 0 ? expSum(l, C, max, zLimit) : Infinity; // Infinity: not summed
        const logZ = max + Math.log(z);
        prob[j] = z === Infinity ? 0 : Math.exp(l[best] - logZ);
        conf[j] = l[best] - logZ + (tau > 0 ? tau * gumbel(rng) : 0);
      }
      const order = Array.from(masked.keys());
      // Every masked token is fixed when none is kept: their order does not matter.
      if (keep > 0) order.sort((a, b) => conf[b] - conf[a]);
      for (let r = 0; r < order.length - Math.max(0, keep); r++) {
        g[masked[order[r]]] = choice[order[r]];
        if (probOut) probOut[f][masked[order[r]]] = prob[order[r]];
      }
    }
  }
  return fut;
}
