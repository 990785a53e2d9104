// Every op's gradient against central finite differences (float64 where onnxruntime has the kernel),
// plus stop-gradient, straight-through, pruning, symbolic batch sizes and shape errors.
import { describe, expect, it } from 'vitest';
import { grad } from '../../../core/nn/autodiff.ts';
import { gradCheck } from '../../../core/nn/gradcheck.ts';
import { Graph, type Tensor } from '../../../core/nn/graph.ts';
import { GraphSession } from '../../../core/nn/graphSession.ts';
import { buildModel, neededNodes } from '../../../core/nn/onnxModel.ts';
import * as o from '../../../core/nn/ops/index.ts';
import { ParamStore } from '../../../core/nn/params.ts';
import { ShapeError } from '../../../core/nn/shape.ts';
import { GRAD_CASES } from './gradCases.ts';

describe('gradients match finite differences', () => {
  for (const c of GRAD_CASES) {
    const dtype = c.float32 ? 'float32' : 'float64';
    it(`${c.name} (${dtype}${c.float32 ? `: ${c.float32}` : ''})`, async () => {
      const r = await gradCheck(c.inputs, c.fn, { dtype });
      expect(r.checked).toBeGreaterThan(0);
      expect(r.worst && r.ok ? null : r.worst).toBeNull();
      expect(r.worstRatio).toBeLessThanOrEqual(1);
    });
  }
});

/** Run a graph whose parameters are all in `ps`, returning named outputs as plain arrays. */
async function evaluate(g: Graph, outputs: Record<string, Tensor>, feeds = {}) {
  const s = await GraphSession.create(g, outputs, { threads: 1 });
  try {
    const r = await s.run(feeds);
    return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Array.from(v.data as Float64Array)]));
  } finally {
    await s.dispose();
  }
}

describe('gradient control', () => {
  it('stopGradient blocks the gradient: d/dx [x · sg(x)] = x', async () => {
    const ps = new ParamStore({ dtype: 'float64' });
    const p = ps.add('x', [3], { kind: 'uniform', bound: 2 });
    const g = new Graph({ floatType: 'float64' });
    const x = g.param(p);
    const loss = o.reduceSum(o.mul(x, o.stopGradient(x)));
    const [dx] = grad(loss, [x]);
    const r = await evaluate(g, { dx });
    expect(r.dx).toEqual(Array.from(p.data));
  });

  it('straightThrough has the forward value of round(x) and the gradient of x', async () => {
    const ps = new ParamStore({ dtype: 'float64' });
    const p = ps.add('x', [4], { kind: 'zeros' });
    p.data.set([0.2, 1.7, -0.6, 2.4]);
    const g = new Graph({ floatType: 'float64' });
    const x = g.param(p);
    const q = o.straightThrough(o.round(x), x);
    const loss = o.reduceSum(o.mul(q, g.constant([1, 2, 3, 4], [4])));
    const [dx] = grad(loss, [x]);
    const r = await evaluate(g, { q, dx });
    expect(r.q).toEqual([0, 2, -1, 2]);
    expect(r.dx).toEqual([1, 2, 3, 4]);
  });

  it('prunes branches that do not lead from the parameters to the loss', () => {
    const ps = new ParamStore();
    const a = ps.add('a', [2, 2], { kind: 'ones' });
    const b = ps.add('b', [2, 2], { kind: 'ones' });
    const g = new Graph();
    const x = g.input('x', [2, 2]);
    const ta = g.param(a);
    const tb = g.param(b);
    const loss = o.reduceSum(o.mul(o.exp(x), ta)); // exp(x) is constant w.r.t. the parameters
    o.tanh(tb); // a branch that does not reach the loss
    const before = g.nodes.length;
    const [da, db] = grad(loss, [ta, tb]);
    const backward = g.nodes.slice(before);
    // No backward nodes for Exp (constant w.r.t. the parameters) or Tanh (off the loss path).
    expect(backward.some((n) => /^grad\/(Exp|Tanh)_/.test(n.name))).toBe(false);
    expect(backward.some((n) => n.name.startsWith('grad/Mul_'))).toBe(true);
    // b does not reach the loss: its gradient is zeros made by ConstantOfShape.
    expect(db.source.kind === 'node' && db.source.node.op).toBe('ConstantOfShape');
    const model = buildModel(g, { outputs: { da }, params: 'inputs' });
    expect(model.nodeCount).toBeLessThan(g.nodes.length);
    expect(neededNodes(g, [da]).some((n) => n.op === 'Tanh')).toBe(false);
  });

  it('the softmax gradient in attention takes its row sums from the small output, not the weights', () => {
    const ps = new ParamStore();
    const g = new Graph();
    const scores = g.param(ps.add('s', [2, 16, 16], { kind: 'uniform', bound: 1 }));
    const v = g.param(ps.add('v', [2, 16, 4], { kind: 'uniform', bound: 1 }));
    const weights = o.softmax(scores, -1);
    const out = o.matmul(weights, v);
    const before = g.nodes.length;
    grad(o.reduceSum(o.mul(out, out)), [scores, v]);
    const softmaxNode = weights.source.kind === 'node' ? weights.source.node.name : '';
    const rule = g.nodes.slice(before).filter((n) => n.name.startsWith(`grad/${softmaxNode}/`));
    expect(rule.some((n) => n.inputs.includes(out))).toBe(true);
    expect(rule.filter((n) => n.op === 'ReduceSum').every((n) => n.inputs[0]!.shape[2] === 4)).toBe(true);
  });

  it('differentiates through symbolic batch sizes (Reshape, ReduceMean)', async () => {
    const ps = new ParamStore({ dtype: 'float64' });
    const w = ps.add('w', [3, 2], { kind: 'uniform', bound: 1 });
    const g = new Graph({ floatType: 'float64' });
    const x = g.input('x', ['batch', 6]);
    const h = o.reshape(x, ['batch', 2, 3]);
    const y = o.matmul(h, g.param(w)); // [batch, 2, 2]
    const loss = o.reduceMean(o.mul(y, y));
    const [dw] = grad(loss, [g.param(w)]);
    const xs = Float64Array.from({ length: 18 }, (_, i) => Math.sin(i));
    const r = await evaluate(g, { loss, dw }, { x: xs });
    // Reference in plain JS: loss = mean over 3·2·2 entries of (h·w)².
    const ref = new Array(6).fill(0);
    for (let b = 0; b < 3; b++)
      for (let i = 0; i < 2; i++)
        for (let j = 0; j < 2; j++) {
          let yij = 0;
          for (let k = 0; k < 3; k++) yij += xs[b * 6 + i * 3 + k] * w.data[k * 2 + j];
          for (let k = 0; k < 3; k++) ref[k * 2 + j] += (2 * yij * xs[b * 6 + i * 3 + k]) / 12;
        }
    r.dw.forEach((v, i) => expect(v).toBeCloseTo(ref[i], 12));
  });
});

describe('shape checks name the op', () => {
  const g = new Graph();
  it('MatMul inner dimensions', () => {
    expect(() => o.matmul(g.input('a', [2, 3]), g.input('b', [4, 5]))).toThrow(
      /MatMul: inner dimensions differ: \[2,3\] @ \[4,5\]/,
    );
  });
  it('broadcasting', () => {
    expect(() => o.add(g.input('c', [2, 3]), g.input('d', [4]))).toThrow(ShapeError);
    expect(() => o.add(g.input('e', [2, 3]), g.input('f', [4]))).toThrow(
      /Add: shapes \[2,3\] and \[4\] do not broadcast/,
    );
  });
  it('Conv channel mismatch, inside a scope', () => {
    const x = g.input('img', [1, 3, 8, 8]);
    const w = g.constant(new Array(4 * 2 * 9).fill(0), [4, 2, 3, 3]);
    expect(() => g.scope('enc1', () => o.conv(x, w))).toThrow(/Conv in enc1: x has 3 channels/);
  });
  it('Reshape element counts', () => {
    expect(() => o.reshape(g.input('r', [2, 3]), [4, 2])).toThrow(/Reshape: cannot reshape \[2,3\]/);
  });
  it('mixed dtypes', () => {
    expect(() => o.mul(g.input('m', [2]), g.input('n', [2], 'float64'))).toThrow(/Mul: mixed dtypes/);
  });
});
