// Depth of a point cloud along given rays, for forecasters that output points rather than a renderable grid
// (copy-last, constant velocity): the nearest return in a range image around each ray's direction.
import type { TokenizerConfig } from './config.ts';
import { regionExitM, type Rays } from './rays.ts';
import type { SensorPoints } from './voxelize.ts';

/** Range-image bins: 0.2° in azimuth (finer than a 64-beam sensor's columns), 0.25° in elevation. */
export const RANGE_IMAGE = { azimuthDeg: 0.2, elevationDeg: 0.25, minElevationDeg: -35, maxElevationDeg: 20 };

/**
 * For each ray, the smallest range of the cloud's points (sensor at the origin) in the ray's range-image bin, or
 * in the nearest ring of bins around it (up to 2 away) that holds any; a ray that meets nothing gets the
 * region-exit distance, as the renderer gives a ray whose light escapes.
 */
export function depthAlongRays(cfg: TokenizerConfig, cloud: SensorPoints, rays: Rays): Float32Array {
  const ri = RANGE_IMAGE;
  const A = Math.round(360 / ri.azimuthDeg);
  const E = Math.round((ri.maxElevationDeg - ri.minElevationDeg) / ri.elevationDeg);
  const best = new Float32Array(A * E).fill(Infinity);
  const bin = (x: number, y: number, z: number, r: number): number => {
    const az = Math.atan2(y, x) * (180 / Math.PI) + 180;
    const el = Math.asin(Math.max(-1, Math.min(1, z / r))) * (180 / Math.PI);
    const e = Math.floor((el - ri.minElevationDeg) / ri.elevationDeg);
    if (e < 0 || e >= E) return -1;
    return e * A + (Math.floor(az / ri.azimuthDeg) % A);
  };
  for (let i = 0; i < cloud.x.length; i++) {
    const r = Math.hypot(cloud.x[i], cloud.y[i], cloud.z[i]);
    if (r < 1e-3) continue;
    const b = bin(cloud.x[i], cloud.y[i], cloud.z[i], r);
    if (b >= 0 && r < best[b]) best[b] = r;
  }
  const out = new Float32Array(rays.count);
  for (let k = 0; k < rays.count; k++) {
    const b = bin(rays.dirX[k], rays.dirY[k], rays.dirZ[k], 1);
    let d = Infinity;
    if (b >= 0) {
      const e0 = Math.floor(b / A);
      const a0 = b % A;
      for (let ring = 0; ring <= 2 && d === Infinity; ring++) {
        for (let de = -ring; de <= ring; de++) {
          const e = e0 + de;
          if (e < 0 || e >= E) continue;
          for (let da = -ring; da <= ring; da++) {
            if (Math.max(Math.abs(de), Math.abs(da)) !== ring) continue;
            const v = best[e * A + ((a0 + da + A) % A)];
            if (v < d) d = v;
          }
        }
      }
    }
    out[k] = d === Infinity ? regionExitM(cfg, rays.dirX[k], rays.dirY[k], rays.dirZ[k]) : d;
  }
  return out;
}
