// Recording the town traffic into scenario tracks: every agent's box each recorded step, the distance each covered
// (the ego is the car that drove farthest), and the rows reordered ego first, then by role.
import { type AgentTracks, allocateAgentTracks } from '../../scenario.ts';
import { agentTypeOf } from '../agentSizes.ts';
import type { AgentRole, AgentState } from './trafficState.ts';

/** Write every agent's state at `step` into raw (agent-major, numSteps per agent) and add the distance covered. */
export function recordStep(
  raw: AgentTracks,
  a: AgentState,
  numSteps: number,
  step: number,
  travelled: Float64Array,
): void {
  for (let i = 0; i < a.count; i++) {
    const k = i * numSteps + step;
    raw.x[k] = a.x[i];
    raw.y[k] = a.y[i];
    raw.z[k] = a.z[i] + a.height[i] / 2;
    raw.yaw[k] = a.yaw[i];
    raw.vx[k] = a.v[i] * Math.cos(a.yaw[i]);
    raw.vy[k] = a.v[i] * Math.sin(a.yaw[i]);
    raw.valid[k] = 1;
    if (step > 0) travelled[i] += Math.hypot(a.x[i] - raw.x[k - 1], a.y[i] - raw.y[k - 1]);
  }
}

/** Rows of the tracks: the ego first, then moving vehicles, cyclists, pedestrians, parked cars (each by agent index). */
const ROLE_RANK: Record<AgentRole, number> = { ego: 0, vehicle: 1, cyclist: 2, pedestrian: 3, parked: 4 };

/** Agent indices in row order. */
export function rowOrder(roles: AgentRole[]): number[] {
  return Array.from({ length: roles.length }, (_, i) => i).sort(
    (a, b) => ROLE_RANK[roles[a]] - ROLE_RANK[roles[b]] || a - b,
  );
}

/** raw's agents copied into new tracks in `order`, with ids, types and box sizes. */
export function reorderTracks(
  raw: AgentTracks,
  a: AgentState,
  order: number[],
  numSteps: number,
): AgentTracks {
  const tracks = allocateAgentTracks(a.count, numSteps);
  for (let r = 0; r < a.count; r++) {
    const i = order[r];
    tracks.ids[r] = r;
    tracks.types[r] = agentTypeOf(a.classes[i]);
    tracks.length[r] = a.length[i];
    tracks.width[r] = a.width[i];
    tracks.height[r] = a.height[i];
    const from = i * numSteps;
    const to = r * numSteps;
    for (const key of ['x', 'y', 'z', 'yaw', 'vx', 'vy', 'valid'] as const) {
      tracks[key].set(raw[key].subarray(from, from + numSteps), to);
    }
  }
  return tracks;
}
