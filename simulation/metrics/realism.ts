// Distributional realism: per feature, 1 − Jensen–Shannon divergence (base 2, so in [0, 1]) between
// histograms of the rollout and of the log, combined with the 2025 Waymo Sim Agents meta-metric weights.

/** The 2025 WOSAC meta-metric weights (they sum to 1). */
export const REALISM_WEIGHTS = {
  speed: 0.05,
  accel: 0.05,
  yaw_rate: 0.05,
  yaw_accel: 0.05,
  nearest_object: 0.1,
  collision: 0.25,
  ttc: 0.1,
  road_edge: 0.05,
  offroad: 0.25,
  traffic_light: 0.05,
} as const;

export type RealismComponent = keyof typeof REALISM_WEIGHTS;

/** Histogram bins of the continuous features (values outside are clamped into the end bins). */
export const REALISM_BINS: Record<
  Exclude<RealismComponent, 'collision' | 'offroad' | 'traffic_light'>,
  { min: number; max: number; bins: number }
> = {
  speed: { min: 0, max: 30, bins: 30 },
  accel: { min: -10, max: 10, bins: 40 },
  yaw_rate: { min: -1.5, max: 1.5, bins: 30 },
  yaw_accel: { min: -6, max: 6, bins: 40 },
  nearest_object: { min: -5, max: 20, bins: 50 },
  ttc: { min: 0, max: 5, bins: 20 },
  road_edge: { min: -20, max: 5, bins: 50 },
};

/** Normalised histogram of the finite values (null when there are none). */
export function histogram(
  values: ArrayLike<number>,
  min: number,
  max: number,
  bins: number,
): Float64Array | null {
  const h = new Float64Array(bins);
  let count = 0;
  const scale = bins / (max - min);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    const b = Math.min(bins - 1, Math.max(0, Math.floor((v - min) * scale)));
    h[b]++;
    count++;
  }
  if (count === 0) return null;
  for (let b = 0; b < bins; b++) h[b] /= count;
  return h;
}

/** Jensen–Shannon divergence of two distributions over the same bins, in bits (0 … 1). */
export function jsd(p: ArrayLike<number>, q: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < p.length; i++) {
    const m = (p[i] + q[i]) / 2;
    if (p[i] > 0) d += 0.5 * p[i] * Math.log2(p[i] / m);
    if (q[i] > 0) d += 0.5 * q[i] * Math.log2(q[i] / m);
  }
  return Math.min(1, Math.max(0, d));
}

/** 1 − JSD of two samples on fixed bins; NaN when either sample has no finite value. */
export function histogramScore(
  sim: ArrayLike<number>,
  log: ArrayLike<number>,
  min: number,
  max: number,
  bins: number,
): number {
  const p = histogram(sim, min, max, bins);
  const q = histogram(log, min, max, bins);
  return p && q ? 1 - jsd(p, q) : NaN;
}

/**
 * The meta-metric: Σ weight × score over the components that are defined (NaN scores are left out and
 * the remaining weights renormalised, e.g. off-road on a map without roads).
 */
export function realismMeta(scores: Partial<Record<RealismComponent, number>>): number {
  let sum = 0;
  let weight = 0;
  for (const [k, w] of Object.entries(REALISM_WEIGHTS) as [RealismComponent, number][]) {
    const v = scores[k];
    if (v === undefined || Number.isNaN(v)) continue;
    sum += w * v;
    weight += w;
  }
  return weight > 0 ? sum / weight : NaN;
}
