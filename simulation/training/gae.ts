// Generalised advantage estimation (Schulman et al., ICLR 2016) over batched agent trajectories, as
// PPO uses it: A_t = Σ_k (γλ)^k δ_{t+k}, δ_t = r_t + γ V(s_{t+1}) − V(s_t), cut where an episode ends.

export interface GaeConfig {
  gamma: number;
  lambda: number;
}

export const DEFAULT_GAE: GaeConfig = { gamma: 0.99, lambda: 0.95 };

/**
 * Arrays are step-major [T, n] (n agents). `valid[t, i]` says agent i acted at step t; `last[t, i]`
 * says step t is its last of the episode (the value after it is `bootstrap[i]` when `last` is the
 * final step, 0 for a terminal end). Returns advantages and returns (advantage + value), 0 where invalid.
 */
export function gae(
  rewards: Float32Array,
  values: Float32Array,
  valid: Uint8Array,
  T: number,
  n: number,
  cfg: GaeConfig = DEFAULT_GAE,
  bootstrap: Float32Array = new Float32Array(n),
): { advantages: Float32Array; returns: Float32Array } {
  const advantages = new Float32Array(T * n);
  const returns = new Float32Array(T * n);
  const { gamma, lambda } = cfg;
  for (let i = 0; i < n; i++) {
    let next = 0;
    let nextValue = bootstrap[i];
    for (let t = T - 1; t >= 0; t--) {
      const k = t * n + i;
      if (!valid[k]) {
        // A gap ends the episode before it: nothing flows across.
        next = 0;
        nextValue = 0;
        continue;
      }
      const delta = rewards[k] + gamma * nextValue - values[k];
      next = delta + gamma * lambda * next;
      advantages[k] = next;
      returns[k] = next + values[k];
      nextValue = values[k];
    }
  }
  return { advantages, returns };
}

/** Normalise advantages to zero mean and unit variance over the valid entries (PPO's usual step). */
export function normaliseAdvantages(adv: Float32Array, valid: Uint8Array): void {
  let s = 0;
  let s2 = 0;
  let n = 0;
  for (let k = 0; k < adv.length; k++) {
    if (!valid[k]) continue;
    s += adv[k];
    s2 += adv[k] * adv[k];
    n++;
  }
  if (n < 2) return;
  const mean = s / n;
  const std = Math.sqrt(Math.max(s2 / n - mean * mean, 0)) + 1e-8;
  for (let k = 0; k < adv.length; k++) if (valid[k]) adv[k] = (adv[k] - mean) / std;
}
