// Off-road (Waymax / Sim Agents): a vehicle is off-road at a step when any corner of its footprint
// lies outside the drivable area (positive signed distance to the road boundary, map/drivableField).
import type { TrajectoryFeatures } from './trajectoryFeatures.ts';

/**
 * Per agent: 1 when an evaluated vehicle is off-road at any step of [from, to), 0 otherwise; NaN
 * entries (pedestrians, cyclists and every agent when the map has no road information) are not rated.
 */
export function offroadAgents(
  f: TrajectoryFeatures,
  isVehicle: Uint8Array,
  numSteps: number,
  evaluated: Uint8Array,
  from: number,
  to: number,
  hasRoad: boolean,
): Float64Array {
  const n = evaluated.length;
  const out = new Float64Array(n).fill(NaN);
  if (!hasRoad) return out;
  for (let a = 0; a < n; a++) {
    if (!evaluated[a] || !isVehicle[a]) continue;
    out[a] = 0;
    for (let t = from; t < to; t++) if (f.offroad[a * numSteps + t]) out[a] = 1;
  }
  return out;
}
