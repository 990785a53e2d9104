// Kinematic infeasibility (Waymax): a step is infeasible when the motion needs more than a vehicle can
// do: |acceleration| above 10.4 m/s², or (vehicles moving faster than 1 m/s) curvature above 0.3 1/m.
import type { TrajectoryFeatures } from './trajectoryFeatures.ts';

export interface KinematicsConfig {
  maxAccelMps2: number;
  maxCurvaturePerM: number;
  /** Curvature is only judged above this speed (heading noise dominates below it), m/s. */
  minSpeedForCurvatureMps: number;
}

export const DEFAULT_KINEMATICS: KinematicsConfig = {
  maxAccelMps2: 10.4,
  maxCurvaturePerM: 0.3,
  minSpeedForCurvatureMps: 1,
};

/** Per agent: 1 when any evaluated step in [from, to) is infeasible. */
export function infeasibleAgents(
  f: TrajectoryFeatures,
  isVehicle: Uint8Array,
  numSteps: number,
  evaluated: Uint8Array,
  from: number,
  to: number,
  cfg: KinematicsConfig = DEFAULT_KINEMATICS,
): Uint8Array {
  const n = evaluated.length;
  const out = new Uint8Array(n);
  for (let a = 0; a < n; a++) {
    if (!evaluated[a]) continue;
    for (let t = from; t < to; t++) {
      const k = a * numSteps + t;
      if (Math.abs(f.accel[k]) > cfg.maxAccelMps2) out[a] = 1;
      const v = f.speed[k];
      if (
        isVehicle[a] &&
        v > cfg.minSpeedForCurvatureMps &&
        Math.abs(f.yawRate[k] / v) > cfg.maxCurvaturePerM
      )
        out[a] = 1;
      if (out[a]) break;
    }
  }
  return out;
}
