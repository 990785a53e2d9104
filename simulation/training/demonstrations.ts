// Expert demonstrations by inverse dynamics (RTR's imitation data): the binned bicycle actions that
// track each logged trajectory, found with state feedback; steps no bin can follow are flagged infeasible.
import { wrapAngleLow } from '../../core/geometry/pose.ts';
import { bicycleStep, stepDistance } from '../dynamics/bicycle.ts';
import { signedSpeed } from '../dynamics/inverse.ts';
import type { AgentTracks } from '../scenario.ts';
import { ActionBins } from './actionBins.ts';

export interface DemonstrationConfig {
  /** A step whose best binned action still misses the logged position by more than this is infeasible, m. */
  infeasiblePosM: number;
  /** … or the logged heading by more than this, rad. */
  infeasibleYawRad: number;
  /** Weight of the heading error against the position error when picking the curvature bin, m/rad. */
  yawWeightM: number;
}

export const DEFAULT_DEMONSTRATIONS: DemonstrationConfig = {
  infeasiblePosM: 0.5,
  infeasibleYawRad: 0.15,
  yawWeightM: 2,
};

export interface Demonstrations {
  /** Action bin from step t to t+1 of agent row a at a × (numSteps − 1) + t; −1 where none. */
  action: Int16Array;
  /** 1 where steps t and t+1 are valid but no bin follows the log (dropped from the loss). */
  infeasible: Uint8Array;
  /** Position of the replayed (tracking) state after the step, for the replay check. */
  replayX: Float32Array;
  replayY: Float32Array;
  replayYaw: Float32Array;
  /** Distance between the replayed state and the log after each step (NaN where no action), m. */
  errorM: Float32Array;
}

/**
 * Inverse dynamics with feedback: agent by agent, a replayed bicycle state starts at the log; each step
 * takes the acceleration bin that best matches the logged distance and next speed, then the curvature
 * bin that brings the replayed pose nearest the next logged pose, and applies it. Because the replay
 * continues from its own state, errors from the bins' resolution are corrected, not accumulated:
 * replaying the recovered actions reproduces the log within the bins' resolution. A step the bins
 * cannot follow (a jump, a sideways or backwards move, a turn sharper than the model allows) is
 * flagged infeasible and the replay re-synchronises to the log.
 */
export function inverseDemonstrations(
  tracks: AgentTracks,
  numSteps: number,
  dtS: number,
  bins: ActionBins = new ActionBins(),
  cfg: DemonstrationConfig = DEFAULT_DEMONSTRATIONS,
): Demonstrations {
  const n = tracks.ids.length;
  const m = numSteps - 1;
  const action = new Int16Array(n * m).fill(-1);
  const infeasible = new Uint8Array(n * m);
  const replayX = new Float32Array(n * m);
  const replayY = new Float32Array(n * m);
  const replayYaw = new Float32Array(n * m);
  const errorM = new Float32Array(n * m).fill(NaN);
  const sx = new Float64Array(1);
  const sy = new Float64Array(1);
  const syaw = new Float64Array(1);
  const sv = new Float64Array(1);
  const tx = new Float64Array(1);
  const ty = new Float64Array(1);
  const tyaw = new Float64Array(1);
  const tv = new Float64Array(1);
  const A = bins.accel;
  const K = bins.curvature;
  const lim = { maxAccelMps2: Infinity, maxCurvaturePerM: Infinity };
  for (let a = 0; a < n; a++) {
    let synced = false;
    for (let t = 0; t < m; t++) {
      const k0 = a * numSteps + t;
      const k1 = k0 + 1;
      if (!tracks.valid[k0] || !tracks.valid[k1]) {
        synced = false;
        continue;
      }
      if (!synced) {
        sx[0] = tracks.x[k0];
        sy[0] = tracks.y[k0];
        syaw[0] = tracks.yaw[k0];
        sv[0] = Math.max(0, signedSpeed(tracks.vx[k0], tracks.vy[k0], tracks.yaw[k0]));
        synced = true;
      }
      const lx = tracks.x[k1];
      const ly = tracks.y[k1];
      const lyaw = tracks.yaw[k1];
      const lv = Math.max(0, signedSpeed(tracks.vx[k1], tracks.vy[k1], lyaw));
      const dLog = Math.hypot(lx - sx[0], ly - sy[0]);
      // Acceleration: match the distance to the next logged position and the next logged speed.
      let bestA = 0;
      let bestCost = Infinity;
      for (let i = 0; i < A.length; i++) {
        const d = stepDistance(sv[0], A[i], dtS);
        const v1 = Math.max(0, sv[0] + A[i] * dtS);
        const c = (d - dLog) ** 2 + (dtS * (v1 - lv)) ** 2;
        if (c < bestCost) {
          bestCost = c;
          bestA = i;
        }
      }
      // Curvature: the bin whose arc ends nearest the logged pose.
      let bestK = ActionBins.nearest(K, 0);
      bestCost = Infinity;
      for (let j = 0; j < K.length; j++) {
        tx[0] = sx[0];
        ty[0] = sy[0];
        tyaw[0] = syaw[0];
        tv[0] = sv[0];
        bicycleStep(0, tx, ty, tyaw, tv, A[bestA], K[j], dtS, lim);
        const c =
          (tx[0] - lx) ** 2 + (ty[0] - ly) ** 2 + (cfg.yawWeightM * wrapAngleLow(tyaw[0] - lyaw)) ** 2;
        // Ties (a standing agent: every curvature gives the same pose) go to the straightest bin.
        if (c < bestCost - 1e-12) {
          bestCost = c;
          bestK = j;
        }
      }
      bicycleStep(0, sx, sy, syaw, sv, A[bestA], K[bestK], dtS, lim);
      const j = a * m + t;
      const err = Math.hypot(sx[0] - lx, sy[0] - ly);
      const yawErr = Math.abs(wrapAngleLow(syaw[0] - lyaw));
      replayX[j] = sx[0];
      replayY[j] = sy[0];
      replayYaw[j] = syaw[0];
      errorM[j] = err;
      if (err > cfg.infeasiblePosM || yawErr > cfg.infeasibleYawRad) {
        infeasible[j] = 1;
        synced = false;
      } else {
        action[j] = bins.index(bestA, bestK);
      }
    }
  }
  return { action, infeasible, replayX, replayY, replayYaw, errorM };
}

/** Share of the agent-steps with both ends valid that are infeasible. */
export function infeasibleShare(d: Demonstrations): number {
  let bad = 0;
  let all = 0;
  for (let j = 0; j < d.action.length; j++) {
    if (d.infeasible[j]) bad++;
    if (d.infeasible[j] || d.action[j] >= 0) all++;
  }
  return all > 0 ? bad / all : 0;
}
