// Delta dynamics (Waymax DeltaGlobal): the action is the displacement (dx, dy, dyaw) over one step in
// the world frame; velocity becomes displacement / dt. Used for constant-velocity agents and replay.
import { wrapAngleLow } from '../../core/geometry/pose.ts';

/** Advance agent `i` by (dx, dy, dyaw); velocity and speed follow from the displacement. */
export function deltaStep(
  i: number,
  x: Float64Array,
  y: Float64Array,
  yaw: Float64Array,
  vx: Float64Array,
  vy: Float64Array,
  speed: Float64Array,
  dx: number,
  dy: number,
  dyaw: number,
  dtS: number,
): void {
  x[i] += dx;
  y[i] += dy;
  const h = yaw[i] + dyaw;
  yaw[i] = wrapAngleLow(h);
  vx[i] = dx / dtS;
  vy[i] = dy / dtS;
  speed[i] = Math.hypot(dx, dy) / dtS;
}

/** The delta action between two states: [dx, dy, dyaw] with dyaw wrapped to [−π, π). */
export function deltaInverse(
  x0: number,
  y0: number,
  yaw0: number,
  x1: number,
  y1: number,
  yaw1: number,
): [number, number, number] {
  return [x1 - x0, y1 - y0, wrapAngleLow(yaw1 - yaw0)];
}
