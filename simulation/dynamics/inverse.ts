// Inverse dynamics: the expert actions that reproduce a logged track step by step (bicycle
// acceleration/curvature, or delta displacements), for imitation learning from logs.
import type { AgentTracks } from '../scenario.ts';
import { bicycleInverse } from './bicycle.ts';
import { deltaInverse } from './delta.ts';

export interface ExpertActions {
  /** Floats per action (2 for bicycle, 3 for delta). */
  size: number;
  /** Action from step t to t+1 of agent a at ((a * (numSteps − 1)) + t) * size. */
  actions: Float32Array;
  /** 1 where both steps t and t+1 are valid. */
  valid: Uint8Array;
}

/** Signed speed along the heading from a velocity vector. */
export function signedSpeed(vx: number, vy: number, yaw: number): number {
  return vx * Math.cos(yaw) + vy * Math.sin(yaw);
}

/**
 * Bicycle actions (acceleration m/s², curvature 1/m) of every agent and step, unclipped (so a caller
 * can measure how often the log exceeds the limits). Speeds come from the logged velocity vectors.
 */
export function inverseBicycle(tracks: AgentTracks, numSteps: number, dtS: number): ExpertActions {
  const n = tracks.ids.length;
  const m = numSteps - 1;
  const actions = new Float32Array(n * m * 2);
  const valid = new Uint8Array(n * m);
  for (let a = 0; a < n; a++) {
    for (let t = 0; t < m; t++) {
      const k0 = a * numSteps + t;
      const k1 = k0 + 1;
      if (!tracks.valid[k0] || !tracks.valid[k1]) continue;
      const y0 = tracks.yaw[k0];
      const y1 = tracks.yaw[k1];
      const [acc, kappa] = bicycleInverse(
        y0,
        Math.max(0, signedSpeed(tracks.vx[k0], tracks.vy[k0], y0)),
        y1,
        Math.max(0, signedSpeed(tracks.vx[k1], tracks.vy[k1], y1)),
        dtS,
      );
      const j = a * m + t;
      actions[2 * j] = acc;
      actions[2 * j + 1] = kappa;
      valid[j] = 1;
    }
  }
  return { size: 2, actions, valid };
}

/** Delta actions (dx, dy, dyaw) of every agent and step; replaying them reproduces the log (up to float32 rounding). */
export function inverseDelta(tracks: AgentTracks, numSteps: number): ExpertActions {
  const n = tracks.ids.length;
  const m = numSteps - 1;
  const actions = new Float32Array(n * m * 3);
  const valid = new Uint8Array(n * m);
  for (let a = 0; a < n; a++) {
    for (let t = 0; t < m; t++) {
      const k0 = a * numSteps + t;
      const k1 = k0 + 1;
      if (!tracks.valid[k0] || !tracks.valid[k1]) continue;
      const d = deltaInverse(
        tracks.x[k0],
        tracks.y[k0],
        tracks.yaw[k0],
        tracks.x[k1],
        tracks.y[k1],
        tracks.yaw[k1],
      );
      const j = a * m + t;
      actions.set(d, 3 * j);
      valid[j] = 1;
    }
  }
  return { size: 3, actions, valid };
}
