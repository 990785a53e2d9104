// 4D-Occ's ray-trace baseline (Khurana et al., CVPR 2023): each true future ray takes the range of the past
// point nearest to it in direction — raw, depth-clamped to the region, or with a flat-ground fallback.
import type { TokenizerConfig } from '../config.ts';
import { regionExitM, type Rays } from '../rays.ts';
import type { SensorPoints } from '../voxelize.ts';

export type RayTraceVariant = 'raw' | 'clamped' | 'ground';

/** Direction bins of the search and how far it looks (in bins) for a past point around a ray. */
export const RAY_TRACE = {
  azimuthDeg: 0.2,
  elevationDeg: 0.2,
  minElevationDeg: -60,
  maxElevationDeg: 40,
  /** Rings of bins searched around a ray's own bin: 5 × 0.2° = 1°; beyond that the ray has no past point. */
  maxRing: 5,
  /** The ground fallback's horizontal band for estimating the ground height (m from the sensor). */
  groundBandM: [4, 25] as const,
};

/** Depth along each ray for each variant: the three share one search. */
export interface RayTraceDepths {
  raw: Float32Array;
  clamped: Float32Array;
  ground: Float32Array;
  /** Share of the rays with no past point within the search radius. */
  missShare: number;
  /** 1 for each ray with no past point within the search radius. */
  miss: Uint8Array;
  /** The flat ground's height below the sensor that the fallback used (`groundHeightM`; NaN: none found). */
  groundM: number;
}

/**
 * Math.hypot(x, y, z) to the last bit for finite arguments, without the builtin's call cost (a third of
 * the old binning's time): the same operations in the same order as V8's builtin (src/builtins/math.tq: scale by the
 * largest magnitude, Kahan-sum the squares, sqrt, scale back). A test checks it against Math.hypot.
 */
export function hypot3(x: number, y: number, z: number): number {
  const max = Math.max(Math.abs(x), Math.abs(y), Math.abs(z));
  if (max === 0) return 0;
  const nx = Math.abs(x) / max;
  const ny = Math.abs(y) / max;
  const nz = Math.abs(z) / max;
  // Kahan summation of nx², ny², nz² (the compensation is still 0 after the first term).
  const sum = nx * nx + ny * ny;
  const comp = sum - nx * nx - ny * ny;
  return Math.sqrt(sum + (nz * nz - comp)) * max;
}

/**
 * The ground's height below the sensor: the mean z of the most populated 0.1 m band of z among the points
 * 4–25 m away horizontally and below the sensor — the road dominates a driving sweep there. NaN when none.
 */
export function groundHeightM(cloud: SensorPoints): number {
  const [lo, hi] = RAY_TRACE.groundBandM;
  // x² + y² (exact squares of float32 values, one rounding) decides the band test as Math.hypot would (it is
  // a few ulps from the true value) unless it lies within a relative 1e-9 of a band edge: there, Math.hypot.
  const loIn = lo * lo * (1 + 1e-9);
  const loOut = lo * lo * (1 - 1e-9);
  const hiIn = hi * hi * (1 - 1e-9);
  const hiOut = hi * hi * (1 + 1e-9);
  const bins = new Int32Array(60); // z from −6 m to 0 in 0.1 m bins
  const sums = new Float64Array(60);
  let any = false;
  for (let i = 0; i < cloud.x.length; i++) {
    const z = cloud.z[i];
    if (z >= 0 || z < -6) continue;
    const x = cloud.x[i];
    const y = cloud.y[i];
    const sq = x * x + y * y;
    if (sq < loOut || sq > hiOut) continue;
    if (sq < loIn || sq > hiIn) {
      const r = Math.hypot(x, y);
      if (r < lo || r > hi) continue;
    }
    const b = Math.min(59, Math.floor((z + 6) / 0.1));
    bins[b]++;
    sums[b] += z;
    any = true;
  }
  if (!any) return NaN;
  let best = 0;
  for (let b = 1; b < bins.length; b++) if (bins[b] > bins[best]) best = b;
  return sums[best] / bins[best];
}

const DEG = 180 / Math.PI;

/** The search's direction bins (A in azimuth × E in elevation) and the unit vectors of the azimuth edges. */
export interface BinTables {
  key: string;
  A: number;
  E: number;
  /** (cos, sin) of azimuth edge k, at k · azimuthDeg − 180°, k = 0 … A. */
  azCos: Float64Array;
  azSin: Float64Array;
}

let tables: BinTables | null = null;

function binTables(): BinTables {
  const rt = RAY_TRACE;
  const key = `${rt.azimuthDeg} ${rt.elevationDeg} ${rt.minElevationDeg} ${rt.maxElevationDeg}`;
  if (tables?.key === key) return tables;
  const A = Math.round(360 / rt.azimuthDeg);
  const E = Math.round((rt.maxElevationDeg - rt.minElevationDeg) / rt.elevationDeg);
  const azCos = new Float64Array(A + 1);
  const azSin = new Float64Array(A + 1);
  for (let k = 0; k <= A; k++) {
    const phi = (k * rt.azimuthDeg - 180) / DEG;
    azCos[k] = Math.cos(phi);
    azSin[k] = Math.sin(phi);
  }
  tables = { key, A, E, azCos, azSin };
  return tables;
}

/** The elevation bin of a direction whose z component is `dz` (−1 … 1); outside 0 … E − 1: no bin. */
function elevationBin(dz: number): number {
  return Math.floor((Math.asin(dz) * DEG - RAY_TRACE.minElevationDeg) / RAY_TRACE.elevationDeg);
}

/** The azimuth bin (0 … A − 1) of a direction with horizontal components (x, y), by Math.atan2. */
export function azimuthBinExact(x: number, y: number, A: number): number {
  return Math.floor((Math.atan2(y, x) * DEG + 180) / RAY_TRACE.azimuthDeg) % A;
}

/** arctan(u) for 0 ≤ u ≤ 1 within 2e-8 rad (Abramowitz & Stegun 4.4.49). */
function atanUnit(u: number): number {
  const s = u * u;
  let p = 0.0028662257;
  p = -0.0161657367 + s * p;
  p = 0.0429096138 + s * p;
  p = -0.07528964 + s * p;
  p = 0.1065626393 + s * p;
  p = -0.1420889944 + s * p;
  p = 0.1999355085 + s * p;
  p = -0.3333314528 + s * p;
  return u * (1 + s * p);
}

/**
 * azimuthBinExact(x, y, A) to the bit, without Math.atan2 (the costliest part of binning a point) wherever the
 * direction is more than 1e-9 rad inside its bin: a candidate bin from a polynomial arctangent, accepted only
 * if the cross products with the bin's edge vectors (ρ sin(θ − φ)) put (x, y) past its lower edge and before
 * its upper one by that margin. Math.atan2 and the bin formula round by about 1e-15 rad, so they give the same
 * bin there; nearer an edge (or for x = y = 0) it is atan2's.
 */
export function azimuthBin(x: number, y: number, t: BinTables = binTables()): number {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const sum = ax + ay;
  if (sum > 0) {
    let th = ax > ay ? atanUnit(ay / ax) : Math.PI / 2 - atanUnit(ax / ay);
    if (x < 0) th = Math.PI - th;
    if (y < 0) th = -th;
    const k = Math.floor((th * DEG + 180) / RAY_TRACE.azimuthDeg);
    const margin = 1e-9 * sum; // ≥ 1e-9 ρ
    if (
      k >= 0 &&
      k < t.A &&
      t.azCos[k] * y - t.azSin[k] * x > margin &&
      t.azCos[k + 1] * y - t.azSin[k + 1] * x < -margin
    )
      return k;
  }
  return azimuthBinExact(x, y, t.A);
}

/**
 * The cloud's points with a direction bin, sorted by bin (stably: within a bin in cloud order) with their unit
 * directions and ranges interleaved: `dirRange[4q..4q+3]` = ux, uy, uz, range of the q-th point in bin order.
 * Only elevation rows `eMin..eMax` (the rows holding points) get a slot, each W = A + 2·pad bins wide: azimuth
 * bin a at column a + pad, and the pad bins at either end of the circle once more beyond the other end, so the
 * run of bins within `pad` of any azimuth is one slice of points. Bin (e, column) is `(e − eMin) · W + column`,
 * its points `start[b] ≤ q < start[b + 1]`.
 */
interface BinnedCloud {
  eMin: number;
  eMax: number;
  W: number;
  pad: number;
  start: Int32Array;
  dirRange: Float32Array;
}

// Scratch reused across calls (each call overwrites what it reads; calls are synchronous, so never shared):
// fresh per-point arrays and bin table every call cost a few ms more, in page faults and zeroing.
let slotScratch = new Int32Array(0);
let twinScratch = new Int32Array(0);
let unsortedScratch = new Float32Array(0);
let sortedScratch = new Float32Array(0);
let startScratch = new Int32Array(0);

function binCloud(cloud: SensorPoints): BinnedCloud {
  const t = binTables();
  const { A, E } = t;
  const pad = RAY_TRACE.maxRing;
  const W = A + 2 * pad;
  const n = cloud.x.length;
  if (slotScratch.length < n) {
    slotScratch = new Int32Array(n);
    twinScratch = new Int32Array(n);
    unsortedScratch = new Float32Array(4 * n);
  }
  // Each point's bin (e · W + a + pad, rows counted from 0) and, for the pad bins at either end of the circle,
  // its copy beyond the other end; −1: none.
  const slot = slotScratch;
  const twin = twinScratch;
  const unsorted = unsortedScratch;
  let eMin = E;
  let eMax = -1;
  for (let i = 0; i < n; i++) {
    slot[i] = -1;
    twin[i] = -1;
    const x = cloud.x[i];
    const y = cloud.y[i];
    const z = cloud.z[i];
    const r = hypot3(x, y, z);
    // NaN or infinite coordinates give a NaN range: no direction, so no bin.
    if (!(r >= 1e-3)) continue;
    const dz = z / r;
    const e = elevationBin(dz);
    if (e < 0 || e >= E) continue;
    const a = azimuthBin(x, y, t);
    slot[i] = e * W + a + pad;
    if (a < pad) twin[i] = slot[i] + A;
    else if (a >= A - pad) twin[i] = slot[i] - A;
    unsorted[4 * i] = x / r;
    unsorted[4 * i + 1] = y / r;
    unsorted[4 * i + 2] = dz;
    unsorted[4 * i + 3] = r;
    if (e < eMin) eMin = e;
    if (e > eMax) eMax = e;
  }
  const size = eMax >= eMin ? (eMax - eMin + 1) * W : 0;
  if (startScratch.length < size + 1) startScratch = new Int32Array(size + 1);
  const start = startScratch;
  start.fill(0, 0, size + 1);
  const shift = eMin * W;
  // Counting sort: counts, running ends, then each point placed from the back (so a bin keeps cloud order),
  // which moves its bin's entry down to the bin's first slot.
  for (let i = 0; i < n; i++) {
    if (slot[i] < 0) continue;
    start[slot[i] - shift]++;
    if (twin[i] >= 0) start[twin[i] - shift]++;
  }
  for (let b = 1; b < size; b++) start[b] += start[b - 1];
  const m = size > 0 ? start[size - 1] : 0;
  start[size] = m;
  if (sortedScratch.length < 4 * m) sortedScratch = new Float32Array(4 * m);
  const sorted = sortedScratch;
  for (let i = n - 1; i >= 0; i--) {
    if (slot[i] < 0) continue;
    for (let copy = 0; copy < 2; copy++) {
      const b = copy === 0 ? slot[i] : twin[i];
      if (b < 0) break;
      const q = --start[b - shift];
      sorted[4 * q] = unsorted[4 * i];
      sorted[4 * q + 1] = unsorted[4 * i + 1];
      sorted[4 * q + 2] = unsorted[4 * i + 2];
      sorted[4 * q + 3] = unsorted[4 * i + 3];
    }
  }
  return { eMin, eMax, W, pad, start, dirRange: sorted };
}

/**
 * For every ray (unit direction, sensor at the origin), the range of the cloud's point with the smallest angle
 * to it among those within `maxRing` bins. raw: that range (a ray with none gets the region exit); clamped: the
 * same, never beyond the region exit; ground: clamped, and a downward ray with none meets the flat ground at
 * `groundHeightM(cloud)` (or the region exit, whichever is nearer).
 */
export function rayTracePast(cfg: TokenizerConfig, cloud: SensorPoints, rays: Rays): RayTraceDepths {
  const t = binTables();
  const binned = binCloud(cloud);
  const ground = groundHeightM(cloud);
  const out: RayTraceDepths = {
    raw: new Float32Array(rays.count),
    clamped: new Float32Array(rays.count),
    ground: new Float32Array(rays.count),
    missShare: 0,
    miss: new Uint8Array(rays.count),
    groundM: ground,
  };
  let misses = 0;
  for (let k = 0; k < rays.count; k++) {
    const dx = rays.dirX[k];
    const dy = rays.dirY[k];
    const dz = rays.dirZ[k];
    const exit = regionExitM(cfg, dx, dy, dz);
    const e0 = elevationBin(Math.max(-1, Math.min(1, dz)));
    const a0 = azimuthBin(dx, dy, t);
    const range = nearestRange(binned, dx, dy, dz, e0, a0);
    if (range === range) {
      out.raw[k] = range;
      out.clamped[k] = Math.min(range, exit);
      out.ground[k] = out.clamped[k];
    } else {
      misses++;
      out.miss[k] = 1;
      out.raw[k] = exit;
      out.clamped[k] = exit;
      out.ground[k] = dz < 0 && Number.isFinite(ground) ? Math.min(exit, ground / dz) : exit;
    }
  }
  out.missShare = rays.count ? misses / rays.count : 0;
  return out;
}

/** Whether the square of bins within R of (e0, column c0) holds any point. */
function anyWithin(c: BinnedCloud, e0: number, c0: number, R: number): boolean {
  for (let e = Math.max(e0 - R, c.eMin); e <= Math.min(e0 + R, c.eMax); e++) {
    const b = (e - c.eMin) * c.W + c0;
    if (c.start[b + R + 1] > c.start[b - R]) return true;
  }
  return false;
}

/**
 * The range of the point with the largest dot product with the ray (d) among those within ring r* + 1 of
 * bins around the ray's bin (e0, a0), r* being the first ring holding a point (at most `maxRing`); NaN when
 * none. The ray is anywhere in its bin, so ring r* + 1 may still hold a closer point than ring r*.
 *
 * Equal dot products go to the first point in ring-by-ring order (ring, then elevation, then azimuth, then
 * cloud order within a bin), as a ring-by-ring search would find them; the square itself is read row by row,
 * each row's run of bins being one slice of points.
 */
function nearestRange(c: BinnedCloud, dx: number, dy: number, dz: number, e0: number, a0: number): number {
  const maxRing = RAY_TRACE.maxRing;
  const c0 = a0 + c.pad;
  let R = -1;
  for (let r = 0; r <= maxRing; r++)
    if (anyWithin(c, e0, c0, r)) {
      R = Math.min(r + 1, maxRing);
      break;
    }
  if (R < 0) return NaN;
  const { start, dirRange: p } = c;
  let bestDot = -2;
  let bestRange = NaN;
  let bestQ = -1;
  let bestDe = 0;
  for (let de = -R; de <= R; de++) {
    const e = e0 + de;
    if (e < c.eMin || e > c.eMax) continue;
    const b = (e - c.eMin) * c.W + c0;
    const end = start[b + R + 1];
    for (let q = start[b - R]; q < end; q++) {
      const dot = p[4 * q] * dx + p[4 * q + 1] * dy + p[4 * q + 2] * dz;
      if (
        dot > bestDot ||
        (dot === bestDot && bestQ >= 0 && searchedFirst(c, e0, c0, R, de, q, bestDe, bestQ))
      ) {
        bestDot = dot;
        bestRange = p[4 * q + 3];
        bestQ = q;
        bestDe = de;
      }
    }
  }
  return bestRange;
}

/** The azimuth offset (−R … R) from column c0 of the bin of row e holding point q. */
function azimuthOffset(c: BinnedCloud, e: number, c0: number, R: number, q: number): number {
  const b = (e - c.eMin) * c.W + c0;
  let da = -R;
  while (da < R && q >= c.start[b + da + 1]) da++;
  return da;
}

/** Whether point q (row e0 + de) comes before point bestQ (row e0 + bestDe) in ring-by-ring order. */
function searchedFirst(
  c: BinnedCloud,
  e0: number,
  c0: number,
  R: number,
  de: number,
  q: number,
  bestDe: number,
  bestQ: number,
): boolean {
  const da = azimuthOffset(c, e0 + de, c0, R, q);
  const bestDa = azimuthOffset(c, e0 + bestDe, c0, R, bestQ);
  const ring = Math.max(Math.abs(de), Math.abs(da));
  const bestRing = Math.max(Math.abs(bestDe), Math.abs(bestDa));
  if (ring !== bestRing) return ring < bestRing;
  if (de !== bestDe) return de < bestDe;
  return da < bestDa;
}
