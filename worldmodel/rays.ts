// The LiDAR's own rays through the voxel grid: which returns become rays, where each ray leaves the
// region, and the trilinear corner table of its samples that the differentiable renderer gathers from.
import type { Rng } from '../core/rng.ts';
import type { TokenizerConfig } from './config.ts';
import type { SensorPoints } from './voxelize.ts';

/** Rays from the sensor (the origin) through returns: unit directions and the measured depth. */
export interface Rays {
  count: number;
  dirX: Float32Array;
  dirY: Float32Array;
  dirZ: Float32Array;
  depthM: Float32Array;
  /** Index of the return each ray came from in the input sweep. */
  pointIndex: Int32Array;
  /** Per ray: the height above the sensor origin it starts at (its laser, laserLines.ts); absent: 0 for all. */
  originZM?: Float32Array;
}

/** Distance along a unit ray from the origin (or from `originZM` above it) to where it leaves the region. */
export function regionExitM(cfg: TokenizerConfig, dx: number, dy: number, dz: number, originZM = 0): number {
  const g = cfg.grid;
  let t = Infinity;
  if (dx > 0) t = Math.min(t, g.rangeM / dx);
  else if (dx < 0) t = Math.min(t, -g.rangeM / dx);
  if (dy > 0) t = Math.min(t, g.rangeM / dy);
  else if (dy < 0) t = Math.min(t, -g.rangeM / dy);
  if (dz > 0) t = Math.min(t, (g.zMaxM - originZM) / dz);
  else if (dz < 0) t = Math.min(t, (g.zMinM - originZM) / dz);
  return t;
}

/** Samples per ray: enough to reach the region's farthest corner at `stepM` spacing. */
export function samplesPerRay(cfg: TokenizerConfig): number {
  const g = cfg.grid;
  const far = Math.hypot(g.rangeM, g.rangeM, Math.max(-g.zMinM, g.zMaxM));
  return Math.ceil(far / cfg.render.stepM);
}

function inRegion(cfg: TokenizerConfig, x: number, y: number, z: number): boolean {
  const g = cfg.grid;
  return Math.abs(x) < g.rangeM && Math.abs(y) < g.rangeM && z >= g.zMinM && z < g.zMaxM;
}

/** Rays along the given directions (normalised here), each with its depth (default 1 m); point i is ray i. */
export function raysAlong(dirs: readonly (readonly number[])[], depthM?: readonly number[]): Rays {
  const n = dirs.length;
  const r: Rays = {
    count: n,
    dirX: new Float32Array(n),
    dirY: new Float32Array(n),
    dirZ: new Float32Array(n),
    depthM: depthM ? Float32Array.from(depthM) : new Float32Array(n).fill(1),
    pointIndex: Int32Array.from({ length: n }, (_, i) => i),
  };
  dirs.forEach(([x, y, z], i) => {
    const l = Math.hypot(x, y, z);
    r.dirX[i] = x / l;
    r.dirY[i] = y / l;
    r.dirZ[i] = z / l;
  });
  return r;
}

/**
 * Rays through the returns inside the region at least `minRangeM` from the sensor. With `max` and `rng`,
 * a uniform sample of at most `max` of them (training); otherwise all, in sweep order (evaluation).
 */
export function raysFromPoints(
  cfg: TokenizerConfig,
  pts: SensorPoints,
  opts: { max?: number; rng?: Rng } = {},
): Rays {
  const keep: number[] = [];
  const minSq = cfg.render.minRangeM ** 2;
  for (let i = 0; i < pts.x.length; i++) {
    const x = pts.x[i];
    const y = pts.y[i];
    const z = pts.z[i];
    if (!inRegion(cfg, x, y, z)) continue;
    if (x * x + y * y + z * z < minSq) continue;
    keep.push(i);
  }
  let chosen = keep;
  if (opts.max !== undefined && keep.length > opts.max) {
    if (!opts.rng) throw new Error('raysFromPoints: sampling rays needs an rng');
    // Partial Fisher–Yates: the first `max` entries become a uniform sample.
    const a = Int32Array.from(keep);
    for (let i = 0; i < opts.max; i++) {
      const j = i + opts.rng.int(a.length - i);
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    chosen = Array.from(a.subarray(0, opts.max));
  }
  const n = chosen.length;
  const r: Rays = {
    count: n,
    dirX: new Float32Array(n),
    dirY: new Float32Array(n),
    dirZ: new Float32Array(n),
    depthM: new Float32Array(n),
    pointIndex: Int32Array.from(chosen),
  };
  chosen.forEach((i, k) => {
    const d = Math.sqrt(pts.x[i] ** 2 + pts.y[i] ** 2 + pts.z[i] ** 2);
    r.dirX[k] = pts.x[i] / d;
    r.dirY[k] = pts.y[i] / d;
    r.dirZ[k] = pts.z[i] / d;
    r.depthM[k] = d;
  });
  return r;
}

/** The renderer's sample table for a set of rays (fed to the graph; geometry only, no network output). */
export interface RaySamples {
  rays: number;
  /** Samples per ray (the same for every ray; those past the region's edge are masked). */
  samples: number;
  /** [rays, samples, 8] flat voxel index of each trilinear corner (clamped to the grid). */
  corner: Int32Array;
  /** [rays, samples, 8] trilinear weight of each corner (sums to 1 per sample). */
  cornerWeight: Float32Array;
  /** [rays, samples] depth of each sample along its ray (m). */
  sampleDepthM: Float32Array;
  /** [rays, samples] 1 inside the region, 0 past the ray's exit. */
  inside: Float32Array;
  /** [rays] where each ray leaves the region (m): the depth of a ray that meets nothing. */
  exitM: Float32Array;
}

/** Samples at (s + ½)·stepM along each ray, with the corners and weights of trilinear interpolation. */
export function sampleRays(cfg: TokenizerConfig, rays: Rays): RaySamples {
  const g = cfg.grid;
  const S = samplesPerRay(cfg);
  const R = rays.count;
  const N = g.cellsXY;
  const cell = (2 * g.rangeM) / N;
  const cellZ = (g.zMaxM - g.zMinM) / g.cellsZ;
  const out: RaySamples = {
    rays: R,
    samples: S,
    corner: new Int32Array(R * S * 8),
    cornerWeight: new Float32Array(R * S * 8),
    sampleDepthM: new Float32Array(R * S),
    inside: new Float32Array(R * S),
    exitM: new Float32Array(R),
  };
  const step = cfg.render.stepM;
  for (let r = 0; r < R; r++) {
    const dx = rays.dirX[r];
    const dy = rays.dirY[r];
    const dz = rays.dirZ[r];
    const oz = rays.originZM ? rays.originZM[r] : 0;
    const exit = regionExitM(cfg, dx, dy, dz, oz);
    out.exitM[r] = exit;
    for (let s = 0; s < S; s++) {
      const h = (s + 0.5) * step;
      const k = r * S + s;
      out.sampleDepthM[k] = h;
      if (h >= exit) continue; // corner 0 with weight 0: gathers something, contributes nothing
      out.inside[k] = 1;
      // Continuous voxel coordinates with voxel centres at integers.
      const u = (h * dx + g.rangeM) / cell - 0.5;
      const v = (h * dy + g.rangeM) / cell - 0.5;
      const w = (oz + h * dz - g.zMinM) / cellZ - 0.5;
      const u0 = Math.floor(u);
      const v0 = Math.floor(v);
      const w0 = Math.floor(w);
      const fu = u - u0;
      const fv = v - v0;
      const fw = w - w0;
      const cu0 = u0 < 0 ? 0 : u0 >= N ? N - 1 : u0;
      const cu1 = u0 + 1 < 0 ? 0 : u0 + 1 >= N ? N - 1 : u0 + 1;
      const cv0 = v0 < 0 ? 0 : v0 >= N ? N - 1 : v0;
      const cv1 = v0 + 1 < 0 ? 0 : v0 + 1 >= N ? N - 1 : v0 + 1;
      const Z = g.cellsZ;
      const cw0 = w0 < 0 ? 0 : w0 >= Z ? Z - 1 : w0;
      const cw1 = w0 + 1 < 0 ? 0 : w0 + 1 >= Z ? Z - 1 : w0 + 1;
      const o = k * 8;
      const z0 = cw0 * N * N;
      const z1 = cw1 * N * N;
      const y0 = cv0 * N;
      const y1 = cv1 * N;
      const a0 = (1 - fw) * (1 - fv);
      const a1 = (1 - fw) * fv;
      const a2 = fw * (1 - fv);
      const a3 = fw * fv;
      const C = out.corner;
      const W = out.cornerWeight;
      C[o] = z0 + y0 + cu0;
      W[o] = a0 * (1 - fu);
      C[o + 1] = z0 + y0 + cu1;
      W[o + 1] = a0 * fu;
      C[o + 2] = z0 + y1 + cu0;
      W[o + 2] = a1 * (1 - fu);
      C[o + 3] = z0 + y1 + cu1;
      W[o + 3] = a1 * fu;
      C[o + 4] = z1 + y0 + cu0;
      W[o + 4] = a2 * (1 - fu);
      C[o + 5] = z1 + y0 + cu1;
      W[o + 5] = a2 * fu;
      C[o + 6] = z1 + y1 + cu0;
      W[o + 6] = a3 * (1 - fu);
      C[o + 7] = z1 + y1 + cu1;
      W[o + 7] = a3 * fu;
    }
  }
  return out;
}
