// Crossing conflicts as observation features: the moving agents whose constant-velocity path crosses the
// agent's route ahead within a horizon (issue 32's "crossing conflicts"; cross traffic and oncoming cars at a turn).
import { type SimEnv, TYPE_CODE } from './env.ts';

/**
 * Per slot: valid, arc length along my route to the crossing (m), the other's time to reach it (s), the
 * other's distance to it (m), the other's speed (m/s), cos and sin of the other's heading relative to my
 * route at the crossing, vulnerable (pedestrian or cyclist). Slots sorted by the other's time, earliest first.
 */
export const CROSSING_FEATURES = 8;

export interface CrossingConfig {
  /** How far ahead in time the others' straight-line paths are followed, s. */
  horizonS: number;
  /** Slower agents are standing, not crossing (a standing car on the route is IDM's leader), m/s. */
  minSpeedMps: number;
  /**
   * Least angle between the other's motion and my route where they cross, rad: a car ahead in my lane,
   * or one following me, is a leader or a follower, not a crossing.
   */
  minAngleRad: number;
}

export const DEFAULT_CROSSING: CrossingConfig = { horizonS: 8, minSpeedMps: 0.5, minAngleRad: 0.5 };

/** Input scales of one slot (O(1) values for the network). */
export const CROSSING_SCALE = [1, 0.02, 0.125, 0.02, 0.1, 1, 1, 1] as const;

/** A route ahead as a polyline: vertex k at (x[k], y[k]), arc length s[k] from the agent (s[0] = 0). */
export interface RoutePolyline {
  x: Float64Array;
  y: Float64Array;
  s: Float64Array;
  count: number;
}

export function routePolyline(capacity: number): RoutePolyline {
  return {
    x: new Float64Array(capacity),
    y: new Float64Array(capacity),
    s: new Float64Array(capacity),
    count: 0,
  };
}

/**
 * Writes up to `slots` crossing conflicts of agent g at out[at …] (zeros stay where there are fewer): for
 * each candidate, where its path from now to `horizonS` first meets the route (the crossing nearest along
 * my route), kept when it moves fast enough and crosses at a wide enough angle.
 */
export function crossingFeatures(
  env: Pick<SimEnv, 'x' | 'y' | 'vx' | 'vy' | 'live' | 'typeCode'>,
  g: number,
  route: RoutePolyline,
  candidates: ArrayLike<number>,
  candidateCount: number,
  slots: number,
  out: Float32Array<ArrayBufferLike>,
  at: number,
  cfg: CrossingConfig = DEFAULT_CROSSING,
): void {
  if (route.count < 2 || slots <= 0) return;
  const cosMin = Math.cos(cfg.minAngleRad);
  let kept = 0;
  for (let q = 0; q < candidateCount; q++) {
    const j = candidates[q];
    if (j === g || !env.live[j]) continue;
    const vx = env.vx[j];
    const vy = env.vy[j];
    const v = Math.hypot(vx, vy);
    if (v < cfg.minSpeedMps) continue;
    const px = env.x[j];
    const py = env.y[j];
    const ex = vx * cfg.horizonS;
    const ey = vy * cfg.horizonS;
    // First route segment (nearest along my route) that the path segment p → p + e crosses.
    for (let k = 0; k + 1 < route.count; k++) {
      const ax = route.x[k];
      const ay = route.y[k];
      const bx = route.x[k + 1] - ax;
      const by = route.y[k + 1] - ay;
      const den = ex * by - ey * bx;
      if (den === 0) continue;
      const wx = ax - px;
      const wy = ay - py;
      const u = (wx * by - wy * bx) / den; // along the other's path, 0–1
      const w = (wx * ey - wy * ex) / den; // along the route segment, 0–1
      if (u < 0 || u > 1 || w < 0 || w > 1) continue;
      const segLen = Math.hypot(bx, by);
      const cosAngle = (vx * bx + vy * by) / (v * segLen);
      if (Math.abs(cosAngle) > cosMin) break;
      const time = u * cfg.horizonS;
      const slot = insertionSlot(out, at, kept, slots, time);
      if (slot < 0) break;
      const o = at + slot * CROSSING_FEATURES;
      const sinAngle = (bx * vy - by * vx) / (v * segLen);
      out[o] = 1;
      out[o + 1] = route.s[k] + w * segLen;
      out[o + 2] = time;
      out[o + 3] = u * v * cfg.horizonS;
      out[o + 4] = v;
      out[o + 5] = cosAngle;
      out[o + 6] = sinAngle;
      const type = env.typeCode[j];
      out[o + 7] = type === TYPE_CODE.pedestrian || type === TYPE_CODE.cyclist ? 1 : 0;
      kept = Math.min(slots, kept + 1);
      break;
    }
  }
}

/**
 * Where a conflict at `time` goes among the `kept` slots sorted by time (shifting later ones down, the
 * last dropped when full); −1 when every slot is full and earlier.
 */
function insertionSlot(
  out: Float32Array<ArrayBufferLike>,
  at: number,
  kept: number,
  slots: number,
  time: number,
): number {
  let pos = kept;
  while (pos > 0 && out[at + (pos - 1) * CROSSING_FEATURES + 2] > time) pos--;
  if (pos >= slots) return -1;
  const last = Math.min(kept, slots - 1);
  for (let s = last; s > pos; s--)
    out.copyWithin(at + s * CROSSING_FEATURES, at + (s - 1) * CROSSING_FEATURES, at + s * CROSSING_FEATURES);
  return pos;
}
