// What the past sweeps say along one future ray: for each observed sweep placed in the future frame (newest
// first), the nearest point in direction, the nearest and farthest range near the ray and how many points are there.
// The inputs of the learned ray-depth head (rayDepthModel.ts), relative to the ray-trace baseline's depth.
import type { TokenizerConfig } from './config.ts';
import type { RayTraceDepths } from './baselines/rayTracePast.ts';
import { regionExitM, type Rays } from './rays.ts';
import type { SensorPoints } from './voxelize.ts';

/** The search window and the feature layout (documented defaults; the model's metadata records them). */
export const PAST_RAY_FEATURES = {
  /** Direction bins, degrees (the ray-trace baseline's). */
  binDeg: 0.2,
  minElevationDeg: -60,
  maxElevationDeg: 40,
  /** Bins on either side of a ray's own bin searched in each sweep: 2 → a 1° × 1° window. */
  ring: 2,
  /** Observed sweeps described separately (newest first); fewer given: the missing ones read as empty. */
  sweeps: 3,
  /** Log range ratios are clipped to ±this. */
  logClip: 3,
};

/**
 * Per sweep: found, log ratio of the nearest-in-direction point, its angle (bins), log ratio of min and max, count,
 * and the inverse-square-angle weighted mean log ratio (a sub-bin interpolation of a smooth surface, e.g. the road).
 */
const PER_SWEEP = 7;
/**
 * After the sweeps: the weighted mean over all of them, reference depth, ray-trace miss, elevation, region exit,
 * ground hit and its ratio, horizon, ego shift.
 */
const GLOBAL = 9;

export const RAY_FEATURE_COUNT = PAST_RAY_FEATURES.sweeps * PER_SWEEP + GLOBAL;

const DEG = 180 / Math.PI;

/** One sweep's points sorted by direction bin (rows eMin … eMax, A azimuth bins each). */
interface DirectionBins {
  A: number;
  eMin: number;
  eMax: number;
  start: Int32Array;
  /** ux, uy, uz, range per point in bin order. */
  dirRange: Float32Array;
  /** ln(range) per point in bin order (of the float32 range: a log per point, not per point and ray). */
  logRange: Float64Array;
}

function binsOf(cloud: SensorPoints): DirectionBins {
  const f = PAST_RAY_FEATURES;
  const A = Math.round(360 / f.binDeg);
  const E = Math.round((f.maxElevationDeg - f.minElevationDeg) / f.binDeg);
  const n = cloud.x.length;
  const slot = new Int32Array(n);
  const unsorted = new Float32Array(4 * n);
  let eMin = E;
  let eMax = -1;
  for (let i = 0; i < n; i++) {
    const x = cloud.x[i];
    const y = cloud.y[i];
    const z = cloud.z[i];
    const r = Math.sqrt(x * x + y * y + z * z);
    slot[i] = -1;
    // NaN coordinates give a NaN range and no bin.
    if (!(r >= 1e-3)) continue;
    const e = Math.floor((Math.asin(z / r) * DEG - f.minElevationDeg) / f.binDeg);
    if (e < 0 || e >= E) continue;
    const a = Math.floor((Math.atan2(y, x) * DEG + 180) / f.binDeg) % A;
    slot[i] = e * A + a;
    unsorted[4 * i] = x / r;
    unsorted[4 * i + 1] = y / r;
    unsorted[4 * i + 2] = z / r;
    unsorted[4 * i + 3] = r;
    if (e < eMin) eMin = e;
    if (e > eMax) eMax = e;
  }
  const size = eMax >= eMin ? (eMax - eMin + 1) * A : 0;
  const start = new Int32Array(size + 1);
  const shift = eMin * A;
  for (let i = 0; i < n; i++) if (slot[i] >= 0) start[slot[i] - shift + 1]++;
  for (let b = 0; b < size; b++) start[b + 1] += start[b];
  const fill = start.slice(0, size);
  const m = size ? start[size] : 0;
  const dirRange = new Float32Array(4 * m);
  const logRange = new Float64Array(m);
  for (let i = 0; i < n; i++) {
    if (slot[i] < 0) continue;
    const q = fill[slot[i] - shift]++;
    dirRange[4 * q] = unsorted[4 * i];
    dirRange[4 * q + 1] = unsorted[4 * i + 1];
    dirRange[4 * q + 2] = unsorted[4 * i + 2];
    dirRange[4 * q + 3] = unsorted[4 * i + 3];
    logRange[q] = Math.log(dirRange[4 * q + 3]);
  }
  return { A, eMin, eMax, start, dirRange, logRange };
}

const clip = (v: number, c: number) => (v > c ? c : v < -c ? -c : v);

/**
 * What one observed sweep (placed in the future frame, sensor-relative) holds in each ray's window, before any
 * reference depth: per ray `SWEEP_STATS` numbers (see `STAT`). Each sweep's stats are independent of the others
 * and of the ray-trace, so they can be computed apart (a worker each) and joined by `pastRayFeatures`.
 */
export function sweepRayStats(
  sweep: SensorPoints,
  rays: Rays,
  windows: Int32Array = rayWindows(rays),
): Float64Array {
  const f = PAST_RAY_FEATURES;
  const out = new Float64Array(rays.count * SWEEP_STATS);
  const b = binsOf(sweep);
  const R = f.ring;
  const binRad = f.binDeg / DEG;
  // Angle floor of the interpolation weights: a tenth of a bin.
  const eps2 = (0.1 * binRad) ** 2;
  const dr = b.dirRange;
  const lr = b.logRange;
  for (let k = 0; k < rays.count; k++) {
    const dx = rays.dirX[k];
    const dy = rays.dirY[k];
    const dz = rays.dirZ[k];
    const e0 = windows[2 * k];
    const a0 = windows[2 * k + 1];
    let bestDot = -2;
    let bestLog = 0;
    let minR = Infinity;
    let maxR = 0;
    let minLog = 0;
    let maxLog = 0;
    let count = 0;
    let sumW = 0;
    let sumWLog = 0;
    for (let e = Math.max(e0 - R, b.eMin); e <= Math.min(e0 + R, b.eMax); e++) {
      const row = (e - b.eMin) * b.A;
      // The window's bins of one row are one run of points unless it wraps around azimuth ±180°.
      const wraps = a0 - R < 0 || a0 + R >= b.A;
      for (let da = wraps ? -R : R; da <= R; da++) {
        let a = a0 + da;
        if (a < 0 || a >= b.A) a = ((a % b.A) + b.A) % b.A;
        const end = b.start[row + a + 1];
        for (let q = wraps ? b.start[row + a] : b.start[row + a0 - R]; q < end; q++) {
          const dot = dr[4 * q] * dx + dr[4 * q + 1] * dy + dr[4 * q + 2] * dz;
          const r = dr[4 * q + 3];
          const lg = lr[q];
          if (dot > bestDot) {
            bestDot = dot;
            bestLog = lg;
          }
          if (r < minR) {
            minR = r;
            minLog = lg;
          }
          if (r > maxR) {
            maxR = r;
            maxLog = lg;
          }
          count++;
          // 1 − dot ≈ angle² / 2.
          const wq = 1 / (2 * Math.max(0, 1 - dot) + eps2);
          sumW += wq;
          sumWLog += wq * lg;
        }
      }
    }
    const o = k * SWEEP_STATS;
    out[o + STAT.count] = count;
    out[o + STAT.angle] = count > 0 ? Math.min(5, Math.acos(Math.min(1, bestDot)) / binRad) / 5 : 1;
    out[o + STAT.countFeature] = Math.log1p(count) / 4;
    out[o + STAT.bestLog] = bestLog;
    out[o + STAT.minLog] = minLog;
    out[o + STAT.maxLog] = maxLog;
    out[o + STAT.sumW] = sumW;
    out[o + STAT.sumWLog] = sumWLog;
  }
  return out;
}

/** The per-ray stats of one sweep: points in the window, the nearest in direction, log ranges, weights. */
const STAT = { count: 0, angle: 1, bestLog: 2, minLog: 3, maxLog: 4, sumW: 5, sumWLog: 6, countFeature: 7 };
export const SWEEP_STATS = 8;

/**
 * The bin (elevation, azimuth) each ray's window is centred on, 2 per ray: the same for every sweep, so computed
 * once per frame and handed to each sweep's `sweepRayStats`.
 */
export function rayWindows(rays: Rays): Int32Array {
  const f = PAST_RAY_FEATURES;
  const out = new Int32Array(2 * rays.count);
  for (let k = 0; k < rays.count; k++) {
    const dz = rays.dirZ[k];
    out[2 * k] = Math.floor((Math.asin(Math.max(-1, Math.min(1, dz))) * DEG - f.minElevationDeg) / f.binDeg);
    out[2 * k + 1] = Math.floor((Math.atan2(rays.dirY[k], rays.dirX[k]) * DEG + 180) / f.binDeg);
  }
  return out;
}

/**
 * Features [rays.count × RAY_FEATURE_COUNT] of each ray (sensor at the origin of the future frame). `stats` are
 * `sweepRayStats` of the observed sweeps placed in that frame, newest first (fewer than `sweeps`: the rest read
 * as empty); `rt` the ray-trace baseline over their union (its ground-fallback depth is the reference every
 * range is a log ratio to); `horizonS` how far the frame lies after the last observed sweep; `egoShiftM` how far
 * the sensor moved since then.
 */
export function pastRayFeatures(
  cfg: TokenizerConfig,
  stats: readonly Float64Array[],
  rays: Rays,
  rt: RayTraceDepths,
  ground: number,
  horizonS: number,
  egoShiftM: number,
): Float32Array {
  const f = PAST_RAY_FEATURES;
  const F = RAY_FEATURE_COUNT;
  const out = new Float32Array(rays.count * F);
  const lc = f.logClip;
  for (let k = 0; k < rays.count; k++) {
    const dx = rays.dirX[k];
    const dy = rays.dirY[k];
    const dz = rays.dirZ[k];
    const ref = Math.max(rt.ground[k], 0.1);
    const logRef = Math.log(ref);
    const o = k * F;
    let allW = 0;
    let allWLog = 0;
    for (let s = 0; s < f.sweeps; s++) {
      const p = o + s * PER_SWEEP;
      const st = stats[s];
      const q = k * SWEEP_STATS;
      if (st && st[q + STAT.count] > 0) {
        const sumW = st[q + STAT.sumW];
        const sumWLog = st[q + STAT.sumWLog];
        out[p] = 1;
        out[p + 1] = clip(st[q + STAT.bestLog] - logRef, lc);
        out[p + 2] = st[q + STAT.angle];
        out[p + 3] = clip(st[q + STAT.minLog] - logRef, lc);
        out[p + 4] = clip(st[q + STAT.maxLog] - logRef, lc);
        out[p + 5] = st[q + STAT.countFeature];
        out[p + 6] = clip(sumWLog / sumW - logRef, lc);
        allW += sumW;
        allWLog += sumWLog;
      } else out[p + 2] = 1;
    }
    const g = o + f.sweeps * PER_SWEEP;
    out[g + 8] = allW > 0 ? clip(allWLog / allW - logRef, lc) : 0;
    const exit = regionExitM(cfg, dx, dy, dz);
    const groundHit = dz < 0 && Number.isFinite(ground) ? ground / dz : NaN;
    out[g] = logRef - Math.log(10);
    out[g + 1] = rt.miss[k];
    out[g + 2] = 3 * dz;
    out[g + 3] = clip(Math.log(exit) - logRef, lc);
    out[g + 4] = groundHit > 0 ? 1 : 0;
    out[g + 5] = groundHit > 0 ? clip(Math.log(groundHit) - logRef, lc) : 0;
    out[g + 6] = horizonS / 3;
    out[g + 7] = egoShiftM / 10;
  }
  return out;
}
