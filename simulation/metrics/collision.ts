// Collision (Waymax "overlap"): two agents of the same scenario collide when their oriented BEV boxes
// overlap (separating-axis test). Candidate pairs come from a spatial grid, so cost grows with n, not n².
import type { SpatialGrid } from '../spatialGrid.ts';
import type { TrajectoryFeatures } from './trajectoryFeatures.ts';

/**
 * True when two oriented rectangles (centre, heading, length along heading, width) overlap, by the
 * separating axis theorem over the four edge normals. Touching boxes do not count.
 */
export function boxesOverlap(
  ax: number,
  ay: number,
  ayaw: number,
  al: number,
  aw: number,
  bx: number,
  by: number,
  byaw: number,
  bl: number,
  bw: number,
): boolean {
  const dx = bx - ax;
  const dy = by - ay;
  const ca = Math.cos(ayaw);
  const sa = Math.sin(ayaw);
  const cb = Math.cos(byaw);
  const sb = Math.sin(byaw);
  const ahl = al / 2;
  const ahw = aw / 2;
  const bhl = bl / 2;
  const bhw = bw / 2;
  // |cos| and |sin| of the relative heading give B's extents projected on A's axes and vice versa.
  const c = Math.abs(ca * cb + sa * sb);
  const s = Math.abs(sa * cb - ca * sb);
  // Axes of A.
  if (Math.abs(dx * ca + dy * sa) >= ahl + bhl * c + bhw * s) return false;
  if (Math.abs(-dx * sa + dy * ca) >= ahw + bhl * s + bhw * c) return false;
  // Axes of B.
  if (Math.abs(dx * cb + dy * sb) >= bhl + ahl * c + ahw * s) return false;
  if (Math.abs(-dx * sb + dy * cb) >= bhw + ahl * s + ahw * c) return false;
  return true;
}

/** The agent arrays a collision check reads (world frame, one entry per agent of the batch). */
export interface BoxArrays {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  yaw: ArrayLike<number>;
  length: ArrayLike<number>;
  width: ArrayLike<number>;
  valid: ArrayLike<number>;
  /** Scenario of each agent: only agents of the same scenario can collide. */
  group: ArrayLike<number>;
}

/**
 * Sets out[i] = 1 for every valid agent overlapping another valid agent of its scenario (0 otherwise).
 * The grid is built here with cells as large as the largest box diagonal, so every overlapping pair
 * lies in neighbouring cells. Returns the number of colliding agents.
 */
export function markCollisions(n: number, b: BoxArrays, grid: SpatialGrid, out: Uint8Array): number {
  // Bounding-circle radii once per call (reused buffer), and cells as large as the largest diagonal.
  if (radius.length < n) radius = new Float64Array(Math.max(n, 2 * radius.length));
  let maxDiag = 1;
  for (let i = 0; i < n; i++) {
    const r = Math.sqrt(b.length[i] * b.length[i] + b.width[i] * b.width[i]) / 2;
    radius[i] = r;
    if (b.valid[i] && 2 * r > maxDiag) maxDiag = 2 * r;
  }
  grid.build(n, b.x, b.y, b.valid, b.group, maxDiag);
  out.fill(0, 0, n);
  const { start, items } = grid;
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (!b.valid[i]) continue;
    const xi = b.x[i];
    const yi = b.y[i];
    const ri = radius[i];
    const gi = b.group[i];
    const cx = grid.cellOf(xi);
    const cy = grid.cellOf(yi);
    for (let ox = -1; ox <= 1; ox++) {
      for (let oy = -1; oy <= 1; oy++) {
        const bk = grid.bucket(cx + ox, cy + oy, gi);
        for (let p = start[bk]; p < start[bk + 1]; p++) {
          const j = items[p];
          if (j <= i || b.group[j] !== gi) continue;
          const rr = ri + radius[j];
          const dx = b.x[j] - xi;
          const dy = b.y[j] - yi;
          if (dx * dx + dy * dy >= rr * rr) continue;
          if (
            boxesOverlap(
              xi,
              yi,
              b.yaw[i],
              b.length[i],
              b.width[i],
              b.x[j],
              b.y[j],
              b.yaw[j],
              b.length[j],
              b.width[j],
            )
          ) {
            if (!out[i]) count++;
            if (!out[j]) count++;
            out[i] = 1;
            out[j] = 1;
          }
        }
      }
    }
  }
  return count;
}

let radius = new Float64Array(0);

/** Per agent: 1 when an evaluated agent overlaps another agent at any step of [from, to). */
export function collidedAgents(
  f: TrajectoryFeatures,
  numSteps: number,
  evaluated: Uint8Array,
  from: number,
  to: number,
): Uint8Array {
  const n = evaluated.length;
  const out = new Uint8Array(n);
  for (let a = 0; a < n; a++) {
    if (!evaluated[a]) continue;
    for (let t = from; t < to; t++) if (f.collided[a * numSteps + t]) out[a] = 1;
  }
  return out;
}
