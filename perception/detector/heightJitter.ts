// Sensor height jitter: the detector measures heights from a ground level it estimates per sweep, and
// mountings differ (KITTI's sensor frame, AV2's ego frame, a synthetic 1.73 m): the estimate is offset.
import type { Rng } from '../../core/rng.ts';

export interface HeightJitterConfig {
  /** Standard deviation of the ground level's offset in metres (0: off). */
  stdM: number;
  /** The offset is clipped to ±this. */
  maxM: number;
}

export const DEFAULT_HEIGHT_JITTER_CONFIG: HeightJitterConfig = { stdM: 0, maxM: 0.3 };

/**
 * A ground level offset as if the sensor sat higher or lower than the estimate says: points and boxes keep
 * their heights, so height features and the box-centre target both move by the offset, as they do when the
 * ground estimate is off on a new mounting. Returns the jittered ground level.
 */
export function jitterGroundZ(groundZ: number, rng: Rng, cfg: HeightJitterConfig): number {
  if (!(cfg.stdM > 0)) return groundZ;
  const d = Math.max(-cfg.maxM, Math.min(cfg.maxM, rng.normal() * cfg.stdM));
  return groundZ + d;
}
