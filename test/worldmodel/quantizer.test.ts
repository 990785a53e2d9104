// The vector quantiser: nearest code by cosine, the straight-through gradient, k-means on clustered
// vectors, and dead-code re-initialisation from the memory bank.
import { describe, expect, it } from 'vitest';
import { grad } from '../../core/nn/autodiff.ts';
import { Graph } from '../../core/nn/graph.ts';
import { GraphSession } from '../../core/nn/graphSession.ts';
import * as o from '../../core/nn/ops/index.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { Rng } from '../../core/rng.ts';
import { DEFAULT_QUANTIZER_CONFIG } from '../../worldmodel/config.ts';
import {
  codeUsage,
  kmeansCodebook,
  l2Normalize,
  MemoryBank,
  quantize,
  reinitDeadCodes,
} from '../../worldmodel/quantizer.ts';

const Z = [0.9, 0.1, -0.2, 0.1, 0.8, 0.3, -0.5, -0.5, 0.1]; // three vectors of dim 3
const CODES = [1, 0, 0, 0, 1, 0, 0, 0, 1, -1, -1, 0]; // four codes

async function run(vqOn: number) {
  const ps = new ParamStore({ seed: 3 });
  const z = ps.add('z', [3, 3], { kind: 'zeros' });
  z.data.set(Z);
  const cb = ps.add('codebook', [4, 3], { kind: 'zeros' });
  cb.data.set(CODES);
  const g = new Graph();
  const w = g.constant([0.3, -1, 2, 0.5, 0.7, -0.2, 1.1, 0.4, -0.6], [3, 3]);
  const q = quantize(g.param(z), g.param(cb), g.scalar(vqOn), DEFAULT_QUANTIZER_CONFIG);
  const objective = o.reduceSum(o.mul(q.zq, w));
  const reference = o.reduceSum(o.mul(l2Normalize(g.param(z)), w));
  const [dObj] = grad(objective, [g.param(z)]);
  const [dRef] = grad(reference, [g.param(z)]);
  const s = await GraphSession.create(
    g,
    { zq: q.zq, index: q.index, dObj, dRef, loss: q.loss },
    { threads: 1 },
  );
  const r = await s.run({});
  await s.dispose();
  return r;
}

describe('quantize', () => {
  it('picks the code of highest cosine similarity and outputs that (normalised) code', async () => {
    const r = await run(1);
    expect(Array.from(r.index.data as BigInt64Array, Number)).toEqual([0, 1, 3]);
    const zq = Array.from(r.zq.data as Float32Array);
    const s = Math.SQRT1_2;
    [1, 0, 0, 0, 1, 0, -s, -s, 0].forEach((v, i) => expect(zq[i]).toBeCloseTo(v, 5));
    expect(Number(r.loss.data[0])).toBeGreaterThan(0);
  });

  it('passes the gradient straight through to the encoder vectors', async () => {
    const r = await run(1);
    const a = Array.from(r.dObj.data as Float32Array);
    const b = Array.from(r.dRef.data as Float32Array);
    a.forEach((v, i) => expect(v).toBeCloseTo(b[i], 5));
    expect(b.some((v) => Math.abs(v) > 0.01)).toBe(true);
  });

  it('is the identity on normalised vectors with no VQ loss during the warm-up', async () => {
    const r = await run(0);
    expect(Number(r.loss.data[0])).toBe(0);
    const zq = r.zq.data as Float32Array;
    const n0 = Math.hypot(Z[0], Z[1], Z[2]);
    expect(zq[0]).toBeCloseTo(Z[0] / n0, 5);
  });
});

describe('codebook upkeep', () => {
  it('k-means finds the directions of clustered vectors', () => {
    const rng = new Rng(5);
    const bank = new MemoryBank(600, 2);
    const centres = [0, (2 * Math.PI) / 3, (4 * Math.PI) / 3];
    const vs = new Float32Array(600 * 2);
    for (let i = 0; i < 600; i++) {
      const a = centres[i % 3] + 0.05 * rng.normal();
      vs[2 * i] = Math.cos(a);
      vs[2 * i + 1] = Math.sin(a);
    }
    bank.add(vs, 600, rng);
    const C = kmeansCodebook(bank, 3, 10, new Rng(9));
    // Each true direction has a code within 0.1 rad (cosine: compare directions, not coordinates).
    for (const c of centres) {
      const best = Math.max(...[0, 1, 2].map((k) => C[2 * k] * Math.cos(c) + C[2 * k + 1] * Math.sin(c)));
      expect(Math.acos(Math.min(1, best))).toBeLessThan(0.1);
    }
  });

  it('re-initialises exactly the unused codes from the memory bank', () => {
    const rng = new Rng(2);
    const bank = new MemoryBank(4, 2);
    bank.add(Float32Array.of(5, 5, 5, 5, 5, 5, 5, 5), 4, rng);
    const codebook = Float32Array.of(1, 0, 0, 1, -1, 0);
    const replaced = reinitDeadCodes(codebook, Uint32Array.of(3, 0, 7), bank, rng);
    expect(replaced).toBe(1);
    expect(Array.from(codebook.subarray(0, 2))).toEqual([1, 0]);
    expect(Array.from(codebook.subarray(4, 6))).toEqual([-1, 0]);
    expect(codebook[2]).toBeCloseTo(5, 1);
    expect(codebook[3]).toBeCloseTo(5, 1);
  });

  it('measures usage and perplexity', () => {
    expect(codeUsage([0, 0, 1, 1], 8)).toEqual({ used: 2, perplexity: expect.closeTo(2, 9) });
    expect(codeUsage([3, 3, 3], 8)).toEqual({ used: 1, perplexity: expect.closeTo(1, 9) });
  });
});
