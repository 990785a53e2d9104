// The ground plane near the vehicle, z = a·x + b·y + c, fitted to the lowest point of each ground cell:
// RANSAC over planes no steeper than the ground allows, then least squares on the inliers.
import { lcg32 } from '../core/rng.ts';
import { lowerQuantileOfSorted } from '../core/stats.ts';
import type { GroundConfig } from './ground.ts';

/** The GroundConfig settings the plane fit reads. */
export type PlaneFitConfig = Pick<
  GroundConfig,
  | 'planeRangeM'
  | 'maxSlope'
  | 'planeInlierTolM'
  | 'planeRansacIterations'
  | 'planeInlierSample'
  | 'planeMinPrototypes'
  | 'planeFallbackQuantile'
>;

/**
 * The ground plane near the vehicle from the cell prototypes (lowest point per cell: height `proto`,
 * position `protoX`/`protoY`, range `protoR`; Infinity marks an empty cell) within planeRangeM: RANSAC
 * over planes no steeper than maxSlope, then least squares on the inliers. With too few prototypes:
 * flat at a low quantile of their heights.
 */
export function fitNearPlane(
  proto: Float32Array,
  protoX: Float32Array,
  protoY: Float32Array,
  protoR: Float32Array,
  cfg: PlaneFitConfig,
): [number, number, number] {
  let m = 0;
  const all = new Int32Array(proto.length);
  for (let c = 0; c < proto.length; c++)
    if (proto[c] !== Infinity && protoR[c] <= cfg.planeRangeM) all[m++] = c;
  const idx = all.subarray(0, m);
  if (idx.length === 0) return [0, 0, 0];
  // A typed array sorts numerically in native code (no comparator calls).
  const zs = new Float32Array(m);
  for (let j = 0; j < m; j++) zs[j] = proto[idx[j]];
  zs.sort();
  const low = lowerQuantileOfSorted(zs, cfg.planeFallbackQuantile);
  if (idx.length < cfg.planeMinPrototypes) return [0, 0, low];
  const inlierTol = cfg.planeInlierTolM;
  // Seeded by the prototype count, so RANSAC gives the same plane every run.
  const rand = lcg32(idx.length);
  // Inliers are counted on evenly spaced prototypes (the refit uses all of them), copied once into
  // contiguous arrays: each of the RANSAC iterations then reads them in order, without the cell lookups.
  const stride = Math.max(1, Math.floor(idx.length / cfg.planeInlierSample));
  const ns = Math.ceil(idx.length / stride);
  const sampleX = new Float64Array(ns);
  const sampleY = new Float64Array(ns);
  const sampleZ = new Float64Array(ns);
  for (let j = 0, q = 0; j < idx.length; j += stride, q++) {
    const i = idx[j];
    sampleX[q] = protoX[i];
    sampleY[q] = protoY[i];
    sampleZ[q] = proto[i];
  }
  const count = (a: number, b: number, c: number) => {
    let k = 0;
    // Counted as arithmetic, not a branch: inliers and outliers interleave.
    for (let q = 0; q < ns; q++)
      k += +(Math.abs(sampleZ[q] - (a * sampleX[q] + b * sampleY[q] + c)) <= inlierTol);
    return k;
  };
  let best: [number, number, number] = [0, 0, low];
  let bestCount = count(0, 0, low);
  for (let it = 0; it < cfg.planeRansacIterations; it++) {
    const i = idx[rand() % idx.length];
    const j = idx[rand() % idx.length];
    const k = idx[rand() % idx.length];
    const plane = planeThrough(
      protoX[i],
      protoY[i],
      proto[i],
      protoX[j],
      protoY[j],
      proto[j],
      protoX[k],
      protoY[k],
      proto[k],
    );
    if (!plane || Math.hypot(plane[0], plane[1]) > cfg.maxSlope) continue;
    const n = count(plane[0], plane[1], plane[2]);
    if (n > bestCount) {
      bestCount = n;
      best = plane;
    }
  }
  // Least squares on the inliers (normal equations of z = a x + b y + c).
  let sxx = 0,
    sxy = 0,
    sx = 0,
    syy = 0,
    sy = 0,
    sn = 0,
    sxz = 0,
    syz = 0,
    sz = 0;
  for (let j = 0; j < m; j++) {
    const i = idx[j];
    const x = protoX[i];
    const y = protoY[i];
    const z = proto[i];
    if (Math.abs(z - (best[0] * x + best[1] * y + best[2])) > inlierTol) continue;
    sxx += x * x;
    sxy += x * y;
    sx += x;
    syy += y * y;
    sy += y;
    sn++;
    sxz += x * z;
    syz += y * z;
    sz += z;
  }
  const sol = solve3(sxx, sxy, sx, sxy, syy, sy, sx, sy, sn, sxz, syz, sz);
  if (sol && Math.hypot(sol[0], sol[1]) <= cfg.maxSlope) return sol;
  return best;
}

function planeThrough(
  x1: number,
  y1: number,
  z1: number,
  x2: number,
  y2: number,
  z2: number,
  x3: number,
  y3: number,
  z3: number,
): [number, number, number] | null {
  return solve3(x1, y1, 1, x2, y2, 1, x3, y3, 1, z1, z2, z3);
}

/** Solve the 3×3 system [[a,b,c],[d,e,f],[g,h,i]]·v = [p,q,r] by Cramer's rule; null when singular. */
function solve3(
  a: number,
  b: number,
  c: number,
  d: number,
  e: number,
  f: number,
  g: number,
  h: number,
  i: number,
  p: number,
  q: number,
  r: number,
): [number, number, number] | null {
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  if (Math.abs(det) < 1e-9) return null;
  return [
    (p * (e * i - f * h) - b * (q * i - f * r) + c * (q * h - e * r)) / det,
    (a * (q * i - f * r) - p * (d * i - f * g) + c * (d * r - q * g)) / det,
    (a * (e * r - q * h) - b * (d * r - q * g) + p * (d * h - e * g)) / det,
  ];
}
