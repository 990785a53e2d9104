// One oriented 3D box per point cluster: BEV rectangle from the convex hull, chosen on area plus mean
// point-to-edge distance (CPD's criterion; Zhang et al. 2017 "closeness"), height from the points down to the ground.
import { allocateBoxes, type Boxes, type XYZ } from '../core/arrow/records.ts';
import { convexHull } from '../core/geometry/polygon.ts';
import { hullExtents, minAreaRect, type Rect2, rectFromExtents } from '../core/geometry/minAreaRect.ts';
import type { ClusterResult } from './cluster.ts';
import { groundHeightAt, type GroundModel } from './ground.ts';
import type { ConfigRanges } from '../core/configSchema.ts';

export interface BoxFitConfig {
  /** 'closeness': hull-edge directions scored on area + closenessWeight·mean edge distance; 'minArea': smallest rectangle. */
  method: 'closeness' | 'minArea';
  /** m² per metre of mean point-to-edge distance in the closeness score. */
  closenessWeight: number;
  /** Points this close to the cluster bottom are left out of the BEV fit (ground residue widens boxes; CPD: 0.2 m). */
  trimBottomM: number;
  /** Points sampled per cluster for the closeness score (the hull uses all). */
  maxScorePoints: number;
  /** Fewest points a kept box may hold (within minPointsRefRangeM of the ego). */
  minPoints: number;
  /**
   * Beyond this BEV range the point minimum falls as minPoints·(minPointsRefRangeM / r)² (an object
   * returns ∝ 1/r² points), never below minPointsFloor: far pedestrians keep their boxes. 0: off.
   */
  minPointsRefRangeM: number;
  /** The lowest point minimum the range scaling reaches. */
  minPointsFloor: number;
  /** Box height (top point down to the ground) limits; CPD drops clusters taller than 4 m, keeps > 0.3 m. */
  minHeightM: number;
  maxHeightM: number;
  /** Longest and widest footprint kept (CPD: length < 10 m). */
  maxLengthM: number;
  maxWidthM: number;
  /** Volume limits (CPD: 0.1–200 m³). */
  minVolumeM3: number;
  maxVolumeM3: number;
  /** Clusters whose lowest point floats higher than this above the ground (canopies, signs) are dropped. */
  maxBottomAboveGroundM: number;
  /** Extend each box down to the ground below it: the lower part of objects is often occluded. */
  extendToGround: boolean;
  /**
   * Footprint sides shorter than this grow to it away from the sensor, their near edge kept: a small
   * object shows only its near surface (a pedestrian's front: 0.5 × 0.3 m of a 0.6 × 0.7 m box). 0: off.
   */
  minFootprintM: number;
  /**
   * Only boxes no longer than this grow: people, poles, bollards. Longer thin boxes are walls and hedges,
   * whose thinness the refinement's structure filter reads.
   */
  padMaxLengthM: number;
  /** Score = n / (n + scoreHalfPoints) for a cluster of n points: denser clusters rank first. */
  scoreHalfPoints: number;
}

export const DEFAULT_BOXFIT_CONFIG: BoxFitConfig = {
  method: 'closeness',
  closenessWeight: 1,
  trimBottomM: 0.2,
  maxScorePoints: 256,
  // 6 (was 10), with the clustering's minimum, chosen by cross-validation (docs/discovery.md).
  minPoints: 6,
  minPointsRefRangeM: 0,
  minPointsFloor: 4,
  minHeightM: 0.3,
  maxHeightM: 4,
  maxLengthM: 10,
  maxWidthM: 4,
  minVolumeM3: 0.1,
  maxVolumeM3: 200,
  maxBottomAboveGroundM: 1,
  extendToGround: true,
  // 0.6 m: chosen by cross-validation (docs/discovery.md); a person is about 0.6 m across, and every
  // data set gained (synthetic 32/64/128 beams +1–3 AP, AV2 +1.5).
  minFootprintM: 0.6,
  padMaxLengthM: 1.2,
  scoreHalfPoints: 30,
};

/** Allowed values of each field (core/configSchema.ts checks user overrides against them). */
export const BOXFIT_CONFIG_RANGES: ConfigRanges<BoxFitConfig> = {
  method: { oneOf: ['closeness', 'minArea'] },
  closenessWeight: { min: 0 },
  trimBottomM: { min: 0 },
  maxScorePoints: { integer: true, min: 1 },
  minPoints: { integer: true, min: 1 },
  minPointsRefRangeM: { min: 0 },
  minPointsFloor: { min: 1 },
  minHeightM: { min: 0 },
  maxHeightM: { above: 0 },
  maxLengthM: { above: 0 },
  maxWidthM: { above: 0 },
  minVolumeM3: { min: 0 },
  maxVolumeM3: { above: 0 },
  minFootprintM: { min: 0 },
  padMaxLengthM: { min: 0 },
  scoreHalfPoints: { above: 0 },
};

export interface BoxFitStats {
  clusters: number;
  kept: number;
  rejected: { points: number; floating: number; height: number; size: number; volume: number };
}

export interface BoxFitResult {
  boxes: Boxes;
  stats: BoxFitStats;
}

/**
 * The rectangle of a 2D point set chosen among the hull-edge directions (the candidates rotating
 * calipers visit) by area + weight·mean distance of the points to their nearest edge.
 */
export function closenessRect(
  xs: Float64Array,
  ys: Float64Array,
  m: number,
  weight: number,
  maxScorePoints: number,
): Rect2 {
  const hull = m > 64 ? columnHull(xs, ys, m) : convexHull(xs.subarray(0, m), ys.subarray(0, m));
  const h = hull.length >> 1;
  if (h < 3) return minAreaRect(xs.subarray(0, m), ys.subarray(0, m));
  const step = Math.max(1, Math.floor(m / maxScorePoints));
  let best = Infinity;
  let out: Rect2 = { cx: 0, cy: 0, length: 0, width: 0, yaw: 0 };
  const ext = new Float64Array(4);
  for (let e = 0; e < h; e++) {
    const ex = hull[(2 * e + 2) % (2 * h)] - hull[2 * e];
    const ey = hull[(2 * e + 3) % (2 * h)] - hull[2 * e + 1];
    const norm = Math.hypot(ex, ey);
    if (norm === 0) continue;
    const ux = ex / norm;
    const uy = ey / norm;
    hullExtents(hull, h, ux, uy, ext);
    const [minU, maxU, minV, maxV] = ext;
    const area = (maxU - minU) * (maxV - minV);
    if (area >= best) continue; // the distance term is non-negative: it cannot win
    let dist = 0;
    let cnt = 0;
    for (let i = 0; i < m; i += step) {
      const u = xs[i] * ux + ys[i] * uy;
      const v = -xs[i] * uy + ys[i] * ux;
      dist += Math.min(u - minU, maxU - u, v - minV, maxV - v);
      cnt++;
    }
    const score = area + (weight * dist) / cnt;
    if (score < best) {
      best = score;
      out = rectFromExtents(ux, uy, ext);
    }
  }
  return out;
}

/**
 * Convex hull of many points in linear time: points fall into narrow x columns (≤ 2 cm, at most 1024
 * columns); each column's lowest and highest point, already in x order, feed the two chains of Andrew's
 * monotone chain without a sort. The hull is exact up to the column width.
 */
export function columnHull(xs: Float64Array, ys: Float64Array, m: number): Float64Array {
  let minX = Infinity;
  let maxX = -Infinity;
  for (let i = 0; i < m; i++) {
    if (xs[i] < minX) minX = xs[i];
    if (xs[i] > maxX) maxX = xs[i];
  }
  const cols = Math.max(1, Math.min(1024, Math.ceil((maxX - minX) / 0.02)));
  const w = (maxX - minX) / cols || 1;
  const lo = new Int32Array(cols).fill(-1);
  const hi = new Int32Array(cols).fill(-1);
  for (let i = 0; i < m; i++) {
    const c = Math.min(cols - 1, Math.floor((xs[i] - minX) / w));
    if (lo[c] < 0 || ys[i] < ys[lo[c]]) lo[c] = i;
    if (hi[c] < 0 || ys[i] > ys[hi[c]]) hi[c] = i;
  }
  const chain = new Int32Array(2 * cols + 3);
  const cross = (o: number, a: number, b: number) =>
    (xs[a] - xs[o]) * (ys[b] - ys[o]) - (ys[a] - ys[o]) * (xs[b] - xs[o]);
  let k = 0;
  // Lower chain left to right over the column minima, then upper chain right to left over the maxima.
  for (let c = 0; c < cols; c++) {
    const i = lo[c];
    if (i < 0) continue;
    while (k >= 2 && cross(chain[k - 2], chain[k - 1], i) <= 0) k--;
    chain[k++] = i;
  }
  const lower = k + 1;
  for (let c = cols - 1; c >= 0; c--) {
    const i = hi[c];
    if (i < 0) continue;
    while (k >= lower && cross(chain[k - 2], chain[k - 1], i) <= 0) k--;
    chain[k++] = i;
  }
  // Close the upper chain on the first point (it pops anything that would bend the wrong way), then
  // drop that repeat.
  while (k >= lower && cross(chain[k - 2], chain[k - 1], chain[0]) <= 0) k--;
  chain[k++] = chain[0];
  const n = Math.max(1, k - 1);
  const out = new Float64Array(2 * n);
  for (let j = 0; j < n; j++) {
    out[2 * j] = xs[chain[j]];
    out[2 * j + 1] = ys[chain[j]];
  }
  return out;
}

/** Point indices sorted by cluster, kept between calls (a fresh per-point array costs page faults and GC). */
let orderScratch = new Int32Array(0);

/** Fit a box to every cluster and keep those that pass the size, height and point-count filters. */
export function fitBoxes(
  pts: XYZ,
  clusters: ClusterResult,
  ground: GroundModel | null,
  config: Partial<BoxFitConfig> = {},
  frameIndex = 0,
): BoxFitResult {
  const cfg: BoxFitConfig = { ...DEFAULT_BOXFIT_CONFIG, ...config };
  const { labels, count } = clusters;
  // Counting sort of point indices by cluster.
  const start = new Int32Array(count + 1);
  for (let i = 0; i < labels.length; i++) if (labels[i] >= 0) start[labels[i] + 1]++;
  for (let c = 0; c < count; c++) start[c + 1] += start[c];
  if (orderScratch.length < start[count]) orderScratch = new Int32Array(Math.ceil(start[count] * 1.25));
  const order = orderScratch;
  const fill = start.slice(0, count);
  for (let i = 0; i < labels.length; i++) if (labels[i] >= 0) order[fill[labels[i]]++] = i;
  let largest = 0;
  for (let c = 0; c < count; c++) largest = Math.max(largest, start[c + 1] - start[c]);
  const xs = new Float64Array(largest);
  const ys = new Float64Array(largest);
  const px = pts.x;
  const py = pts.y;
  const pz = pts.z;

  const stats: BoxFitStats = {
    clusters: count,
    kept: 0,
    rejected: { points: 0, floating: 0, height: 0, size: 0, volume: 0 },
  };
  const ref2 = cfg.minPointsRefRangeM * cfg.minPointsRefRangeM;
  const minPointsAt = (x: number, y: number): number => {
    const d2 = x * x + y * y;
    return ref2 === 0 || d2 <= ref2
      ? cfg.minPoints
      : Math.max(cfg.minPointsFloor, (cfg.minPoints * ref2) / d2);
  };
  const out = allocateBoxes(count);
  const maxDiagonal2 = cfg.maxLengthM * cfg.maxLengthM + cfg.maxWidthM * cfg.maxWidthM;
  let k = 0;
  for (let c = 0; c < count; c++) {
    const s = start[c];
    const e = start[c + 1];
    const np = e - s;
    if (np < cfg.minPointsFloor && np < cfg.minPoints) {
      stats.rejected.points++;
      continue;
    }
    let zMin = Infinity;
    let zMax = -Infinity;
    for (let j = s; j < e; j++) {
      const z = pz[order[j]];
      if (z < zMin) zMin = z;
      if (z > zMax) zMax = z;
    }
    // BEV fit on points above the trimmed bottom (all of them if too few remain).
    const cut = zMin + cfg.trimBottomM;
    let m = 0;
    for (let j = s; j < e; j++) {
      const i = order[j];
      if (pz[i] >= cut) {
        xs[m] = px[i];
        ys[m] = py[i];
        m++;
      }
    }
    if (m < 3) {
      m = 0;
      for (let j = s; j < e; j++) {
        xs[m] = px[order[j]];
        ys[m] = py[order[j]];
        m++;
      }
    }
    // A cluster whose axis-aligned extent already exceeds the largest allowed diagonal fails the size
    // test in any orientation (a rectangle holding the points has a diagonal ≥ their extent): skip the
    // hull and rectangle search, the cost of the big clusters (walls, hedges, buildings).
    let x0 = Infinity;
    let x1 = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (let j = 0; j < m; j++) {
      const x = xs[j];
      const y = ys[j];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    const extent = Math.max(x1 - x0, y1 - y0);
    if (extent * extent > maxDiagonal2) {
      stats.rejected.size++;
      continue;
    }
    const rect =
      cfg.method === 'minArea'
        ? minAreaRect(xs.subarray(0, m), ys.subarray(0, m))
        : closenessRect(xs, ys, m, cfg.closenessWeight, cfg.maxScorePoints);
    if (np < minPointsAt(rect.cx, rect.cy)) {
      stats.rejected.points++;
      continue;
    }
    const groundZ = ground ? groundHeightAt(ground, rect.cx, rect.cy) : zMin;
    if (zMin - groundZ > cfg.maxBottomAboveGroundM) {
      stats.rejected.floating++;
      continue;
    }
    const bottom = cfg.extendToGround ? Math.min(zMin, groundZ) : zMin;
    const height = zMax - bottom;
    if (height < cfg.minHeightM || height > cfg.maxHeightM) {
      stats.rejected.height++;
      continue;
    }
    if (rect.length > cfg.maxLengthM || rect.width > cfg.maxWidthM) {
      stats.rejected.size++;
      continue;
    }
    const volume = rect.length * rect.width * height;
    if (volume < cfg.minVolumeM3 || volume > cfg.maxVolumeM3) {
      stats.rejected.volume++;
      continue;
    }
    if (cfg.minFootprintM > 0 && rect.length <= cfg.padMaxLengthM) padFootprint(rect, cfg.minFootprintM);
    out.frameIndex[k] = frameIndex;
    out.cx[k] = rect.cx;
    out.cy[k] = rect.cy;
    out.cz[k] = bottom + height / 2;
    out.length[k] = rect.length;
    out.width[k] = rect.width;
    out.height[k] = height;
    out.yaw[k] = rect.yaw;
    out.numPoints[k] = np;
    out.score[k] = np / (np + cfg.scoreHalfPoints);
    k++;
  }
  stats.kept = k;
  return { boxes: sliceBoxes(out, k), stats };
}

/**
 * Grow a rectangle's sides shorter than `minM` to `minM`, in place, moving its centre away from the
 * sensor at the origin so that the side facing the sensor stays where the points are.
 */
export function padFootprint(rect: Rect2, minM: number): void {
  const ux = Math.cos(rect.yaw);
  const uy = Math.sin(rect.yaw);
  // Along the length (u) and the width (v = u turned left): grow by the deficit, shift by half of it
  // in the direction pointing away from the origin.
  const along = rect.cx * ux + rect.cy * uy;
  const across = -rect.cx * uy + rect.cy * ux;
  if (rect.length < minM) {
    const d = (minM - rect.length) / 2;
    const s = along >= 0 ? 1 : -1;
    rect.cx += s * d * ux;
    rect.cy += s * d * uy;
    rect.length = minM;
  }
  if (rect.width < minM) {
    const d = (minM - rect.width) / 2;
    const s = across >= 0 ? 1 : -1;
    rect.cx -= s * d * uy;
    rect.cy += s * d * ux;
    rect.width = minM;
  }
}

/** The first n rows of a box set, as views. */
export function sliceBoxes(b: Boxes, n: number): Boxes {
  return {
    frameIndex: b.frameIndex.subarray(0, n),
    trackId: b.trackId.subarray(0, n),
    label: b.label.slice(0, n),
    score: b.score.subarray(0, n),
    cx: b.cx.subarray(0, n),
    cy: b.cy.subarray(0, n),
    cz: b.cz.subarray(0, n),
    length: b.length.subarray(0, n),
    width: b.width.subarray(0, n),
    height: b.height.subarray(0, n),
    yaw: b.yaw.subarray(0, n),
    numPoints: b.numPoints.subarray(0, n),
  };
}
