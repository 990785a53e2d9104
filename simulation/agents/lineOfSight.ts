// Whether a vehicle or static object blocks the line of sight from one agent's front to another's centre:
// how IDM decides that a pedestrian hidden behind a parked car is not seen (its `occlusion` option).
import { type SimEnv, TYPE_CODE } from '../env.ts';
import type { SpatialGrid } from '../spatialGrid.ts';
import { segmentHitsBox } from './segmentHitsBox.ts';

/** True when a vehicle (or static object) of g's scenario blocks the line from g's front to j's centre. */
export function lineOfSightBlocked(env: SimEnv, grid: SpatialGrid, g: number, j: number): boolean {
  const si = env.scenarioOf[g];
  const c = Math.cos(env.yaw[g]);
  const sn = Math.sin(env.yaw[g]);
  const ax = env.x[g] + (c * env.length[g]) / 2;
  const ay = env.y[g] + (sn * env.length[g]) / 2;
  const bx = env.x[j];
  const by = env.y[j];
  const c0 = grid.cellOf(Math.min(ax, bx)) - 1;
  const c1 = grid.cellOf(Math.max(ax, bx)) + 1;
  const r0 = grid.cellOf(Math.min(ay, by)) - 1;
  const r1 = grid.cellOf(Math.max(ay, by)) + 1;
  for (let cx = c0; cx <= c1; cx++) {
    for (let cy = r0; cy <= r1; cy++) {
      const b = grid.bucket(cx, cy, si);
      for (let p = grid.start[b]; p < grid.start[b + 1]; p++) {
        const k = grid.items[p];
        if (k === g || k === j || env.scenarioOf[k] !== si) continue;
        const t = env.typeCode[k];
        if (t === TYPE_CODE.pedestrian || t === TYPE_CODE.cyclist) continue;
        if (segmentHitsBox(ax, ay, bx, by, env.x[k], env.y[k], env.yaw[k], env.length[k], env.width[k]))
          return true;
      }
    }
  }
  return false;
}
