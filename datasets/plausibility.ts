// Plausibility of decoded points: coordinates no sensor measured (NaN/Inf, beyond any LiDAR's range,
// outside a LAS header's own bounds) mean corrupt bytes, so the reader refuses the file or drops and counts.
import { truncatePointCloud, type PointCloud } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';

export interface PlausibilityConfig {
  /** Farthest a sensor-frame point may lie from the sensor (m); farther is corrupt data, not a return. */
  maxRangeM: number;
}

export const DEFAULT_PLAUSIBILITY_CONFIG: PlausibilityConfig = {
  // No automotive LiDAR reports returns past ~500 m (HDL-64E 120 m, VLP-32C 200 m, long-range FMCW
  // units 500 m); 1 km leaves margin for poses applied in the sensor frame and still catches flipped
  // float bits (the AV2 sweep with 500 bytes flipped had z = −7,164 m).
  maxRangeM: 1000,
};

/** What a reader does with implausible points: refuse the file (default) or drop and count them. */
export interface PlausibilityOptions {
  /** Drop implausible points and count them instead of refusing the file. */
  dropImplausible?: boolean;
  /** NaN/Inf coordinates are "no return" markers in this format (PCD organised clouds): leave them. */
  allowNonFinite?: boolean;
  config?: PlausibilityConfig;
}

/** The hint every refusal ends with, so a user who wants the rest of the file knows how. */
export const DROP_HINT = 'corrupt data? (import --drop-implausible drops and counts such points)';

const fmt = (v: number) => (Number.isFinite(v) ? String(Math.round(v * 100) / 100) : String(v));

/** Compact a cloud in place to the points where keep[i] is 1. */
function keepPoints(p: PointCloud, keep: Uint8Array): PointCloud {
  const { x, y, z, intensity, ring, tOffset } = p;
  let k = 0;
  for (let i = 0; i < x.length; i++) {
    if (!keep[i]) continue;
    if (k !== i) {
      x[k] = x[i];
      y[k] = y[i];
      z[k] = z[i];
      intensity[k] = intensity[i];
      ring[k] = ring[i];
      tOffset[k] = tOffset[i];
    }
    k++;
  }
  return k === x.length ? p : truncatePointCloud(p, k);
}

/**
 * Check sensor-frame points: every coordinate finite (unless allowed) and within maxRangeM of the
 * sensor. Refuses the file naming the first bad point and the count, or drops and counts them.
 */
export function checkSensorPoints(
  p: PointCloud,
  file: string,
  opts: PlausibilityOptions = {},
): { points: PointCloud; dropped: number } {
  const maxR = (opts.config ?? DEFAULT_PLAUSIBILITY_CONFIG).maxRangeM;
  const max2 = maxR * maxR;
  const { x, y, z, intensity } = p;
  const n = x.length;
  let bad = 0;
  let first = -1;
  let keep: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    // An intensity of NaN/Inf is as impossible as such a coordinate (it is added in so one test covers both).
    const r2 = x[i] * x[i] + y[i] * y[i] + z[i] * z[i] + intensity[i] * 0;
    if (r2 <= max2) continue;
    // r2 is NaN or Infinity when a coordinate is not finite (the log store drops those later).
    if (opts.allowNonFinite && !Number.isFinite(r2)) continue;
    if (bad === 0) {
      first = i;
      keep = new Uint8Array(n).fill(1);
    }
    keep![i] = 0;
    bad++;
  }
  if (bad === 0) return { points: p, dropped: 0 };
  if (opts.dropImplausible) return { points: keepPoints(p, keep!), dropped: bad };
  const r = Math.hypot(x[first], y[first], z[first]);
  const where = `(${fmt(x[first])}, ${fmt(y[first])}, ${fmt(z[first])})`;
  const why = !Number.isFinite(r)
    ? 'a non-finite coordinate'
    : r > maxR
      ? `${fmt(r)} m from the sensor, beyond any LiDAR's range (${maxR} m)`
      : `intensity ${intensity[first]}`;
  throw new InputError(
    file,
    `${bad} of ${n} points are implausible (point ${first} at ${where}: ${why}); ${DROP_HINT}`,
  );
}

/** Axis-aligned bounds a file declares for its own points (e.g. the LAS header's min/max). */
export interface DeclaredBounds {
  min: readonly [number, number, number];
  max: readonly [number, number, number];
  /** Slack on each side (coordinate quantum): writers round bounds to it. */
  tolerance: readonly [number, number, number];
}

/**
 * Indices of points outside the bounds a file declares: a LAS/LAZ point outside its own header's
 * bounding box was not written by the tool that wrote the header. Refuses or drops and counts.
 */
export function checkDeclaredBounds(
  cols: { x: ArrayLike<number>; y: ArrayLike<number>; z: ArrayLike<number> },
  bounds: DeclaredBounds,
  file: string,
  opts: PlausibilityOptions = {},
): { keep: Uint8Array | null; dropped: number } {
  const n = cols.x.length;
  const [x0, y0, z0] = bounds.min.map((v, j) => v - bounds.tolerance[j]);
  const [x1, y1, z1] = bounds.max.map((v, j) => v + bounds.tolerance[j]);
  let bad = 0;
  let first = -1;
  let keep: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    const x = cols.x[i];
    const y = cols.y[i];
    const z = cols.z[i];
    if (x >= x0 && x <= x1 && y >= y0 && y <= y1 && z >= z0 && z <= z1) continue;
    if (bad === 0) {
      first = i;
      keep = new Uint8Array(n).fill(1);
    }
    keep![i] = 0;
    bad++;
  }
  if (bad === 0 || opts.dropImplausible) return { keep, dropped: bad };
  const box = `[${bounds.min.map(fmt).join(', ')}]–[${bounds.max.map(fmt).join(', ')}]`;
  throw new InputError(
    file,
    `${bad} of ${n} points lie outside the header's bounds ${box} (point ${first} at (${fmt(cols.x[first])}, ${fmt(cols.y[first])}, ${fmt(cols.z[first])})); ${DROP_HINT}`,
  );
}
