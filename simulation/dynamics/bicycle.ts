// Kinematic bicycle model with (acceleration, steering curvature) actions, as Waymax's invertible
// bicycle: |a| ≤ 6 m/s², |κ| ≤ 0.3 1/m; the path over a step is an exact arc of curvature κ.
import { wrapAngleLow } from '../../core/geometry/pose.ts';

/** Limits of the bicycle action (Waymax InvertibleBicycleModel defaults). */
export interface BicycleLimits {
  maxAccelMps2: number;
  maxCurvaturePerM: number;
}

export const DEFAULT_BICYCLE_LIMITS: BicycleLimits = { maxAccelMps2: 6, maxCurvaturePerM: 0.3 };

/** Distance travelled in one step from speed v with acceleration a, never reversing (v ≥ 0). */
export function stepDistance(speedMps: number, accelMps2: number, dtS: number): number {
  const v1 = speedMps + accelMps2 * dtS;
  if (v1 >= 0 || accelMps2 >= 0) return (speedMps + Math.max(v1, 0)) * 0.5 * dtS;
  // Stops within the step: v²/(2|a|).
  return (speedMps * speedMps) / (-2 * accelMps2);
}

/**
 * Advance one agent by one step in place (index `i` of the state arrays). The heading turns by κ·d over
 * the travelled distance d, and the position follows the exact arc (a straight line when κ ≈ 0), so
 * constant κ and speed trace a circle of radius 1/κ exactly. Speed is clamped at zero.
 */
export function bicycleStep(
  i: number,
  x: Float64Array,
  y: Float64Array,
  yaw: Float64Array,
  speed: Float64Array,
  accelMps2: number,
  curvaturePerM: number,
  dtS: number,
  limits: BicycleLimits = DEFAULT_BICYCLE_LIMITS,
): void {
  const a = Math.max(-limits.maxAccelMps2, Math.min(limits.maxAccelMps2, accelMps2));
  const k = Math.max(-limits.maxCurvaturePerM, Math.min(limits.maxCurvaturePerM, curvaturePerM));
  const v = Math.max(0, speed[i]);
  const d = stepDistance(v, a, dtS);
  const h0 = yaw[i];
  const dh = k * d;
  if (Math.abs(dh) < 1e-9) {
    x[i] += d * Math.cos(h0);
    y[i] += d * Math.sin(h0);
  } else {
    const h1 = h0 + dh;
    x[i] += (Math.sin(h1) - Math.sin(h0)) / k;
    y[i] -= (Math.cos(h1) - Math.cos(h0)) / k;
  }
  yaw[i] = wrapAngleLow(h0 + dh);
  speed[i] = Math.max(0, v + a * dtS);
}

/**
 * The action that takes state 0 to state 1 under the model (the inverse of bicycleStep, before
 * clipping): a = Δv/dt, κ = Δyaw/d. Returns [a, κ]; κ is 0 when the agent does not move.
 */
export function bicycleInverse(
  yaw0: number,
  speed0: number,
  yaw1: number,
  speed1: number,
  dtS: number,
): [number, number] {
  const a = (speed1 - speed0) / dtS;
  const d = stepDistance(Math.max(0, speed0), a, dtS);
  const k = d > 1e-6 ? wrapAngleLow(yaw1 - yaw0) / d : 0;
  return [a, k];
}
