// The realism term of the self-play teacher: its agents must stay within kinematic bounds — Waymax's
// infeasibility limits (|accel| ≤ 10.4 m/s², curvature ≤ 0.3 1/m, the bounds WOSAC's kinematic metrics
// assume) and a running pace for pedestrians — so it makes scenarios hard by timing, not by impossible motion.
import { DEFAULT_KINEMATICS } from '../metrics/kinematics.ts';
import type { Scenario } from '../scenario.ts';

export interface RealismBounds {
  maxAccelMps2: number;
  maxCurvaturePerM: number;
  minSpeedForCurvatureMps: number;
  /** Pedestrians faster than this are not walking or running people, m/s. */
  maxPedestrianSpeedMps: number;
}

export const DEFAULT_REALISM: RealismBounds = { ...DEFAULT_KINEMATICS, maxPedestrianSpeedMps: 3.5 };

export interface RealismScore {
  /** Share of the teacher's agent-steps within the bounds (1: all). */
  withinBounds: number;
  /** Every step of every teacher agent within the bounds. */
  plausible: boolean;
}

/** Realism of every agent but the ego (the teacher's) from the current step on, from the tracks' velocities. */
export function teacherRealism(s: Scenario, b: RealismBounds = DEFAULT_REALISM): RealismScore {
  const a = s.agents;
  const T = s.numSteps;
  let steps = 0;
  let bad = 0;
  for (let j = 0; j < a.ids.length; j++) {
    if (j === s.egoIndex) continue;
    for (let t = s.currentStep; t + 1 < T; t++) {
      const k = j * T + t;
      if (!a.valid[k] || !a.valid[k + 1]) continue;
      const v0 = Math.hypot(a.vx[k], a.vy[k]);
      const v1 = Math.hypot(a.vx[k + 1], a.vy[k + 1]);
      const accel = (v1 - v0) / s.dtS;
      let dyaw = a.yaw[k + 1] - a.yaw[k];
      dyaw = Math.atan2(Math.sin(dyaw), Math.cos(dyaw));
      const v = 0.5 * (v0 + v1);
      const curvature = v > b.minSpeedForCurvatureMps ? Math.abs(dyaw / s.dtS / v) : 0;
      const vehicle = a.types[j] === 'vehicle';
      const ok =
        Math.abs(accel) <= b.maxAccelMps2 &&
        (!vehicle || curvature <= b.maxCurvaturePerM) &&
        (a.types[j] !== 'pedestrian' || v1 <= b.maxPedestrianSpeedMps);
      steps++;
      if (!ok) bad++;
    }
  }
  return { withinBounds: steps ? 1 - bad / steps : 1, plausible: bad === 0 };
}
