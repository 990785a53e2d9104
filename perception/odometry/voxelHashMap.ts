// The local map of LiDAR odometry: a voxel hash map holding at most N world points per voxel (KISS-ICP,
// Vizzo et al. 2023, §III-C), nearest-neighbour search over adjacent voxels and per-voxel plane normals.
import { Int3Table } from './int3Table.ts';

/** Local shape around a map voxel (VoxelHashMap.shape). */
export const SHAPE_PLANE = 0;
export const SHAPE_LINE = 1;
export const SHAPE_SCATTER = 2;

export interface VoxelHashMapConfig {
  voxelM: number;
  maxPointsPerVoxel: number;
  /** Points around a voxel fit a plane when their smallest covariance eigenvalue ≤ this share of the sum. */
  planarity: number;
  /** Fewest points around a voxel to fit a shape. */
  minPlanePoints: number;
}

/** Result of a nearest-neighbour query (reused to keep the hot loop allocation-free). */
export interface Neighbour {
  x: number;
  y: number;
  z: number;
  voxel: number;
  dist2: number;
}

export class VoxelHashMap {
  private table = new Int3Table(4096);
  private coords = new Int32Array(3 * 4096);
  private counts = new Uint8Array(4096);
  private points: Float32Array;
  private normals = new Float32Array(3 * 4096);
  private normalState = new Uint8Array(4096);
  private fitEpoch = new Int32Array(4096).fill(-1);
  /** Bumped by every map change; a voxel's shape is refitted when its stamp is older. */
  private epoch = 0;
  private voxels = 0;
  private readonly inv: number;
  /** Points closer than this to a point already in the voxel are not added (even spread, as KISS-ICP v1). */
  private readonly minSpacing2: number;

  constructor(readonly cfg: VoxelHashMapConfig) {
    this.inv = 1 / cfg.voxelM;
    this.points = new Float32Array(3 * cfg.maxPointsPerVoxel * 4096);
    const spacing = cfg.voxelM / Math.sqrt(cfg.maxPointsPerVoxel);
    this.minSpacing2 = spacing * spacing;
  }

  get voxelCount(): number {
    return this.voxels;
  }

  get empty(): boolean {
    return this.voxels === 0;
  }

  get pointCount(): number {
    let s = 0;
    for (let v = 0; v < this.voxels; v++) s += this.counts[v];
    return s;
  }

  private ensureCapacity(n: number): void {
    if (n <= this.counts.length) return;
    let cap = this.counts.length;
    while (cap < n) cap *= 2;
    const grow = <T extends Float32Array | Int32Array | Uint8Array>(a: T, per: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap * per);
      b.set(a);
      return b;
    };
    this.coords = grow(this.coords, 3);
    this.counts = grow(this.counts, 1);
    this.points = grow(this.points, 3 * this.cfg.maxPointsPerVoxel);
    this.normals = grow(this.normals, 3);
    this.normalState = grow(this.normalState, 1);
    const stamps = new Int32Array(cap).fill(-1);
    stamps.set(this.fitEpoch);
    this.fitEpoch = stamps;
  }

  /** Add packed world xyz points; a full voxel, or a point too close to one it holds, keeps what it has. */
  addPoints(xyz: Float32Array, count = xyz.length / 3): void {
    this.epoch++;
    const max = this.cfg.maxPointsPerVoxel;
    const pts = this.points;
    for (let i = 0; i < count; i++) {
      const x = xyz[3 * i];
      const y = xyz[3 * i + 1];
      const z = xyz[3 * i + 2];
      const ix = Math.floor(x * this.inv);
      const iy = Math.floor(y * this.inv);
      const iz = Math.floor(z * this.inv);
      let v = this.table.getOrInsert(ix, iy, iz, this.voxels);
      if (v < 0) {
        v = this.voxels++;
        this.ensureCapacity(this.voxels);
        this.coords[3 * v] = ix;
        this.coords[3 * v + 1] = iy;
        this.coords[3 * v + 2] = iz;
        this.counts[v] = 0;
      }
      const c = this.counts[v];
      if (c >= max) continue;
      const base = 3 * max * v;
      let tooClose = false;
      for (let j = 0; j < c; j++) {
        const dx = pts[base + 3 * j] - x;
        const dy = pts[base + 3 * j + 1] - y;
        const dz = pts[base + 3 * j + 2] - z;
        if (dx * dx + dy * dy + dz * dz < this.minSpacing2) {
          tooClose = true;
          break;
        }
      }
      if (tooClose) continue;
      pts[base + 3 * c] = x;
      pts[base + 3 * c + 1] = y;
      pts[base + 3 * c + 2] = z;
      this.counts[v] = c + 1;
    }
  }

  /** Drop voxels whose first point is farther than `rangeM` from (x, y, z); the table is rebuilt. */
  removeFar(x: number, y: number, z: number, rangeM: number): void {
    this.epoch++;
    const max = this.cfg.maxPointsPerVoxel;
    const r2 = rangeM * rangeM;
    const pts = this.points;
    let kept = 0;
    this.table.clear();
    for (let v = 0; v < this.voxels; v++) {
      const b = 3 * max * v;
      const dx = pts[b] - x;
      const dy = pts[b + 1] - y;
      const dz = pts[b + 2] - z;
      if (dx * dx + dy * dy + dz * dz > r2) continue;
      if (kept !== v) {
        this.coords.copyWithin(3 * kept, 3 * v, 3 * v + 3);
        this.counts[kept] = this.counts[v];
        pts.copyWithin(3 * max * kept, b, b + 3 * max);
        this.normals.copyWithin(3 * kept, 3 * v, 3 * v + 3);
        this.normalState[kept] = this.normalState[v];
        this.fitEpoch[kept] = this.fitEpoch[v];
      }
      this.table.getOrInsert(
        this.coords[3 * kept],
        this.coords[3 * kept + 1],
        this.coords[3 * kept + 2],
        kept,
      );
      kept++;
    }
    this.voxels = kept;
  }

  /**
   * The nearest map point to (x, y, z) within `maxDistM`, searching only the voxels that ball can reach,
   * and at most the 27 around the point's own (KISS-ICP's bound: a wild σ cannot make a query cost
   * thousands of voxels); false when there is none.
   */
  nearest(x: number, y: number, z: number, maxDistM: number, out: Neighbour): boolean {
    const inv = this.inv;
    const fx = x * inv;
    const fy = y * inv;
    const fz = z * inv;
    const ix = Math.floor(fx);
    const iy = Math.floor(fy);
    const iz = Math.floor(fz);
    const r = Math.min(maxDistM * inv, 1);
    const x0 = Math.floor(fx - r) - ix;
    const x1 = Math.floor(fx + r) - ix;
    const y0 = Math.floor(fy - r) - iy;
    const y1 = Math.floor(fy + r) - iy;
    const z0 = Math.floor(fz - r) - iz;
    const z1 = Math.floor(fz + r) - iz;
    const max = this.cfg.maxPointsPerVoxel;
    const pts = this.points;
    const counts = this.counts;
    const edge = this.cfg.voxelM;
    // Squared distance (m²) from the query to the slab of each neighbouring voxel along each axis: a voxel
    // whose box is farther than the best match so far cannot hold a nearer point and is skipped. The own
    // voxel is searched first, where the nearest point usually is, so most neighbours are skipped.
    const lx = (fx - ix) * edge;
    const ly = (fy - iy) * edge;
    const lz = (fz - iz) * edge;
    const gxm = lx * lx;
    const gxp = (edge - lx) * (edge - lx);
    const gym = ly * ly;
    const gyp = (edge - ly) * (edge - ly);
    const gzm = lz * lz;
    const gzp = (edge - lz) * (edge - lz);
    let best = maxDistM * maxDistM;
    let bestV = -1;
    let bestJ = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let a = x0; a <= x1; a++) {
        const gx = a < 0 ? gxm : a > 0 ? gxp : 0;
        for (let b = y0; b <= y1; b++) {
          const gxy = gx + (b < 0 ? gym : b > 0 ? gyp : 0);
          for (let c = z0; c <= z1; c++) {
            const own = a === 0 && b === 0 && c === 0;
            if (own !== (pass === 0)) continue;
            // Not when the box is within rounding of the best: only voxels that surely cannot win are skipped.
            if (gxy + (c < 0 ? gzm : c > 0 ? gzp : 0) > best * (1 + 1e-9)) continue;
            const v = this.table.get(ix + a, iy + b, iz + c);
            if (v < 0) continue;
            const base = 3 * max * v;
            const n = counts[v];
            for (let j = 0; j < n; j++) {
              const k = base + 3 * j;
              const dx = pts[k] - x;
              const dy = pts[k + 1] - y;
              const dz = pts[k + 2] - z;
              const d2 = dx * dx + dy * dy + dz * dz;
              if (d2 < best) {
                best = d2;
                bestV = v;
                bestJ = k;
              }
            }
          }
        }
      }
    }
    if (bestV < 0) return false;
    out.x = pts[bestJ];
    out.y = pts[bestJ + 1];
    out.z = pts[bestJ + 2];
    out.voxel = bestV;
    out.dist2 = best;
    return true;
  }

  /**
   * The local shape around voxel `v`, fitted to the map points within one voxel edge of its points' mean
   * (searched in the 27 voxels around it) once per map update: SHAPE_PLANE with the unit normal written
   * into `out`, SHAPE_LINE (a single scan ring or a pole: a residual along it would pull the estimate
   * towards standing still, since rings move with the sensor), or SHAPE_SCATTER.
   */
  shape(v: number, out: Float64Array): number {
    if (this.fitEpoch[v] !== this.epoch) this.fitShape(v);
    if (this.normalState[v] === SHAPE_PLANE) {
      out[0] = this.normals[3 * v];
      out[1] = this.normals[3 * v + 1];
      out[2] = this.normals[3 * v + 2];
    }
    return this.normalState[v];
  }

  private fitShape(v: number): void {
    this.fitEpoch[v] = this.epoch;
    const max = this.cfg.maxPointsPerVoxel;
    const pts = this.points;
    const own = this.counts[v];
    const base = 3 * max * v;
    let cx = 0;
    let cy = 0;
    let cz = 0;
    for (let j = 0; j < own; j++) {
      cx += pts[base + 3 * j];
      cy += pts[base + 3 * j + 1];
      cz += pts[base + 3 * j + 2];
    }
    cx /= own;
    cy /= own;
    cz /= own;
    const r2 = this.cfg.voxelM * this.cfg.voxelM;
    let n = 0;
    let mx = 0;
    let my = 0;
    let mz = 0;
    let xx = 0;
    let xy = 0;
    let xz = 0;
    let yy = 0;
    let yz = 0;
    let zz = 0;
    const ix = this.coords[3 * v];
    const iy = this.coords[3 * v + 1];
    const iz = this.coords[3 * v + 2];
    // Raw second moments about the centre (cx, cy, cz), turned into a covariance below.
    for (let a = -1; a <= 1; a++) {
      for (let b = -1; b <= 1; b++) {
        for (let c = -1; c <= 1; c++) {
          const u = this.table.get(ix + a, iy + b, iz + c);
          if (u < 0) continue;
          const ub = 3 * max * u;
          for (let j = 0; j < this.counts[u]; j++) {
            const dx = pts[ub + 3 * j] - cx;
            const dy = pts[ub + 3 * j + 1] - cy;
            const dz = pts[ub + 3 * j + 2] - cz;
            if (dx * dx + dy * dy + dz * dz > r2) continue;
            n++;
            mx += dx;
            my += dy;
            mz += dz;
            xx += dx * dx;
            xy += dx * dy;
            xz += dx * dz;
            yy += dy * dy;
            yz += dy * dz;
            zz += dz * dz;
          }
        }
      }
    }
    this.normalState[v] = SHAPE_SCATTER;
    if (n < this.cfg.minPlanePoints) return;
    mx /= n;
    my /= n;
    mz /= n;
    xx = xx / n - mx * mx;
    xy = xy / n - mx * my;
    xz = xz / n - mx * mz;
    yy = yy / n - my * my;
    yz = yz / n - my * mz;
    zz = zz / n - mz * mz;
    const e = smallestEigenvector(xx, xy, xz, yy, yz, zz);
    if (e === null) return;
    const sum = xx + yy + zz;
    // A line: spread in one direction only (the two smaller eigenvalues both small).
    if (e[4] < 4 * this.cfg.planarity * sum) {
      this.normalState[v] = SHAPE_LINE;
      return;
    }
    if (e[3] > this.cfg.planarity * sum) return;
    this.normals[3 * v] = e[0];
    this.normals[3 * v + 1] = e[1];
    this.normals[3 * v + 2] = e[2];
    this.normalState[v] = SHAPE_PLANE;
  }
}

/**
 * Unit eigenvector of the smallest eigenvalue of a symmetric 3×3 matrix, with that eigenvalue and the
 * middle one as the 4th and 5th entries; eigenvalues in closed form (Smith 1961), the vector as the largest cross product of two rows of
 * A − λI. Null for a zero matrix.
 */
export function smallestEigenvector(
  a: number,
  b: number,
  c: number,
  d: number,
  e: number,
  f: number,
): [number, number, number, number, number] | null {
  // A = [[a b c] [b d e] [c e f]]
  const q = (a + d + f) / 3;
  const p1 = b * b + c * c + e * e;
  const p2 = (a - q) * (a - q) + (d - q) * (d - q) + (f - q) * (f - q) + 2 * p1;
  const p = Math.sqrt(p2 / 6);
  if (!(p > 0)) return null;
  const B = [(a - q) / p, b / p, c / p, b / p, (d - q) / p, e / p, c / p, e / p, (f - q) / p];
  const detB =
    B[0] * (B[4] * B[8] - B[5] * B[7]) -
    B[1] * (B[3] * B[8] - B[5] * B[6]) +
    B[2] * (B[3] * B[7] - B[4] * B[6]);
  const r = Math.max(-1, Math.min(1, detB / 2));
  const phi = Math.acos(r) / 3;
  // Smallest eigenvalue: q + 2p·cos(φ + 2π/3).
  const lam = q + 2 * p * Math.cos(phi + (2 * Math.PI) / 3);
  const lamMid = 3 * q - lam - (q + 2 * p * Math.cos(phi));
  const r0 = [a - lam, b, c];
  const r1 = [b, d - lam, e];
  const r2 = [c, e, f - lam];
  const cross = (u: number[], w: number[]) => [
    u[1] * w[2] - u[2] * w[1],
    u[2] * w[0] - u[0] * w[2],
    u[0] * w[1] - u[1] * w[0],
  ];
  let bestV = cross(r0, r1);
  let bestN = Math.hypot(bestV[0], bestV[1], bestV[2]);
  for (const cand of [cross(r0, r2), cross(r1, r2)]) {
    const n = Math.hypot(cand[0], cand[1], cand[2]);
    if (n > bestN) {
      bestN = n;
      bestV = cand;
    }
  }
  if (!(bestN > 0)) return null;
  return [bestV[0] / bestN, bestV[1] / bestN, bestV[2] / bestN, Math.max(0, lam), lamMid];
}
