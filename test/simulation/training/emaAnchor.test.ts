import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { AgentModel } from '../../../simulation/training/agentModel.ts';
import { emptyBatch } from '../../../simulation/training/bc.ts';
import { type AnchorTopK, EmaAnchor, selectTopK } from '../../../simulation/training/emaAnchor.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { TRAIN_FILES, trainAgents } from '../../../simulation/training/trainAgents.ts';
import { straightRoadScenario } from '../fixtures.ts';

const tinyModel = { net: { entityWidth: 8, hidden: [32] }, threads: 1, lr: 3e-3 };

describe('EMA-PG anchor', () => {
  it('selects the k most likely actions in descending order', () => {
    const logp = Float64Array.from([0.1, 0.5, 0.05, 0.3, 0.05].map(Math.log));
    const out: AnchorTopK = {
      k: 2,
      index: new Int32Array(4),
      p: new Float32Array(4),
      logp: new Float32Array(4),
    };
    selectTopK(logp, 2, out, 2);
    expect(Array.from(out.index.subarray(2))).toEqual([1, 3]);
    expect(out.p[2]).toBeCloseTo(0.5, 6);
    expect(out.p[3]).toBeCloseTo(0.3, 6);
  });

  it('the KL term is 0 while the anchor equals the policy and grows once the policy moves away', async () => {
    const model = await AgentModel.create({ ...tinyModel, anchorTerm: true });
    try {
      const anchor = new EmaAnchor(model, { decay: 0.999, topK: 8, klCoef: 1 });
      const rng = new Rng(3);
      const n = 16;
      const b = emptyBatch(n, model.obsSize);
      for (let i = 0; i < b.obs.length; i++) b.obs[i] = rng.uniform() * 2 - 1;
      const A = model.bins.count;
      const dense = (t: AnchorTopK) => {
        const p = new Float32Array(n * A);
        for (let r = 0; r < n; r++) {
          let z = 0;
          for (let j = 0; j < t.k; j++) z += t.p[r * t.k + j];
          for (let j = 0; j < t.k; j++) p[r * A + t.index[r * t.k + j]] = t.p[r * t.k + j] / z;
        }
        return { p, klCoef: 1 };
      };
      b.rlWeight.fill(1);
      b.coef = [0, 1];
      const first = await model.step({ ...b, anchor: dense(await anchor.topK(b.obs, n)) });
      expect(Math.abs(first.kl)).toBeLessThan(1e-5);
      // A few updates on random advantages move the policy; the slow anchor stays behind.
      for (let s = 0; s < 20; s++) {
        for (let i = 0; i < n; i++) {
          b.advantage[i] = rng.uniform() * 2 - 1;
          b.action[i] = BigInt(rng.int(A));
        }
        await model.step(b);
        anchor.update();
      }
      const later = await model.step({ ...b, anchor: dense(await anchor.topK(b.obs, n)) });
      expect(later.kl).toBeGreaterThan(1e-4);
      // Without an anchor the term is exactly 0.
      expect((await model.step(b)).kl).toBe(0);
    } finally {
      await model.dispose();
    }
  }, 60_000);

  it('a graph without the anchor term trains as a zero anchor does, and refuses an anchor', async () => {
    const withTerm = await AgentModel.create({ ...tinyModel, anchorTerm: true });
    const without = await AgentModel.create(tinyModel);
    try {
      const rng = new Rng(5);
      const n = 16;
      const b = emptyBatch(n, withTerm.obsSize);
      for (let i = 0; i < b.obs.length; i++) b.obs[i] = rng.uniform() * 2 - 1;
      for (let i = 0; i < n; i++) {
        b.advantage[i] = rng.uniform() * 2 - 1;
        b.action[i] = BigInt(rng.int(withTerm.bins.count));
      }
      b.rlWeight.fill(1);
      b.coef = [0.5, 1];
      for (let s = 0; s < 3; s++) {
        const a = await withTerm.step(b);
        const c = await without.step(b);
        expect(c.loss).toBe(a.loss);
        expect(c.kl).toBeUndefined();
      }
      const pa = withTerm.net.params.list();
      const pc = without.net.params.list();
      expect(pc.length).toBe(pa.length);
      pa.forEach((p, i) => expect(Array.from(pc[i].data)).toEqual(Array.from(p.data)));
      const anchor = { p: new Float32Array(n * without.bins.count), klCoef: 1 };
      await expect(without.step({ ...b, anchor })).rejects.toThrow(/no anchor term/);
    } finally {
      await withTerm.dispose();
      await without.dispose();
    }
  }, 60_000);

  it('a killed EMA-PG run resumes from its checkpoint and continues its curve', async () => {
    const s = controlAllPresent([straightRoadScenario({ numAgents: 3, numSteps: 31, spacingM: 20 })]);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'emapg-'));
    const cfg = {
      model: tinyModel,
      mode: 'ppo' as const,
      pg: 'ema' as const,
      scenariosPerIteration: 1,
      checkpointEvery: 1,
      ppo: { epochs: 1, minibatch: 32, demoRows: 0 },
    };
    await trainAgents({ scenarios: s, data: {}, out }, { ...cfg, steps: 1 });
    fs.rmSync(path.join(out, TRAIN_FILES.model));
    const res = await trainAgents({ scenarios: s, data: {}, out }, { ...cfg, steps: 2 });
    expect(res.resumedFrom).toBe(1);
    expect(res.curve.map((p) => p.iteration)).toEqual([1, 2]);
    expect(Number.isFinite(res.curve[1].kl)).toBe(true);
    const meta = JSON.parse(fs.readFileSync(path.join(out, TRAIN_FILES.meta), 'utf8'));
    expect(meta.settings.pg).toBe('ema');
  }, 120_000);
});
