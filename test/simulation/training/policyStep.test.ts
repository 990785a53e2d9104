// Action selection of the learned policy (simulation/training/policyStep.ts) against the plain definition:
// argmax, or the first bin where the running softmax(logits / T) mass reaches u·Z; log-probability untempered.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { selectActions } from '../../../simulation/training/policyStep.ts';

/** The definition, one exponential at a time. */
function reference(logits: Float32Array, A: number, u: number, t: number, sample: boolean) {
  const row = Array.from(logits);
  const max = Math.max(...row);
  const arg = row.indexOf(max);
  const logZ = max + Math.log(row.reduce((s, l) => s + Math.exp(l - max), 0));
  let pick = arg;
  if (sample) {
    const zt = row.reduce((s, l) => s + Math.exp((l - max) / t), 0);
    let r = u * zt;
    pick = A - 1;
    for (let i = 0; i < A; i++) {
      r -= Math.exp((row[i] - max) / t);
      if (r <= 0) {
        pick = i;
        break;
      }
    }
  }
  return { pick, logp: Math.fround(row[pick] - logZ) };
}

describe('selectActions', () => {
  it('picks what the definition picks, argmax and sampled, at temperatures 1 and 0.7', () => {
    const rng = new Rng(3);
    const [n, A] = [200, 325];
    const logits = Float32Array.from({ length: n * A }, () => 3 * rng.normal());
    const us = Float64Array.from({ length: n }, () => rng.uniform());
    const picks = new Set<number>();
    for (const mode of ['argmax', 'sample'] as const) {
      for (const t of [1, 0.7]) {
        const action = new Int32Array(n);
        const logp = new Float32Array(n);
        selectActions(logits, n, A, mode, (q) => us[q], action, logp, t);
        for (let q = 0; q < n; q++) {
          const want = reference(logits.subarray(q * A, (q + 1) * A), A, us[q], t, mode === 'sample');
          expect(action[q]).toBe(want.pick);
          expect(logp[q]).toBeCloseTo(want.logp, 5);
          picks.add(action[q]);
        }
      }
    }
    expect(picks.size).toBeGreaterThan(50); // sampled picks spread over the bins
  });
});
