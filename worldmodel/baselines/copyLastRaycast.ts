// Copy-last along the true future rays: the last sweep placed by the known pose, each true ray taking the
// nearest return in its range-image cell — one point per true ray, as every rendered forecast (4D-Occ protocol).
import type { TokenizerConfig } from '../config.ts';
import { depthAlongRays } from '../rangeDepth.ts';
import type { Rays } from '../rays.ts';
import type { SensorPoints } from '../voxelize.ts';

/** Depth along each ray of the placed last sweep (sensor-relative in the future frame); region exit if none. */
export function copyLastRaycast(cfg: TokenizerConfig, placedLast: SensorPoints, rays: Rays): Float32Array {
  return depthAlongRays(cfg, placedLast, rays);
}
