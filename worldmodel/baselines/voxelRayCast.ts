// Past points ray-cast through a 0.2 m occupancy grid: each true ray stops at the first occupied voxel, at the
// surface its points give (occlusion-aware, unlike 4D-Occ's nearest-in-direction ray-trace); else flat ground.
import type { TokenizerConfig } from '../config.ts';
import { regionExitM, type Rays } from '../rays.ts';
import type { SensorPoints } from '../voxelize.ts';
import { groundHeightM } from './rayTracePast.ts';

/** Voxel side and the marching step along a ray (half a voxel, so no voxel a ray crosses is skipped by much). */
export const VOXEL_RAY_CAST = { cellM: 0.2, stepM: 0.1 };
/** Longest run of occupied voxels after the first hit searched for the surface itself (m). */
const RUN_M = 4;

/**
 * Depth along each ray (unit directions, sensor at the origin) to the first voxel the cloud occupies (the mean
 * of its points projected on the ray), marching
 * from the tokenizer's minimum range to the region exit; none: the flat ground at `groundHeightM(cloud)` for a
 * downward ray (never beyond the exit), else the exit.
 */
export function voxelRayCast(cfg: TokenizerConfig, cloud: SensorPoints, rays: Rays): Float32Array {
  const g = cfg.grid;
  const { cellM, stepM } = VOXEL_RAY_CAST;
  const nxy = Math.ceil((2 * g.rangeM) / cellM);
  const nz = Math.ceil((g.zMaxM - g.zMinM) / cellM);
  // Voxel → slot of its running sums (0 = empty), so a hit reads the mean of the voxel's points.
  const slot = new Int32Array(nxy * nxy * nz);
  const sx: number[] = [0];
  const sy: number[] = [0];
  const sz: number[] = [0];
  const sn: number[] = [0];
  const minSq = cfg.render.minRangeM ** 2;
  for (let i = 0; i < cloud.x.length; i++) {
    const x = cloud.x[i];
    const y = cloud.y[i];
    const z = cloud.z[i];
    if (x * x + y * y + z * z < minSq) continue;
    const cx = Math.floor((x + g.rangeM) / cellM);
    const cy = Math.floor((y + g.rangeM) / cellM);
    const cz = Math.floor((z - g.zMinM) / cellM);
    if (cx < 0 || cy < 0 || cz < 0 || cx >= nxy || cy >= nxy || cz >= nz) continue;
    const v = (cz * nxy + cy) * nxy + cx;
    if (slot[v] === 0) {
      slot[v] = sn.length;
      sx.push(0);
      sy.push(0);
      sz.push(0);
      sn.push(0);
    }
    const q = slot[v];
    sx[q] += x;
    sy[q] += y;
    sz[q] += z;
    sn[q]++;
  }
  const voxelAt = (h: number, dx: number, dy: number, dz: number): number => {
    const cx = Math.floor((h * dx + g.rangeM) / cellM);
    const cy = Math.floor((h * dy + g.rangeM) / cellM);
    const cz = Math.floor((h * dz - g.zMinM) / cellM);
    if (cx < 0 || cy < 0 || cz < 0 || cx >= nxy || cy >= nxy || cz >= nz) return 0;
    return slot[(cz * nxy + cy) * nxy + cx];
  };
  // From the first occupied voxel on, along the run of occupied voxels the ray goes on through (at most
  // RUN_M): the voxel whose mean point lies nearest the ray, projected on it. A wall ends the run at once; a
  // shallow ray grazing the ground crosses metres of ground voxels before it meets the surface itself.
  const nearestInRun = (h0: number, exit: number, dx: number, dy: number, dz: number): number => {
    let best = Infinity;
    let depth = h0;
    for (let h = h0; h < Math.min(exit, h0 + RUN_M); h += stepM) {
      const q = voxelAt(h, dx, dy, dz);
      if (!q) break;
      const mx = sx[q] / sn[q];
      const my = sy[q] / sn[q];
      const mz = sz[q] / sn[q];
      const along = mx * dx + my * dy + mz * dz;
      const perpSq = mx * mx + my * my + mz * mz - along * along;
      if (perpSq < best) {
        best = perpSq;
        depth = along;
      }
    }
    return Math.max(cfg.render.minRangeM, depth);
  };
  const ground = groundHeightM(cloud);
  const out = new Float32Array(rays.count);
  for (let k = 0; k < rays.count; k++) {
    const dx = rays.dirX[k];
    const dy = rays.dirY[k];
    const dz = rays.dirZ[k];
    const exit = regionExitM(cfg, dx, dy, dz);
    let d = NaN;
    for (let h = cfg.render.minRangeM; h < exit; h += stepM) {
      if (voxelAt(h, dx, dy, dz)) {
        d = nearestInRun(h, exit, dx, dy, dz);
        break;
      }
    }
    if (Number.isNaN(d)) d = dz < 0 && Number.isFinite(ground) ? Math.min(exit, ground / dz) : exit;
    out[k] = d;
  }
  return out;
}
