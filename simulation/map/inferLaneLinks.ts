// Lane successors inferred from geometry, for maps whose source carries no lane connectivity (nuScenes
// through ScenarioNet, GPUDrive/Nocturne JSON): lane j follows lane i where j starts where i ends, heading on.
import { wrapAngle } from '../../core/geometry/pose.ts';
import { buildStaticGrid, gridBucket } from './staticGrid.ts';

export interface LaneLinkConfig {
  /** j's first point within this of i's last point, metres (the sources share the joint point exactly). */
  jointM: number;
  /** Heading change across the joint at most this, radians (a lane does not start backwards). */
  maxTurnRad: number;
}

export const DEFAULT_LANE_LINKS: LaneLinkConfig = { jointM: 0.5, maxTurnRad: Math.PI / 3 };

function endHeading(xy: Float64Array, atStart: boolean): number {
  const n = xy.length >> 1;
  if (n < 2) return NaN;
  return atStart
    ? Math.atan2(xy[3] - xy[1], xy[2] - xy[0])
    : Math.atan2(xy[2 * n - 1] - xy[2 * n - 3], xy[2 * n - 2] - xy[2 * n - 4]);
}

/**
 * Successors (lane indices) of every lane: the lanes starting within `jointM` of its end whose first
 * segment turns at most `maxTurnRad` from its last. Start points are hashed in a grid of jointM cells, so
 * the cost grows with the lane count, not its square.
 */
export function inferLaneSuccessors(
  laneXy: readonly Float64Array[],
  cfg: LaneLinkConfig = DEFAULT_LANE_LINKS,
): Int32Array[] {
  const c = cfg.jointM;
  const grid = buildStaticGrid(c, laneXy.length, (j, emit) => {
    if (laneXy[j].length >= 4) emit(Math.floor(laneXy[j][0] / c), Math.floor(laneXy[j][1] / c));
  });
  return laneXy.map((xy, i) => {
    const hi = endHeading(xy, false);
    if (!Number.isFinite(hi)) return new Int32Array(0);
    const n = xy.length >> 1;
    const ex = xy[2 * n - 2];
    const ey = xy[2 * n - 1];
    const cx = Math.floor(ex / c);
    const cy = Math.floor(ey / c);
    const found = new Set<number>();
    for (let ox = -1; ox <= 1; ox++)
      for (let oy = -1; oy <= 1; oy++) {
        const b = gridBucket(grid, cx + ox, cy + oy);
        for (let p = grid.start[b]; p < grid.start[b + 1]; p++) {
          const j = grid.items[p];
          const s = laneXy[j];
          if (j === i || Math.hypot(s[0] - ex, s[1] - ey) > c) continue;
          if (Math.abs(wrapAngle(endHeading(s, true) - hi)) <= cfg.maxTurnRad) found.add(j);
        }
      }
    return Int32Array.from([...found].sort((a, b) => a - b));
  });
}
