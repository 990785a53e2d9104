// The residual forecaster's rule (keep the prior's token unless the model is confident) and the choice of its
// threshold on constructed token grids with a known best answer.
import { describe, expect, it } from 'vitest';
import {
  chooseResidualThreshold,
  residualAccuracy,
  residualGrid,
  type ResidualSample,
} from '../../worldmodel/residual.ts';

describe('residual forecaster', () => {
  it('keeps the prior token unless the model reaches the threshold', () => {
    const g = residualGrid(
      Int32Array.of(1, 2, 3),
      Float32Array.of(0.9, 0.5, 0.2),
      Int32Array.of(7, 8, 9),
      0.5,
    );
    expect(Array.from(g)).toEqual([1, 2, 9]);
    expect(Array.from(residualGrid(Int32Array.of(1), Float32Array.of(1), Int32Array.of(7), 1.01))).toEqual([
      7,
    ]);
  });

  it('chooses a threshold between the confident right and the unsure wrong choices', () => {
    // Truth 5 everywhere; the model is right where its probability is 0.8 and wrong where it is 0.3; the prior
    // is right on half the tokens. Best: trust the model at ≥ 0.8 and the prior below.
    const n = 8;
    const s: ResidualSample = {
      pred: Int32Array.from({ length: n }, (_, i) => (i % 2 ? 5 : 6)),
      prob: Float32Array.from({ length: n }, (_, i) => (i % 2 ? 0.8 : 0.3)),
      prior: Int32Array.from({ length: n }, (_, i) => (i < 4 ? 5 : 0)),
      truth: new Int32Array(n).fill(5),
      occupied: new Uint8Array(n).fill(1),
    };
    const fit = chooseResidualThreshold([s]);
    expect(fit.threshold).toBeGreaterThan(0.3);
    expect(fit.threshold).toBeLessThanOrEqual(0.8);
    expect(fit.accuracy).toBe(6 / 8);
    expect(residualAccuracy([s], 0)).toBe(4 / 8);
    expect(residualAccuracy([s], 1.01)).toBe(4 / 8);
    // A model that is never right: the prior alone.
    const bad = { ...s, pred: new Int32Array(n).fill(1), prob: new Float32Array(n).fill(0.99) };
    expect(chooseResidualThreshold([bad]).threshold).toBe(1.01);
    // Unoccupied columns do not count.
    expect(residualAccuracy([{ ...s, occupied: new Uint8Array(n) }], 0)).toBeNaN();
  });
});
