// Loss functions built from graph ops (so they differentiate like everything else): MSE, L1,
// smooth L1 (Huber), cross-entropy with label smoothing, BCE with logits, Gaussian log-likelihood.
import type { Tensor } from './graph.ts';
import * as o from './ops/index.ts';
import { ShapeError } from './shape.ts';

/** Mean of (pred − target)². */
export function mseLoss(pred: Tensor, target: Tensor): Tensor {
  const d = o.sub(pred, target);
  return o.reduceMean(o.mul(d, d));
}

/** Mean of |pred − target|. */
export function l1Loss(pred: Tensor, target: Tensor): Tensor {
  return o.reduceMean(o.abs(o.sub(pred, target)));
}

/** Mean smooth-L1 (Huber with threshold `beta`): ½d²/β below β, |d| − ½β above. */
export function smoothL1Loss(pred: Tensor, target: Tensor, beta = 1): Tensor {
  const d = o.abs(o.sub(pred, target));
  const quad = o.div(o.mul(o.mul(d, d), 0.5), beta);
  return o.reduceMean(o.where(o.less(d, beta), quad, o.sub(d, 0.5 * beta)));
}

export interface CrossEntropyOptions {
  /** Share ε of the target mass spread uniformly over classes (Szegedy et al. 2016). */
  labelSmoothing?: number;
  /**
   * Per-position weights shaped like `targets` (e.g. 1 on masked tokens, 0 elsewhere): the loss is
   * Σ w·ℓ / Σ w. Default: the plain mean.
   */
  weights?: Tensor;
}

/**
 * Cross-entropy of `logits` [..., C] against integer class ids `targets` [...] (int32/int64),
 * averaged over positions (or weighted, see `weights`).
 */
export function crossEntropy(logits: Tensor, targets: Tensor, opts: CrossEntropyOptions = {}): Tensor {
  const g = logits.graph;
  if (targets.rank !== logits.rank - 1) {
    throw new ShapeError(
      `${g.where('CrossEntropy')}: targets ${targets} must have the shape of logits ${logits} minus the class axis`,
    );
  }
  const logp = o.logSoftmax(logits, -1);
  let perPosition = o.neg(o.squeeze(o.gatherElements(logp, o.unsqueeze(targets, -1), -1), -1));
  const eps = opts.labelSmoothing ?? 0;
  if (eps !== 0) perPosition = o.add(o.mul(perPosition, 1 - eps), o.mul(o.neg(o.reduceMean(logp, -1)), eps));
  if (!opts.weights) return o.reduceMean(perPosition);
  const w = opts.weights;
  return o.div(o.reduceSum(o.mul(perPosition, w)), o.reduceSum(w));
}

/** Mean binary cross-entropy of sigmoid(logits) against targets in [0, 1], computed stably. */
export function bceWithLogits(logits: Tensor, targets: Tensor): Tensor {
  // max(x, 0) − x·t + log(1 + e^−|x|)
  const relu = o.relu(logits);
  const softplus = o.log(o.add(o.exp(o.neg(o.abs(logits))), 1));
  return o.reduceMean(o.add(o.sub(relu, o.mul(logits, targets)), softplus));
}

/** Log-density of x under a diagonal Gaussian N(mean, exp(logStd)²), summed over the last axis. */
export function gaussianLogProb(x: Tensor, mean: Tensor, logStd: Tensor): Tensor {
  const z = o.div(o.sub(x, mean), o.exp(logStd));
  const per = o.sub(o.mul(o.mul(z, z), -0.5), o.add(logStd, 0.5 * Math.log(2 * Math.PI)));
  return o.reduceSum(per, -1);
}
