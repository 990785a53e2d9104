// One step of the learned policy on a batched environment: which agents it drives, their actions
// picked from the logits (sampled for stochastic rollouts, argmax as an option), written as bicycle actions.
import { ACTION_STRIDE, type SimEnv } from '../env.ts';
import { IDM_ACCEL_FEATURE, PURSUIT_CURVATURE_FEATURE } from '../expertFeatures.ts';
import { type ObservationConfig, observationOffsets, observationVersion } from '../observation.ts';
import type { ActionBins } from './actionBins.ts';

/** The agents the policy acts for now: controlled, valid, their scenario running, not left to rules (`ruled`). */
export function drivenAgents(env: SimEnv, out?: Int32Array, ruled?: Uint8Array): Int32Array {
  const mine = (g: number) => env.controlled[g] === 1 && env.live[g] === 1 && !(ruled && ruled[g]);
  let n = 0;
  for (let g = 0; g < env.n; g++) if (mine(g)) n++;
  const list = out && out.length === n ? out : new Int32Array(n);
  let k = 0;
  for (let g = 0; g < env.n; g++) if (mine(g)) list[k++] = g;
  return list;
}

let expScratch = new Float64Array(0);

/**
 * Pick one action per row of `logits` [n, A]: argmax, or a draw from softmax(logits / temperature)
 * with the uniform `u(q)` of row q. Writes the chosen index and its log-probability into `action`
 * and `logp`: under the untempered softmax, or with `logpTempered` under the distribution it was drawn
 * from (PPO on a tempered policy, PpoLossConfig.temperature).
 */
export function selectActions(
  logits: Float32Array,
  n: number,
  A: number,
  mode: 'sample' | 'argmax',
  u: (q: number) => number,
  action: Int32Array,
  logp: Float32Array,
  temperature = 1,
  logpTempered = false,
): void {
  // Each exponential once per row (the sums and the draw reuse them: the same values as recomputing).
  if (expScratch.length < A) expScratch = new Float64Array(A);
  const e = expScratch;
  const invT = 1 / temperature;
  for (let q = 0; q < n; q++) {
    const o = q * A;
    let max = -Infinity;
    let arg = 0;
    for (let i = 0; i < A; i++) {
      if (logits[o + i] > max) {
        max = logits[o + i];
        arg = i;
      }
    }
    let z = 0;
    for (let i = 0; i < A; i++) z += e[i] = Math.exp(logits[o + i] - max);
    const logZ = max + Math.log(z);
    let pick = arg;
    let zt = z;
    if (mode === 'sample') {
      if (invT !== 1) {
        zt = 0;
        for (let i = 0; i < A; i++) zt += e[i] = Math.exp((logits[o + i] - max) * invT);
      }
      let r = u(q) * zt;
      pick = A - 1;
      for (let i = 0; i < A; i++) {
        r -= e[i];
        if (r <= 0) {
          pick = i;
          break;
        }
      }
    }
    action[q] = pick;
    logp[q] =
      logpTempered && mode === 'sample' && invT !== 1
        ? (logits[o + pick] - max) * invT - Math.log(zt)
        : logits[o + pick] - logZ;
  }
}

/**
 * Per observation row, what residual bins add to, as [curvature, acceleration] pairs (row q at 2q): the
 * pure-pursuit curvature on the agent's route and IDM's acceleration from the expert block (0 off every
 * lane, for walkers, and in layouts without the block).
 */
export function actionBase(
  obs: ArrayLike<number>,
  rows: number,
  obsCfg: ObservationConfig,
  out: Float32Array = new Float32Array(2 * rows),
): Float32Array {
  if (observationVersion(obsCfg) !== 2) return out.fill(0, 0, 2 * rows);
  const { expert, size } = observationOffsets(obsCfg);
  for (let q = 0; q < rows; q++) {
    out[2 * q] = obs[q * size + expert + PURSUIT_CURVATURE_FEATURE];
    out[2 * q + 1] = obs[q * size + expert + IDM_ACCEL_FEATURE];
  }
  return out;
}

/**
 * Write the bicycle (acceleration, curvature) of each driven agent's action into env.actions; `base`
 * holds each row's actionBase where the bins are residual.
 */
export function writeActions(
  env: SimEnv,
  agents: Int32Array,
  action: ArrayLike<number>,
  bins: ActionBins,
  base?: ArrayLike<number>,
): void {
  for (let q = 0; q < agents.length; q++) {
    const o = agents[q] * ACTION_STRIDE;
    env.actions[o] = bins.accelOf(action[q], base ? base[2 * q + 1] : 0);
    env.actions[o + 1] = bins.curvatureOf(action[q], base ? base[2 * q] : 0);
  }
}
