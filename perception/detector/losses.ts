// The detector's training loss as graph ops (CenterNet, Zhou et al. 2019): penalty-reduced focal loss on
// the centre heatmap (α = 2, β = 4) plus L1 on the regressions at label centres, both over the label range.
import type { Tensor } from '../../core/nn/graph.ts';
import * as o from '../../core/nn/ops/index.ts';
import { REG_CHANNEL_COUNT, type TargetMaps } from './targets.ts';

export interface LossConfig {
  /** Focal-loss exponents: (1 − p)^α on positives, (1 − y)^β·p^α on negatives. */
  alpha: number;
  beta: number;
  /** Weight of the L1 regression term against the heatmap term. */
  regressionWeight: number;
  /** Per-channel weights of the L1 term, REG_CHANNELS order. */
  channelWeights: number[];
}

export const DEFAULT_LOSS_CONFIG: LossConfig = {
  alpha: 2,
  beta: 4,
  regressionWeight: 1,
  channelWeights: [1, 1, 1, 1, 1, 1, 1, 1],
};

/** The loss inputs of one batch, [N, 1 | 8, h, w] each, prepared on the CPU from TargetMaps. */
export interface LossInputs {
  /** mask · centre / max(1, positives in the batch). */
  posWeight: Tensor;
  /** mask · (1 − centre) · (1 − heat)^β / max(1, positives in the batch). */
  negWeight: Tensor;
  /** mask · regression weight / (sum of regression weights in the batch). */
  regWeight: Tensor;
  regTarget: Tensor;
}

export interface LossTerms {
  total: Tensor;
  focal: Tensor;
  regression: Tensor;
}

/**
 * Loss of heads `heat` (logits) and `boxes` against `inp`. The weights already hold the range mask and the
 * normalisation by the number of label centres, so the terms are plain weighted sums.
 */
export function detectionLoss(
  heat: Tensor,
  boxes: Tensor,
  inp: LossInputs,
  cfg: LossConfig = DEFAULT_LOSS_CONFIG,
): LossTerms {
  const g = heat.graph;
  return g.scope('loss', () => {
    // log σ(x) = −softplus(−x), log(1 − σ(x)) = −softplus(x); softplus(x) = relu(x) + log(1 + e^−|x|).
    const tail = o.log(o.add(o.exp(o.neg(o.abs(heat))), 1));
    const logP = o.neg(o.add(o.relu(o.neg(heat)), tail));
    const log1mP = o.neg(o.add(o.relu(heat), tail));
    const p = o.sigmoid(heat);
    const q = o.sub(1, p);
    const powA = (t: Tensor) => (cfg.alpha === 2 ? o.mul(t, t) : o.pow(t, cfg.alpha));
    const pos = o.mul(o.mul(inp.posWeight, powA(q)), logP);
    const neg = o.mul(o.mul(inp.negWeight, powA(p)), log1mP);
    const focal = o.neg(o.reduceSum(o.add(pos, neg)));
    const cw = g.constant(Float32Array.from(cfg.channelWeights), [1, REG_CHANNEL_COUNT, 1, 1]);
    const l1 = o.mul(o.abs(o.sub(boxes, inp.regTarget)), cw);
    const regression = o.reduceSum(o.mul(l1, inp.regWeight));
    const total = o.add(focal, o.mul(regression, cfg.regressionWeight));
    return { total, focal, regression };
  });
}

/** The loss inputs of a batch as flat arrays ([N·h·w], regTarget [N·8·h·w]). */
export interface LossArrays {
  posWeight: Float32Array;
  negWeight: Float32Array;
  regWeight: Float32Array;
  regTarget: Float32Array;
}

/**
 * Fill the loss inputs from each sample's targets: the focal terms are normalised by the number of label
 * centres in the batch, the regression by the sum of its (masked) weights.
 */
export function fillLossInputs(maps: readonly TargetMaps[], beta: number, out: LossArrays): void {
  let positives = 0;
  let regSum = 0;
  for (const t of maps) {
    for (let k = 0; k < t.heat.length; k++) {
      if (!t.mask[k]) continue;
      positives += t.centre[k];
      regSum += t.regWeight[k];
    }
  }
  const norm = 1 / Math.max(1, positives);
  const regNorm = 1 / Math.max(1, regSum);
  maps.forEach((t, slot) => {
    const n = t.heat.length;
    const base = slot * n;
    for (let k = 0; k < n; k++) {
      const m = t.mask[k];
      const c = t.centre[k];
      out.posWeight[base + k] = m && c ? norm : 0;
      out.negWeight[base + k] = m && !c ? Math.pow(1 - t.heat[k], beta) * norm : 0;
      out.regWeight[base + k] = m ? t.regWeight[k] * regNorm : 0;
    }
    out.regTarget.set(t.reg, slot * REG_CHANNEL_COUNT * n);
  });
}
