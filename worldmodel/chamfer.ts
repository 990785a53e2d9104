// Chamfer distance between point clouds as the 4D-Occ protocol computes it (squared distances, ½ the sum
// of the two directions' means), with nearest neighbours found in a uniform xy grid instead of pairwise.
import { selectPoints, type SensorPoints } from './voxelize.ts';

/** A CSR grid over the xy bounding box of a cloud: cell → the indices of its points. */
interface XyGrid {
  minX: number;
  minY: number;
  cellM: number;
  cols: number;
  rows: number;
  start: Int32Array;
  items: Int32Array;
}

function buildGrid(p: SensorPoints, cellM: number): XyGrid {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < p.x.length; i++) {
    minX = Math.min(minX, p.x[i]);
    maxX = Math.max(maxX, p.x[i]);
    minY = Math.min(minY, p.y[i]);
    maxY = Math.max(maxY, p.y[i]);
  }
  const cols = Math.max(1, Math.floor((maxX - minX) / cellM) + 1);
  const rows = Math.max(1, Math.floor((maxY - minY) / cellM) + 1);
  const cellOf = new Int32Array(p.x.length);
  const start = new Int32Array(cols * rows + 1);
  for (let i = 0; i < p.x.length; i++) {
    const c = Math.floor((p.y[i] - minY) / cellM) * cols + Math.floor((p.x[i] - minX) / cellM);
    cellOf[i] = c;
    start[c + 1]++;
  }
  for (let c = 0; c < cols * rows; c++) start[c + 1] += start[c];
  const fill = start.slice(0, cols * rows);
  const items = new Int32Array(p.x.length);
  for (let i = 0; i < p.x.length; i++) items[fill[cellOf[i]]++] = i;
  return { minX, minY, cellM, cols, rows, start, items };
}

/** For every point of `from`, the squared distance to its nearest point of `to` (to must not be empty). */
export function nearestSquaredDistances(from: SensorPoints, to: SensorPoints, cellM = 0.5): Float64Array {
  if (to.x.length === 0) throw new Error('nearestSquaredDistances: the target cloud is empty');
  const g = buildGrid(to, cellM);
  const out = new Float64Array(from.x.length);
  for (let i = 0; i < from.x.length; i++) {
    const x = from.x[i];
    const y = from.y[i];
    const z = from.z[i];
    const cx = Math.floor((x - g.minX) / cellM);
    const cy = Math.floor((y - g.minY) / cellM);
    let best = Infinity;
    // The query's distance to its own cell's nearest edge: every point in ring r + 1 or beyond is at
    // least (r + edge)·cellM away in xy.
    const fx = (x - g.minX) / cellM - cx;
    const fy = (y - g.minY) / cellM - cy;
    const edge = Math.min(fx, 1 - fx, fy, 1 - fy);
    for (let r = 0; ; r++) {
      for (let yy = cy - r; yy <= cy + r; yy++) {
        if (yy < 0 || yy >= g.rows) continue;
        const ring = yy === cy - r || yy === cy + r;
        for (let xx = cx - r; xx <= cx + r; xx += ring ? 1 : 2 * r) {
          if (xx >= 0 && xx < g.cols) {
            const c = yy * g.cols + xx;
            for (let k = g.start[c]; k < g.start[c + 1]; k++) {
              const j = g.items[k];
              const d = (to.x[j] - x) ** 2 + (to.y[j] - y) ** 2 + (to.z[j] - z) ** 2;
              if (d < best) best = d;
            }
          }
          if (r === 0) break;
        }
      }
      const reach = (r + edge) * cellM;
      if (best <= reach * reach) break;
      if (cx - r <= 0 && cy - r <= 0 && cx + r >= g.cols - 1 && cy + r >= g.rows - 1) break;
    }
    out[i] = best;
  }
  return out;
}

const mean = (a: Float64Array) => {
  let s = 0;
  for (const v of a) s += v;
  return s / a.length;
};

/** ½ (mean over a of min‖a − b‖² + mean over b of min‖b − a‖²); NaN when either cloud is empty. */
export function chamferSquared(a: SensorPoints, b: SensorPoints): number {
  if (a.x.length === 0 || b.x.length === 0) return NaN;
  return 0.5 * (mean(nearestSquaredDistances(a, b)) + mean(nearestSquaredDistances(b, a)));
}

/** Mean of the smallest `keep` share of `a` (0.99: the worst 1 % of distances dropped). */
export function trimmedMean(a: Float64Array, keep: number): number {
  if (a.length === 0) return NaN;
  const s = Float64Array.from(a).sort();
  const n = Math.max(1, Math.floor(s.length * keep));
  let t = 0;
  for (let i = 0; i < n; i++) t += s[i];
  return t / n;
}

/** Median of `a` (the lower middle of an even count). */
export function medianOf(a: Float64Array): number {
  if (a.length === 0) return NaN;
  const s = Float64Array.from(a).sort();
  return s[Math.floor((s.length - 1) / 2)];
}

/** The squared Chamfer with each direction's mean, median and 99 %-trimmed mean (outlier-robust variants). */
export interface ChamferStats {
  mean: number;
  median: number;
  trimmed: number;
}

/** ½ (f(a→b) + f(b→a)) for f = mean, median and the 99 %-trimmed mean of the squared distances. */
export function chamferStats(a: SensorPoints, b: SensorPoints): ChamferStats {
  if (a.x.length === 0 || b.x.length === 0) return { mean: NaN, median: NaN, trimmed: NaN };
  const ab = nearestSquaredDistances(a, b);
  const ba = nearestSquaredDistances(b, a);
  return {
    mean: 0.5 * (mean(ab) + mean(ba)),
    median: 0.5 * (medianOf(ab) + medianOf(ba)),
    trimmed: 0.5 * (trimmedMean(ab, 0.99) + trimmedMean(ba, 0.99)),
  };
}

/** The points inside |x| ≤ halfX, |y| ≤ halfY, |z| ≤ halfZ (4D-Occ's near field: 70, 70, 4.5 m). */
export function cropBox(p: SensorPoints, halfX: number, halfY: number, halfZ: number): SensorPoints {
  const keep = new Int32Array(p.x.length);
  let n = 0;
  for (let i = 0; i < p.x.length; i++)
    if (Math.abs(p.x[i]) <= halfX && Math.abs(p.y[i]) <= halfY && Math.abs(p.z[i]) <= halfZ) keep[n++] = i;
  return selectPoints(p, keep, n);
}
