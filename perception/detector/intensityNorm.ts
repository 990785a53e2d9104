// Intensity normalised per source: each sweep's intensities are divided by their own upper quantile, so
// KITTI reflectance (0–1), AV2 8-bit values (0–255) and the synthetic model's echoes share one scale.
/**
 * How the BEV intensity channel is scaled: a fixed divisor; 'auto' (÷255 when the sweep holds values
 * above 1.5, else ÷1); or 'quantile' (÷ the sweep's `intensityQuantile` over its non-zero returns, then
 * halved, so that quantile maps to 0.5 whatever the sensor's units).
 */
export type IntensityScale = number | 'auto' | 'quantile';

/** Histogram bins of the quantile estimate (one pass; the error is below max/bins). */
const BINS = 1024;

/**
 * The `q` quantile of the finite, positive values of `v`, estimated from a 1024-bin histogram over
 * [0, max]: two passes over the sweep, no sort. 0 when no value is positive.
 */
export function positiveQuantile(v: Float32Array, q: number): number {
  let max = 0;
  for (let i = 0; i < v.length; i++) if (v[i] > max && v[i] < Infinity) max = v[i];
  if (!(max > 0)) return 0;
  const hist = new Uint32Array(BINS);
  const scale = BINS / max;
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!(x > 0 && x <= max)) continue;
    hist[Math.min(BINS - 1, (x * scale) | 0)]++;
    n++;
  }
  const want = Math.max(1, Math.ceil(q * n));
  let acc = 0;
  for (let b = 0; b < BINS; b++) {
    acc += hist[b];
    if (acc >= want) return ((b + 1) * max) / BINS;
  }
  return max;
}

/** What the intensities of one sweep are divided by for the BEV channel (never 0). */
export function intensityDivisor(intensity: Float32Array, scale: IntensityScale, quantile: number): number {
  if (typeof scale === 'number') return scale;
  if (scale === 'quantile') {
    const qv = positiveQuantile(intensity, quantile);
    return qv > 0 ? 2 * qv : 1;
  }
  let max = 0;
  for (let i = 0; i < intensity.length; i++) if (intensity[i] > max) max = intensity[i];
  return max > 1.5 ? 255 : 1;
}
