// Copy-last seen along the true future rays: the last observed sweep placed by the known pose into the future
// frame, each true ray taking the nearest return in its range-image cell (occlusion-aware), so it is scored
// on exactly the rays, and as many points, as every rendered forecast.
import type { TokenizerConfig } from '../config.ts';
import { depthAlongRays } from '../rangeDepth.ts';
import type { Rays } from '../rays.ts';
import type { SensorPoints } from '../voxelize.ts';

/** Depth along each ray of the placed last sweep (sensor-relative in the future frame); region exit if none. */
export function copyLastRaycast(cfg: TokenizerConfig, placedLast: SensorPoints, rays: Rays): Float32Array {
  return depthAlongRays(cfg, placedLast, rays);
}
