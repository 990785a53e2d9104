// Ray-depth heads averaged into one ONNX model (worldmodel/rayDepthEnsemble.ts): its outputs are the mean of
// the members' on onnxruntime, it carries the card it is given, and members of different folds are refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMembersAgree } from '../../tools/models/ensembleRayDepth.ts';
import { RAY_FEATURE_COUNT } from '../../worldmodel/pastRayFeatures.ts';
import { ensembleRayDepthOnnx } from '../../worldmodel/rayDepthEnsemble.ts';
import { RayDepthHead } from '../../worldmodel/rayDepthModel.ts';

const FOLD_A = 'models/raydepth-foldA/raydepth.onnx';
const FOLD_B = 'models/raydepth-foldB/raydepth.onnx';

describe('ray-depth ensemble', () => {
  it("outputs the mean of its members' log ratios and gate logits, with the given card", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-rd-ens-'));
    const a = await RayDepthHead.load(FOLD_A);
    const b = await RayDepthHead.load(FOLD_B);
    const file = path.join(dir, 'mean.onnx');
    const card = { ...a.card, keepThresholdLogit: 0.5, ensemble: { members: [FOLD_A, FOLD_B] } };
    fs.writeFileSync(
      file,
      ensembleRayDepthOnnx(
        [fs.readFileSync(FOLD_A), fs.readFileSync(FOLD_B)].map((x) => new Uint8Array(x)),
        card,
      ),
    );
    const mean = await RayDepthHead.load(file);
    try {
      // Features of the scale the heads see (log ratios, flags, metres / 10).
      const n = 300;
      const x = Float32Array.from({ length: n * RAY_FEATURE_COUNT }, (_, i) => Math.sin(i * 12.9898) * 1.5);
      const [oa, ob, om] = await Promise.all([a.outputs(x, n), b.outputs(x, n), mean.outputs(x, n)]);
      // float32 sums: equal to a few ulps.
      const near = (got: number, want: number) =>
        expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want)));
      let differ = 0;
      for (let k = 0; k < n; k++) {
        near(om.logRatio[k], (oa.logRatio[k] + ob.logRatio[k]) / 2);
        near(om.keepLogit[k], (oa.keepLogit[k] + ob.keepLogit[k]) / 2);
        if (Math.abs(oa.logRatio[k] - ob.logRatio[k]) > 1e-3) differ++;
      }
      // The two members are different heads, so the mean is not either of them.
      expect(differ).toBeGreaterThan(n / 2);
      expect(mean.card.keepThresholdLogit).toBe(0.5);
      expect(mean.card.ensemble).toEqual({ members: [FOLD_A, FOLD_B] });
    } finally {
      await Promise.all([a.dispose(), b.dispose(), mean.dispose()]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('needs two members of the same recipe and fold', async () => {
    expect(() => ensembleRayDepthOnnx([new Uint8Array(fs.readFileSync(FOLD_A))], {})).toThrow(/at least two/);
    const a = await RayDepthHead.load(FOLD_A);
    const b = await RayDepthHead.load(FOLD_B);
    try {
      expect(() => checkMembersAgree([a.card, a.card], [FOLD_A, FOLD_A])).not.toThrow();
      expect(() => checkMembersAgree([a.card, b.card], [FOLD_A, FOLD_B])).toThrow(
        /foldB.*'split'|'split'|'fold'/,
      );
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  });
});
