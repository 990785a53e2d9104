// State dynamics (Waymax StateDynamics): the action is the next state itself (x, y, yaw, vx, vy,
// valid), set verbatim. Log replay and policies that output whole states use it.

/** Number of floats of a state action. */
export const STATE_ACTION_SIZE = 6;

export function stateStep(
  i: number,
  x: Float64Array,
  y: Float64Array,
  yaw: Float64Array,
  vx: Float64Array,
  vy: Float64Array,
  speed: Float64Array,
  valid: Uint8Array,
  action: Float32Array,
  offset: number,
): void {
  x[i] = action[offset];
  y[i] = action[offset + 1];
  yaw[i] = action[offset + 2];
  vx[i] = action[offset + 3];
  vy[i] = action[offset + 4];
  valid[i] = action[offset + 5] > 0.5 ? 1 : 0;
  const c = Math.cos(yaw[i]);
  const s = Math.sin(yaw[i]);
  // Signed speed along the heading (a reversing agent has negative speed).
  speed[i] = vx[i] * c + vy[i] * s;
}
