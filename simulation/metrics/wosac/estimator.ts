// Likelihood estimators of the Sim Agents metric (estimators.py): a smoothed histogram of an agent's
// simulated values, or a smoothed Bernoulli of its per-rollout indications, scoring the logged value.
import type { BernoulliEstimate, HistogramEstimate } from './config.ts';

/**
 * Bin of a value: clipped into [minVal, maxVal], equal bins closed on the left (the last also on the
 * right). NaN — the official simulated speeds at the trajectory's last step — lands in the last bin,
 * as TensorFlow's searchsorted places it.
 */
export function histogramBin(h: HistogramEstimate, v: number): number {
  if (Number.isNaN(v)) return h.numBins - 1;
  const c = v < h.minVal ? h.minVal : v > h.maxVal ? h.maxVal : v;
  const b = Math.floor(((c - h.minVal) / (h.maxVal - h.minVal)) * h.numBins);
  return b >= h.numBins ? h.numBins - 1 : b;
}

/**
 * Sum of log-likelihoods of the logged values `logV[logOff + t]` (t < count, where `mask` is set)
 * under the histogram of `simCount` simulated values at `sim[simOff + i·simStride + t]` style
 * positions given by `simIndex`. Adds the number of scored values to `acc[1]` and the sum to `acc[0]`.
 * `counts` is scratch of at least numBins entries.
 */
export function histogramLogLikelihood(
  h: HistogramEstimate,
  sim: Float32Array,
  simStart: number,
  simRows: number,
  simRowStride: number,
  rowLength: number,
  logV: Float32Array,
  logOff: number,
  mask: Uint8Array,
  maskOff: number,
  counts: Float64Array,
  acc: Float64Array,
): void {
  counts.fill(0, 0, h.numBins);
  for (let r = 0; r < simRows; r++) {
    const o = simStart + r * simRowStride;
    for (let t = 0; t < rowLength; t++) counts[histogramBin(h, sim[o + t])]++;
  }
  const total = simRows * rowLength + h.numBins * h.pseudoCount;
  for (let t = 0; t < rowLength; t++) {
    if (!mask[maskOff + t]) continue;
    const b = histogramBin(h, logV[logOff + t]);
    acc[0] += Math.log((counts[b] + h.pseudoCount) / total);
    acc[1] += 1;
  }
}

/** Log-likelihood of a logged indication under a Bernoulli from `trues` of `n` simulated ones. */
export function bernoulliLogLikelihood(
  b: BernoulliEstimate,
  trues: number,
  n: number,
  logValue: boolean,
): number {
  const k = logValue ? trues : n - trues;
  return Math.log((k + b.pseudoCount) / (n + 2 * b.pseudoCount));
}
