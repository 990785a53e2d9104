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
}

/**
 * The ground's height below the sensor: the mean z of the most populated 0.1 m band of z among the points
 * 4–25 m away horizontally and below the sensor — the road dominates a driving sweep there. NaN when none.
 */
export function groundHeightM(cloud: SensorPoints): number {
  const [lo, hi] = RAY_TRACE.groundBandM;
  const bins = new Int32Array(60); // z from −6 m to 0 in 0.1 m bins
  const sums = new Float64Array(60);
  let any = false;
  for (let i = 0; i < cloud.x.length; i++) {
    const z = cloud.z[i];
    if (z >= 0 || z < -6) continue;
    const r = Math.hypot(cloud.x[i], cloud.y[i]);
    if (r < lo || r > hi) continue;
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

/**
 * For every ray (unit direction, sensor at the origin), the range of the cloud's point with the smallest angle
 * to it among those within `maxRing` bins. raw: that range (a ray with none gets the region exit); clamped: the
 * same, never beyond the region exit; ground: clamped, and a downward ray with none meets the flat ground at
 * `groundHeightM(cloud)` (or the region exit, whichever is nearer).
 */
export function rayTracePast(cfg: TokenizerConfig, cloud: SensorPoints, rays: Rays): RayTraceDepths {
  const rt = RAY_TRACE;
  const A = Math.round(360 / rt.azimuthDeg);
  const E = Math.round((rt.maxElevationDeg - rt.minElevationDeg) / rt.elevationDeg);
  const deg = 180 / Math.PI;
  const n = cloud.x.length;
  // CSR over direction bins: bin → the cloud's points in it (with their unit directions and ranges).
  const binOf = new Int32Array(n).fill(-1);
  const ux = new Float32Array(n);
  const uy = new Float32Array(n);
  const uz = new Float32Array(n);
  const range = new Float32Array(n);
  const start = new Int32Array(A * E + 1);
  for (let i = 0; i < n; i++) {
    const r = Math.hypot(cloud.x[i], cloud.y[i], cloud.z[i]);
    if (r < 1e-3) continue;
    const dz = cloud.z[i] / r;
    const e = Math.floor((Math.asin(dz) * deg - rt.minElevationDeg) / rt.elevationDeg);
    if (e < 0 || e >= E) continue;
    const a = Math.floor((Math.atan2(cloud.y[i], cloud.x[i]) * deg + 180) / rt.azimuthDeg) % A;
    const b = e * A + a;
    binOf[i] = b;
    ux[i] = cloud.x[i] / r;
    uy[i] = cloud.y[i] / r;
    uz[i] = dz;
    range[i] = r;
    start[b + 1]++;
  }
  for (let b = 0; b < A * E; b++) start[b + 1] += start[b];
  const fill = start.slice(0, A * E);
  const items = new Int32Array(start[A * E]);
  for (let i = 0; i < n; i++) if (binOf[i] >= 0) items[fill[binOf[i]]++] = i;

  const ground = groundHeightM(cloud);
  const out: RayTraceDepths = {
    raw: new Float32Array(rays.count),
    clamped: new Float32Array(rays.count),
    ground: new Float32Array(rays.count),
    missShare: 0,
    miss: new Uint8Array(rays.count),
  };
  let misses = 0;
  for (let k = 0; k < rays.count; k++) {
    const dx = rays.dirX[k];
    const dy = rays.dirY[k];
    const dz = rays.dirZ[k];
    const exit = regionExitM(cfg, dx, dy, dz);
    const e0 = Math.floor(
      (Math.asin(Math.max(-1, Math.min(1, dz))) * deg - rt.minElevationDeg) / rt.elevationDeg,
    );
    const a0 = Math.floor((Math.atan2(dy, dx) * deg + 180) / rt.azimuthDeg) % A;
    let bestDot = -2;
    let bestRange = NaN;
    // Search outwards; once a point is found at ring r, ring r + 1 may still hold a closer one (the ray is
    // anywhere in its bin), so one more ring is searched before stopping.
    let stopAt = rt.maxRing;
    for (let ring = 0; ring <= stopAt; ring++) {
      for (let de = -ring; de <= ring; de++) {
        const e = e0 + de;
        if (e < 0 || e >= E) continue;
        const edge = Math.abs(de) === ring;
        for (let da = -ring; da <= ring; da += edge || ring === 0 ? 1 : 2 * ring) {
          const b = e * A + ((a0 + da + A) % A);
          for (let q = start[b]; q < start[b + 1]; q++) {
            const i = items[q];
            const dot = ux[i] * dx + uy[i] * dy + uz[i] * dz;
            if (dot > bestDot) {
              bestDot = dot;
              bestRange = range[i];
            }
          }
          if (ring === 0) break;
        }
      }
      if (bestDot > -2 && stopAt > ring + 1) stopAt = ring + 1;
    }
    if (bestDot > -2) {
      out.raw[k] = bestRange;
      out.clamped[k] = Math.min(bestRange, exit);
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
