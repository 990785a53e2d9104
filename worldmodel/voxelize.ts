// A sweep as the tokenizer's input: points in the sensor-centred frame bucketed into the voxel grid, with
// each point's offset from its voxel centre (Copilot4D's PointNet input) and the grid's occupancy.
import { InputError } from '../core/errors.ts';
import type { TokenizerConfig } from './config.ts';

/** Points already shifted so the sensor is at the origin (vehicle axes: x forward, y left, z up). */
export interface SensorPoints {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
}

/** The points at the first `count` of `rows`, in that order (a typed gather: the hot paths filter 120 k-point sweeps). */
export function selectPoints(p: SensorPoints, rows: Int32Array, count = rows.length): SensorPoints {
  const out = { x: new Float32Array(count), y: new Float32Array(count), z: new Float32Array(count) };
  for (let k = 0; k < count; k++) {
    const i = rows[k];
    out.x[k] = p.x[i];
    out.y[k] = p.y[i];
    out.z[k] = p.z[i];
  }
  return out;
}

export interface Voxels {
  /** Non-empty voxels. */
  count: number;
  /** Points kept per voxel (the PointNet's padded width). */
  slots: number;
  /** [count, slots, 3] offsets from the voxel centre in cell units (each in [−0.5, 0.5]); 0 in empty slots. */
  offsets: Float32Array;
  /** [count, slots]: 0 for a point, −1e4 for an empty slot (added before the max-pool). */
  slotPenalty: Float32Array;
  /** [count] flat voxel index (z · cellsXY² + row · cellsXY + col; row along y, col along x). */
  voxel: Int32Array;
  /** [cellsZ · cellsXY · cellsXY] 1 where a voxel holds a point. */
  occupancy: Uint8Array;
  /** Points inside the region (all, before the per-voxel cap). */
  pointsInRegion: number;
}

export const EMPTY_SLOT_PENALTY = -1e4;

/** Index of the voxel holding (x, y, z), or −1 outside the region. */
export function voxelOf(cfg: TokenizerConfig, x: number, y: number, z: number): number {
  const g = cfg.grid;
  const cell = (2 * g.rangeM) / g.cellsXY;
  const cellZ = (g.zMaxM - g.zMinM) / g.cellsZ;
  const col = Math.floor((x + g.rangeM) / cell);
  const row = Math.floor((y + g.rangeM) / cell);
  const lev = Math.floor((z - g.zMinM) / cellZ);
  if (!(col >= 0 && col < g.cellsXY && row >= 0 && row < g.cellsXY && lev >= 0 && lev < g.cellsZ)) return -1;
  return (lev * g.cellsXY + row) * g.cellsXY + col;
}

/** Centre of flat voxel `v` in the sensor-centred frame (the inverse of voxelOf up to the cell size). */
export function voxelCentre(cfg: TokenizerConfig, v: number): [number, number, number] {
  const g = cfg.grid;
  const cell = (2 * g.rangeM) / g.cellsXY;
  const cellZ = (g.zMaxM - g.zMinM) / g.cellsZ;
  const col = v % g.cellsXY;
  const row = Math.floor(v / g.cellsXY) % g.cellsXY;
  const lev = Math.floor(v / (g.cellsXY * g.cellsXY));
  return [-g.rangeM + (col + 0.5) * cell, -g.rangeM + (row + 0.5) * cell, g.zMinM + (lev + 0.5) * cellZ];
}

/**
 * Bucket `pts` into the grid. NaN coordinates are an error naming `source` (a sweep with NaN points is
 * corrupt input, not something to voxelise around). A sweep with no point in the region gives count 0.
 */
export function voxelize(cfg: TokenizerConfig, pts: SensorPoints, source = 'sweep'): Voxels {
  const g = cfg.grid;
  const P = cfg.maxPointsPerVoxel;
  const nCells = g.cellsZ * g.cellsXY * g.cellsXY;
  const cell = (2 * g.rangeM) / g.cellsXY;
  const cellZ = (g.zMaxM - g.zMinM) / g.cellsZ;
  const slotOf = new Int32Array(nCells).fill(-1);
  const n = pts.x.length;
  // First pass: voxel of every point, and the order in which voxels first appear.
  const vox = new Int32Array(n);
  let count = 0;
  let inRegion = 0;
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = pts.x[i];
    const y = pts.y[i];
    const z = pts.z[i];
    if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z))
      throw new InputError(source, `point ${i} has a NaN coordinate`);
    const col = Math.floor((x + g.rangeM) / cell);
    const row = Math.floor((y + g.rangeM) / cell);
    const lev = Math.floor((z - g.zMinM) / cellZ);
    if (!(col >= 0 && col < g.cellsXY && row >= 0 && row < g.cellsXY && lev >= 0 && lev < g.cellsZ)) {
      vox[i] = -1;
      continue;
    }
    const v = (lev * g.cellsXY + row) * g.cellsXY + col;
    vox[i] = v;
    inRegion++;
    if (slotOf[v] < 0) {
      slotOf[v] = count++;
      order.push(v);
    }
  }
  const offsets = new Float32Array(count * P * 3);
  const slotPenalty = new Float32Array(count * P).fill(EMPTY_SLOT_PENALTY);
  const filled = new Uint8Array(count);
  const occupancy = new Uint8Array(nCells);
  for (let i = 0; i < n; i++) {
    const v = vox[i];
    if (v < 0) continue;
    const s = slotOf[v];
    const k = filled[s];
    if (k >= P) continue; // the cap keeps the first points of a voxel; its occupancy is already known
    filled[s] = k + 1;
    // Offset from the voxel centre in cell units: the fractional part of the cell coordinate minus ½.
    const u = (pts.x[i] + g.rangeM) / cell;
    const w = (pts.y[i] + g.rangeM) / cell;
    const h = (pts.z[i] - g.zMinM) / cellZ;
    const o = (s * P + k) * 3;
    offsets[o] = u - Math.floor(u) - 0.5;
    offsets[o + 1] = w - Math.floor(w) - 0.5;
    offsets[o + 2] = h - Math.floor(h) - 0.5;
    slotPenalty[s * P + k] = 0;
  }
  const voxel = Int32Array.from(order);
  for (const v of order) occupancy[v] = 1;
  return { count, slots: P, offsets, slotPenalty, voxel, occupancy, pointsInRegion: inRegion };
}

/** The centres of the occupied voxels as a point cloud (the voxelisation's inverse). */
export function occupiedCentres(cfg: TokenizerConfig, occupancy: Uint8Array): SensorPoints {
  const idx: number[] = [];
  for (let v = 0; v < occupancy.length; v++) if (occupancy[v]) idx.push(v);
  const out = {
    x: new Float32Array(idx.length),
    y: new Float32Array(idx.length),
    z: new Float32Array(idx.length),
  };
  idx.forEach((v, i) => {
    const [x, y, z] = voxelCentre(cfg, v);
    out.x[i] = x;
    out.y[i] = y;
    out.z[i] = z;
  });
  return out;
}
