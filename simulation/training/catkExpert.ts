// CAT-K relabelling for real logs (Zhang et al., "Closed-loop supervised fine-tuning of tokenized traffic
// models", CVPR 2025): among the policy's top-K actions, the one whose next state stays closest to the log.
import type { SimEnv } from '../env.ts';
import { bicycleStep } from '../dynamics/bicycle.ts';
import { boxesOverlap } from '../metrics/collision.ts';
import type { ActionBins } from './actionBins.ts';

export interface CatkConfig {
  /** How many of the policy's most likely action bins are candidates (CAT-K's K; ours, not the paper's). */
  topK: number;
  /**
   * Each candidate is held this long and its end pose compared with the logged pose then, seconds (CAT-K
   * compares one token of 0.5 s; one 0.1 s step barely separates the bins).
   */
  horizonS: number;
  /**
   * Drop candidates whose end box overlaps another agent's (the others carried on at their current velocity),
   * unless every candidate does: the log's track may run through agents the rollout has moved (ours).
   */
  avoidOverlap: boolean;
}

export const DEFAULT_CATK: CatkConfig = { topK: 5, horizonS: 0.5, avoidOverlap: false };

/** Mean distance between the four corners of two boxes of the same size (CAT-K's contour distance), m. */
export function cornerDistanceM(
  x0: number,
  y0: number,
  yaw0: number,
  x1: number,
  y1: number,
  yaw1: number,
  lengthM: number,
  widthM: number,
): number {
  const c0 = Math.cos(yaw0);
  const s0 = Math.sin(yaw0);
  const c1 = Math.cos(yaw1);
  const s1 = Math.sin(yaw1);
  let sum = 0;
  for (const [u, v] of [
    [0.5, 0.5],
    [0.5, -0.5],
    [-0.5, 0.5],
    [-0.5, -0.5],
  ]) {
    const lx = u * lengthM;
    const ly = v * widthM;
    const dx = x0 + c0 * lx - s0 * ly - (x1 + c1 * lx - s1 * ly);
    const dy = y0 + s0 * lx + c0 * ly - (y1 + s1 * lx + c1 * ly);
    sum += Math.hypot(dx, dy);
  }
  return sum / 4;
}

/** Indices of the k largest logits of row q (k ≤ A), most likely first. */
export function topKBins(logits: Float32Array, q: number, A: number, k: number, out: Int32Array): number {
  const n = Math.min(k, A, out.length);
  const o = q * A;
  let filled = 0;
  for (let i = 0; i < A; i++) {
    const v = logits[o + i];
    if (filled < n) filled++;
    else if (v <= logits[o + out[n - 1]]) continue;
    // Insert i, keeping out[0..filled) sorted by logit, largest first.
    let j = filled - 1;
    while (j > 0 && logits[o + out[j - 1]] < v) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = i;
  }
  return n;
}

const sx = new Float64Array(1);
const sy = new Float64Array(1);
const syaw = new Float64Array(1);
const sv = new Float64Array(1);
let cand = new Int32Array(0);

/**
 * The CAT-K label of agent g now: of the policy's top-K bins (row q of logits), the one that, held for
 * horizonS from the agent's simulated state, ends with its box nearest the logged box at that step (the
 * latest valid logged step within the horizon). −1 when the log has no valid step ahead (no label).
 */
export function catkLabel(
  env: SimEnv,
  g: number,
  logits: Float32Array,
  q: number,
  bins: ActionBins,
  cfg: CatkConfig = DEFAULT_CATK,
  baseCurvature = 0,
  baseAccel = 0,
): number {
  const si = env.scenarioOf[g];
  const s = env.scenarios[si];
  const a = s.agents;
  const T = s.numSteps;
  const row = env.rowOf[g];
  const now = env.currentStepOf(si);
  const H = Math.max(1, Math.round(cfg.horizonS / env.dtS));
  let target = -1;
  let steps = 0;
  for (let h = Math.min(H, T - 1 - now); h >= 1; h--) {
    if (a.valid[row * T + now + h]) {
      target = row * T + now + h;
      steps = h;
      break;
    }
  }
  if (target < 0) return -1;
  if (cand.length < cfg.topK) cand = new Int32Array(cfg.topK);
  const n = topKBins(logits, q, bins.count, cfg.topK, cand);
  const lim = env.config.bicycle;
  let best = -1;
  let bestD = Infinity;
  for (let c = 0; c < n; c++) {
    const b = cand[c];
    sx[0] = env.x[g];
    sy[0] = env.y[g];
    syaw[0] = env.yaw[g];
    sv[0] = env.speed[g];
    for (let h = 0; h < steps; h++)
      bicycleStep(
        0,
        sx,
        sy,
        syaw,
        sv,
        bins.accelOf(b, baseAccel),
        bins.curvatureOf(b, baseCurvature),
        env.dtS,
        lim,
      );
    const d = cornerDistanceM(
      sx[0],
      sy[0],
      syaw[0],
      a.x[target],
      a.y[target],
      a.yaw[target],
      env.length[g],
      env.width[g],
    );
    // An overlapping candidate counts only when nothing else is left (its distance pushed past all others).
    const cost = cfg.avoidOverlap && overlapsOthers(env, g, sx[0], sy[0], syaw[0], steps) ? d + 1e6 : d;
    if (cost < bestD) {
      bestD = cost;
      best = b;
    }
  }
  return best;
}

/** Whether agent g's box at (x, y, yaw) overlaps another present agent of its scenario carried on at its velocity. */
function overlapsOthers(env: SimEnv, g: number, x: number, y: number, yaw: number, steps: number): boolean {
  const si = env.scenarioOf[g];
  const tS = steps * env.dtS;
  const reach = env.length[g] + 40;
  for (let o = env.offsets[si]; o < env.offsets[si + 1]; o++) {
    if (o === g || !env.present[o] || !env.valid[o]) continue;
    const ox = env.x[o] + env.vx[o] * tS;
    const oy = env.y[o] + env.vy[o] * tS;
    if (Math.abs(ox - x) > reach || Math.abs(oy - y) > reach) continue;
    if (boxesOverlap(x, y, yaw, env.length[g], env.width[g], ox, oy, env.yaw[o], env.length[o], env.width[o]))
      return true;
  }
  return false;
}

/** Whether a scenario is a real log (no synthetic town's traffic or long-tail oracle drove it). */
export function isRealLog(source: string): boolean {
  return source !== 'synthetic' && !source.startsWith('longtail');
}
