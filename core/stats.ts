// Order statistics of small lists: medians and quantiles, one function per variant the toolkit uses
// (interpolated, a sample element, nearest rank), so each caller keeps the exact figures it was tuned on.

function sortedCopy(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

/** Median of sorted values: the mean of the two middle ones for an even count; NaN when empty. */
export function medianOfSorted(sorted: readonly number[]): number {
  const n = sorted.length;
  return n === 0 ? NaN : n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/** Median, the mean of the two middle values for an even count; NaN when empty. */
export function median(xs: readonly number[]): number {
  return medianOfSorted(sortedCopy(xs));
}

/**
 * The middle sample, the upper of the two middles for an even count; NaN when empty. Always a value
 * that occurs in the data (a point count, a box size), which the interpolated median is not.
 */
export function upperMedian(xs: readonly number[]): number {
  return xs.length ? upperMedianOfSorted(sortedCopy(xs)) : NaN;
}

/** upperMedian of values already sorted (undefined when empty, as the index reads). */
export function upperMedianOfSorted(sorted: ArrayLike<number>): number {
  return sorted[sorted.length >> 1];
}

/** Linear-interpolated quantile, q clamped to [0, 1]; NaN when empty. */
export function quantile(xs: readonly number[], q: number): number {
  const v = sortedCopy(xs);
  if (v.length === 0) return NaN;
  const pos = Math.min(1, Math.max(0, q)) * (v.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(v.length - 1, lo + 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

/** The sample at index ⌊q·(n−1)⌋ of sorted values (a low quantile that is itself a sample). */
export function lowerQuantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))];
}

/** Nearest-rank quantile of sorted values: the sample at ⌈q·n⌉ − 1 (the usual definition of a p95). */
export function nearestRankOfSorted(sorted: ArrayLike<number>, q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}
