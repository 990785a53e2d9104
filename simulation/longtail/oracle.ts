// The solvability check of a long-tail scenario: an oracle driver that knows every other agent's
// future (their scripted log) searches braking plans along the ego's route — brake at a ≤ 6 m/s²
// from now, optionally resuming later — for one that never overlaps anyone. It returns that plan's
// trajectory (which becomes the ego's log) or null when the scenario is not solvable.
import { boxesOverlap } from '../metrics/collision.ts';
import type { Scenario } from '../scenario.ts';
import { type Path, pathPose, speedProfile } from './scenarioBuilder.ts';

export interface OracleConfig {
  /** Braking levels tried, m/s² (≤ the bicycle model's 6). */
  brakes: number[];
  /** Times (s) after which the plan accelerates back to its start speed; Infinity = never. */
  resumeAfterS: number[];
  resumeAccelMps2: number;
  /** Safety margin added to the ego box on every side, metres. */
  marginM: number;
}

export const DEFAULT_ORACLE: OracleConfig = {
  brakes: [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6],
  resumeAfterS: [1, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, Infinity],
  resumeAccelMps2: 1.5,
  marginM: 0.3,
};

export interface OraclePlan {
  brakeMps2: number;
  resumeAfterS: number;
  /** Ego pose and speed at every step after the current one. */
  poses: { x: number; y: number; yaw: number; v: number }[];
}

/** True when the ego, placed at `pose` at step t, overlaps any other valid agent. */
function collides(s: Scenario, t: number, x: number, y: number, yaw: number, margin: number): boolean {
  const a = s.agents;
  const T = s.numSteps;
  const e = s.egoIndex;
  const L = a.length[e] + 2 * margin;
  const W = a.width[e] + 2 * margin;
  for (let j = 0; j < a.ids.length; j++) {
    if (j === e) continue;
    const k = j * T + t;
    if (!a.valid[k]) continue;
    if (boxesOverlap(x, y, yaw, L, W, a.x[k], a.y[k], a.yaw[k], a.length[j], a.width[j])) return true;
  }
  return false;
}

/** Try the plan (brake, resume) along `route` from arc length s0 at speed v0; the poses if collision-free. */
export function tryPlan(
  s: Scenario,
  route: Path,
  s0: number,
  v0: number,
  brake: number,
  resume: number,
  cfg: OracleConfig = DEFAULT_ORACLE,
): OraclePlan | null {
  const phases = [{ fromS: 0, accel: -brake }];
  if (Number.isFinite(resume)) phases.push({ fromS: resume, accel: cfg.resumeAccelMps2 });
  const prof = speedProfile(v0, phases, v0);
  const poses: OraclePlan['poses'] = [];
  for (let t = s.currentStep + 1; t < s.numSteps; t++) {
    const q = prof((t - s.currentStep) * s.dtS);
    const p = pathPose(route, s0 + q.s);
    if (collides(s, t, p.x, p.y, p.yaw, cfg.marginM)) return null;
    poses.push({ ...p, v: q.v });
  }
  return { brakeMps2: brake, resumeAfterS: resume, poses };
}

/** The gentlest collision-free plan (least braking, then earliest resume), or null. */
export function solve(
  s: Scenario,
  route: Path,
  s0: number,
  v0: number,
  cfg: OracleConfig = DEFAULT_ORACLE,
): OraclePlan | null {
  for (const brake of cfg.brakes) {
    const resumes = brake === 0 ? [Infinity] : cfg.resumeAfterS;
    for (const r of resumes) {
      const plan = tryPlan(s, route, s0, v0, brake, r, cfg);
      if (plan) return plan;
    }
  }
  return null;
}

/** Write a plan into the ego's track (steps after the current one) as its log. */
export function applyPlan(s: Scenario, plan: OraclePlan): void {
  const a = s.agents;
  const T = s.numSteps;
  const e = s.egoIndex;
  plan.poses.forEach((p, i) => {
    const k = e * T + s.currentStep + 1 + i;
    a.x[k] = p.x;
    a.y[k] = p.y;
    a.yaw[k] = p.yaw;
    a.vx[k] = p.v * Math.cos(p.yaw);
    a.vy[k] = p.v * Math.sin(p.yaw);
    a.valid[k] = 1;
  });
  s.goalX[e] = a.x[e * T + T - 1];
  s.goalY[e] = a.y[e * T + T - 1];
}
