// Behaviour cloning (RTR's imitation term alone): cross-entropy of the policy on the binned expert
// actions of the demonstrations, open loop, minibatches drawn uniformly.
import type { Rng } from '../../core/rng.ts';
import type { AgentModel, TrainBatch } from './agentModel.ts';
import type { DemoSet } from './demoData.ts';

/** A reusable batch of `size` rows (every weight and RL field zeroed). */
export function emptyBatch(size: number, obsSize: number): TrainBatch {
  return {
    obs: new Float32Array(size * obsSize),
    action: new BigInt64Array(size),
    ilWeight: new Float32Array(size),
    rlWeight: new Float32Array(size),
    oldLogp: new Float32Array(size),
    advantage: new Float32Array(size),
    return: new Float32Array(size),
    coef: [1, 0],
  };
}

/** Fill rows [from, to) of `b` with random demonstrations (imitation weight 1, RL weight 0). */
export function fillDemoRows(b: TrainBatch, demos: DemoSet, rng: Rng, from: number, to: number): void {
  const D = demos.obsSize;
  for (let r = from; r < to; r++) {
    const i = rng.int(demos.count);
    b.obs.set(demos.obs.subarray(i * D, (i + 1) * D), r * D);
    b.action[r] = BigInt(demos.action[i]);
    b.ilWeight[r] = 1;
    b.rlWeight[r] = 0;
    b.oldLogp[r] = 0;
    b.advantage[r] = 0;
    b.return[r] = 0;
  }
}

/** One BC step on a fresh minibatch; returns the cross-entropy. */
export async function bcStep(model: AgentModel, demos: DemoSet, rng: Rng, b: TrainBatch): Promise<number> {
  fillDemoRows(b, demos, rng, 0, b.action.length);
  b.coef = [1, 0];
  return (await model.step(b)).ce;
}

/** Mean cross-entropy and top-1 accuracy of the policy on (up to `limit` rows of) a demo set. */
export async function demoScores(
  model: AgentModel,
  demos: DemoSet,
  limit = 20_000,
): Promise<{ ce: number; accuracy: number }> {
  const n = Math.min(limit, demos.count);
  const A = model.bins.count;
  let ce = 0;
  let hit = 0;
  const chunk = 4096;
  for (let s = 0; s < n; s += chunk) {
    const m = Math.min(chunk, n - s);
    const { logits } = await model.evaluate(demos.obs.subarray(s * demos.obsSize), m);
    for (let q = 0; q < m; q++) {
      const o = q * A;
      let max = -Infinity;
      let arg = 0;
      for (let i = 0; i < A; i++) if (logits[o + i] > max) [max, arg] = [logits[o + i], i];
      let z = 0;
      for (let i = 0; i < A; i++) z += Math.exp(logits[o + i] - max);
      const y = demos.action[s + q];
      ce += max + Math.log(z) - logits[o + y];
      if (arg === y) hit++;
    }
  }
  return { ce: ce / Math.max(n, 1), accuracy: hit / Math.max(n, 1) };
}
