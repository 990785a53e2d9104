// PPO (Schulman et al. 2017) on closed-loop experience: a few epochs of clipped-surrogate minibatch
// updates; with demonstrations (RTR) each minibatch also carries imitation rows and the loss is IL + λ·RL.
import type { Rng } from '../../core/rng.ts';
import type { AgentModel, TrainBatch } from './agentModel.ts';
import { emptyBatch, fillDemoRows } from './bc.ts';
import type { Experience } from './closedLoop.ts';
import type { DemoSet } from './demoData.ts';
import type { AnchorTopK } from './emaAnchor.ts';

/** EMA-PG inputs of an update: the anchor's top-k per experience row, its KL weight, the EMA step. */
export interface AnchorTerm {
  topK: AnchorTopK;
  klCoef: number;
  afterStep: () => void;
}

export interface PpoConfig {
  epochs: number;
  /** RL rows per minibatch. */
  minibatch: number;
  /** Imitation rows added to each minibatch in RTR mode. */
  demoRows: number;
}

export const DEFAULT_PPO: PpoConfig = { epochs: 2, minibatch: 512, demoRows: 256 };

/**
 * Update the policy on `exp` (epochs × shuffled minibatches). coef = [imitation, RL]: PPO alone is
 * [0, 1]; RTR is [1, λ] with `demos` rows in every minibatch. Returns the mean of each loss term.
 */
export async function ppoUpdate(
  model: AgentModel,
  exp: Experience,
  rng: Rng,
  coef: [number, number],
  cfg: PpoConfig = DEFAULT_PPO,
  demos?: DemoSet,
  anchor?: AnchorTerm,
): Promise<Record<string, number>> {
  const D = model.obsSize;
  const useDemos = demos !== undefined && demos.count > 0 && coef[0] > 0;
  const rows = cfg.minibatch + (useDemos ? cfg.demoRows : 0);
  const b: TrainBatch = emptyBatch(rows, D);
  b.coef = coef;
  const A = model.bins.count;
  const dense = anchor ? { p: new Float32Array(rows * A), klCoef: anchor.klCoef } : undefined;
  const order = Int32Array.from({ length: exp.count }, (_, i) => i);
  // The int64 action labels once per update, not one BigInt per row and epoch.
  const actions64 = BigInt64Array.from(exp.action, (a) => BigInt(a));
  const sums: Record<string, number> = {};
  let updates = 0;
  for (let e = 0; e < cfg.epochs; e++) {
    rng.shuffle(order);
    for (let s = 0; s < order.length; s += cfg.minibatch) {
      const m = Math.min(cfg.minibatch, order.length - s);
      // A short remainder would be a noisy update: it is left for the next epoch's shuffle.
      if (s > 0 && m < cfg.minibatch / 2) break;
      const bo = b.obs;
      const eo = exp.obs;
      for (let r = 0; r < m; r++) {
        const k = order[s + r];
        // Row copy without a subarray object per row (50 k rows an iteration).
        for (let j = 0, src = k * D, dst = r * D; j < D; j++) bo[dst + j] = eo[src + j];
        b.action[r] = actions64[k];
        b.ilWeight[r] = 0;
        b.rlWeight[r] = 1;
        b.oldLogp[r] = exp.logp[k];
        b.advantage[r] = exp.advantage[k];
        b.return[r] = exp.return[k];
        if (dense && anchor) {
          // Dense rows of the anchor's top-k renormalised over the k (zero elsewhere).
          const { k: K, index, p } = anchor.topK;
          dense.p.fill(0, r * A, (r + 1) * A);
          let z = 0;
          for (let j = 0; j < K; j++) z += p[k * K + j];
          for (let j = 0; j < K; j++) dense.p[r * A + index[k * K + j]] = p[k * K + j] / z;
        }
      }
      let total = m;
      if (useDemos) {
        fillDemoRows(b, demos, rng, m, m + cfg.demoRows);
        total = m + cfg.demoRows;
        // Imitation rows carry rl_weight 0: their anchor rows are not counted.
      }
      const view: TrainBatch = {
        obs: b.obs.subarray(0, total * D),
        action: b.action.subarray(0, total),
        ilWeight: b.ilWeight.subarray(0, total),
        rlWeight: b.rlWeight.subarray(0, total),
        oldLogp: b.oldLogp.subarray(0, total),
        advantage: b.advantage.subarray(0, total),
        return: b.return.subarray(0, total),
        coef,
        ...(dense ? { anchor: dense } : {}),
      };
      const res = await model.step(view);
      anchor?.afterStep();
      for (const [k, v] of Object.entries(res)) sums[k] = (sums[k] ?? 0) + v;
      updates++;
    }
  }
  for (const k of Object.keys(sums)) sums[k] /= Math.max(updates, 1);
  return sums;
}
