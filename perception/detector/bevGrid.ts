// Bird's-eye-view feature grid of one sweep (PIXOR / PointPillars-style hand-made pillar features):
// per 0.2 m cell occupancy, max and mean height above ground, point density and mean intensity.
import type { PointCloud } from '../../core/arrow/records.ts';
import { lowerQuantileOfSorted } from '../../core/stats.ts';
import { intensityDivisor, type IntensityScale } from './intensityNorm.ts';

/** Points the detector reads: struct-of-arrays, vehicle frame. */
export type BevPoints = Pick<PointCloud, 'x' | 'y' | 'z' | 'intensity'>;

/**
 * A rectangle of BEV cells in the vehicle frame. Cell (row, col) covers
 * x ∈ [xMinM + col·cellM, xMinM + (col+1)·cellM) and y ∈ [yMinM + row·cellM, …): rows follow +y, columns +x.
 */
export interface BevGrid {
  xMinM: number;
  yMinM: number;
  cellM: number;
  rows: number;
  cols: number;
}

export interface BevFeatureConfig {
  /** Points lower than this above the ground level are left out (pits, reflections below the road). */
  minHeightM: number;
  /** Points higher than this above the ground level are left out (canopies, bridges); heights scale by it. */
  maxHeightM: number;
  /** Point count at which the density channel saturates at 1 (log scale below it). */
  densitySaturation: number;
  /**
   * Intensity is divided by this; 'auto' divides by 255 when the sweep holds values above 1.5 (8-bit
   * sources like AV2) and by 1 otherwise (KITTI's reflectance in [0, 1]); 'quantile' normalises each
   * sweep by its own upper quantile (intensityNorm.ts), so sources with other units share one scale.
   */
  intensityScale: IntensityScale;
  /** Quantile of the sweep's non-zero intensities that 'quantile' maps to 0.5. */
  intensityQuantile: number;
}

export const DEFAULT_BEV_FEATURE_CONFIG: BevFeatureConfig = {
  minHeightM: -0.3,
  maxHeightM: 3.7,
  densitySaturation: 32,
  intensityScale: 'auto',
  intensityQuantile: 0.9,
};

/** Channel order of the feature tensor [C, rows, cols]. */
export const BEV_CHANNELS = ['occupancy', 'max_height', 'mean_height', 'density', 'intensity'] as const;
export const BEV_CHANNEL_COUNT = BEV_CHANNELS.length;

/** The square grid ±rangeM around the vehicle (default ±51.2 m at 0.2 m → 512 × 512). */
export function centredGrid(rangeM: number, cellM: number): BevGrid {
  const n = Math.round((2 * rangeM) / cellM);
  if (!(n > 0) || Math.abs(n * cellM - 2 * rangeM) > 1e-6 * rangeM) {
    throw new Error(`grid ±${rangeM} m is not a whole number of ${cellM} m cells`);
  }
  return { xMinM: -rangeM, yMinM: -rangeM, cellM, rows: n, cols: n };
}

/** A grid of `rows × cols` cells of `cellM` centred at (cx, cy). */
export function gridAround(cx: number, cy: number, rows: number, cols: number, cellM: number): BevGrid {
  return { xMinM: cx - (cols * cellM) / 2, yMinM: cy - (rows * cellM) / 2, cellM, rows, cols };
}

export interface GroundLevelConfig {
  /** Ring of ranges whose lowest points vote for the ground level (ego returns inside, sparse far out). */
  minRangeM: number;
  maxRangeM: number;
  /** Size of the cells that each keep their lowest point. */
  cellM: number;
  /** Quantile of the per-cell lowest heights (low: ground dominates near the vehicle, pits are rare). */
  quantile: number;
}

export const DEFAULT_GROUND_LEVEL_CONFIG: GroundLevelConfig = {
  minRangeM: 3,
  maxRangeM: 25,
  cellM: 2,
  quantile: 0.3,
};

/**
 * Ground level near the vehicle in its own frame (KITTI's velodyne frame puts it near −1.73 m, AV2's
 * ego frame near 0): heights are measured from it so a model transfers between sensor mountings.
 * One pass over the points; 0 when the ring holds no points.
 */
export function estimateGroundZ(
  pts: Pick<PointCloud, 'x' | 'y' | 'z'>,
  cfg: GroundLevelConfig = DEFAULT_GROUND_LEVEL_CONFIG,
): number {
  const side = Math.ceil((2 * cfg.maxRangeM) / cfg.cellM);
  const lowest = new Float32Array(side * side).fill(Infinity);
  const r2min = cfg.minRangeM * cfg.minRangeM;
  const r2max = cfg.maxRangeM * cfg.maxRangeM;
  const inv = 1 / cfg.cellM;
  for (let i = 0; i < pts.x.length; i++) {
    const x = pts.x[i];
    const y = pts.y[i];
    const z = pts.z[i];
    const r2 = x * x + y * y;
    // NaN fails both comparisons.
    if (!(r2 >= r2min && r2 < r2max) || !(z - z === 0)) continue;
    const c = Math.floor((x + cfg.maxRangeM) * inv);
    const r = Math.floor((y + cfg.maxRangeM) * inv);
    const k = r * side + c;
    if (z < lowest[k]) lowest[k] = z;
  }
  const vals: number[] = [];
  for (let k = 0; k < lowest.length; k++) if (lowest[k] !== Infinity) vals.push(lowest[k]);
  if (vals.length === 0) return 0;
  vals.sort((a, b) => a - b);
  return lowerQuantileOfSorted(vals, cfg.quantile);
}

/**
 * Features of the points inside `grid`, written into `out` ([C, rows, cols] float32, channel order
 * BEV_CHANNELS; allocated when absent, zeroed first) at channel offset `outOffset` (a batch slot).
 * Heights are above `groundZ` and scaled to [0, 1] by maxHeightM; empty cells are all zero.
 * Cost: one pass over the points plus one over the cells.
 */
export function bevFeatures(
  pts: BevPoints,
  grid: BevGrid,
  groundZ: number,
  cfg: BevFeatureConfig = DEFAULT_BEV_FEATURE_CONFIG,
  out?: Float32Array,
  outOffset = 0,
): Float32Array {
  const { rows, cols, cellM, xMinM, yMinM } = grid;
  const plane = rows * cols;
  const size = BEV_CHANNEL_COUNT * plane;
  const f = out ?? new Float32Array(size);
  if (f.length < outOffset + size)
    throw new Error(`bevFeatures: output holds ${f.length} values, needs ${outOffset + size}`);
  f.fill(0, outOffset, outOffset + size);
  // One view per channel keeps the hot loop's indexing simple.
  const occ = f.subarray(outOffset, outOffset + plane);
  const maxH = f.subarray(outOffset + plane, outOffset + 2 * plane);
  const sumH = f.subarray(outOffset + 2 * plane, outOffset + 3 * plane);
  const count = f.subarray(outOffset + 3 * plane, outOffset + 4 * plane);
  const sumI = f.subarray(outOffset + 4 * plane, outOffset + 5 * plane);
  const inv = 1 / cellM;
  const hScale = 1 / cfg.maxHeightM;
  const lo = cfg.minHeightM;
  const hi = cfg.maxHeightM;
  const iScale = 1 / intensityDivisor(pts.intensity, cfg.intensityScale, cfg.intensityQuantile ?? 0.9);
  const { x, y, z, intensity } = pts;
  for (let i = 0; i < x.length; i++) {
    const h = z[i] - groundZ;
    if (!(h >= lo && h <= hi)) continue;
    const u = (x[i] - xMinM) * inv;
    const v = (y[i] - yMinM) * inv;
    // Also rejects NaN x/y (the comparisons fail); in range, truncation is the floor.
    if (!(u >= 0 && u < cols && v >= 0 && v < rows)) continue;
    const k = (v | 0) * cols + (u | 0);
    // Heights below the ground count as 0 so the channels stay in [0, 1] (and max starts at 0).
    const hn = h > 0 ? h * hScale : 0;
    if (hn > maxH[k]) maxH[k] = hn;
    sumH[k] += hn;
    count[k] += 1;
    const it = intensity[i] * iScale;
    if (it - it === 0) sumI[k] += it;
  }
  const logSat = 1 / Math.log1p(cfg.densitySaturation);
  for (let k = 0; k < plane; k++) {
    const n = count[k];
    if (n === 0) continue;
    occ[k] = 1;
    sumH[k] /= n;
    sumI[k] = Math.min(1, sumI[k] / n);
    count[k] = Math.min(1, Math.log1p(n) * logSat);
  }
  return f;
}
