// Stopping with the Intelligent Driver Model: the acceleration that brings a driver to rest at a point (a stop line,
// a red light, a conflict) and the braking distance that decides whether to try. Shared by the town traffic and the IDM agent.
import { type IdmConfig, idmAcceleration } from './idm.ts';

/** Gap floor, metres: at or past the point IDM still brakes hardest instead of dividing by zero. */
const MIN_STOP_GAP_M = 0.01;

/** IDM acceleration towards a standing obstacle `distanceM` ahead of the front bumper (closing at my own speed). */
export function idmStopAcceleration(cfg: IdmConfig, speedMps: number, distanceM: number): number {
  return idmAcceleration(cfg, speedMps, Math.max(MIN_STOP_GAP_M, distanceM), speedMps);
}

/** Distance to come to rest from speedMps at a constant decelMps2 (> 0), metres: v²/(2b). */
export function brakingDistance(speedMps: number, decelMps2: number): number {
  return (speedMps * speedMps) / (2 * decelMps2);
}
