// Exported inference models: plain ONNX (opset 17, weights as initialisers, no backward nodes) that
// onnxruntime loads without drivekit, giving the training graph's forward outputs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import * as nn from '../../../core/nn/index.ts';
import { decodeModel, ONNX_OPSET } from '../../../core/nn/onnxProto.ts';

function makeBatch(rng: nn.Rng, n: number) {
  const x = new Float32Array(n * 2 * 8 * 8);
  for (let i = 0; i < x.length; i++) x[i] = rng.normal();
  const y = new Float32Array(n * 3).map(() => rng.normal());
  return { x, y };
}

describe('export', () => {
  it('a CNN exported after training matches the training graph forward pass', async () => {
    const ps = new nn.ParamStore({ seed: 3 });
    const c1 = nn.conv2d(ps, 'c1', 2, 8, 3, { padding: 1 });
    const gn = nn.groupNorm(ps, 'gn', 2, 8);
    const up = nn.convTranspose2d(ps, 'up', 8, 4, 2, { stride: 2 });
    const head = nn.linear(ps, 'head', 4 * 8 * 8, 3);
    const forward = (x: nn.Tensor) => {
      const h = nn.maxPool(nn.relu(gn(c1(x))), 2);
      return head(nn.flatten(nn.relu(up(h)), 1));
    };
    const g = new nn.Graph();
    const x = g.input('x', ['batch', 2, 8, 8]);
    const y = g.input('y', ['batch', 3]);
    const pred = forward(x);
    const loss = nn.mseLoss(pred, y);
    const trainer = await nn.Trainer.create(g, { loss, optimizer: nn.adamW(), lr: 1e-2, threads: 1 });
    const rng = new nn.Rng(5);
    for (let i = 0; i < 3; i++) await trainer.step(makeBatch(rng, 4));
    // Forward outputs of the training graph (parameters fed as inputs).
    const evalBatch = makeBatch(rng, 3);
    const fwd = await nn.GraphSession.create(g, { pred }, { threads: 1 });
    const expected = (await fwd.run({ x: { data: evalBatch.x, dims: [3, 2, 8, 8] } })).pred
      .data as Float32Array;

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nn-export-')), 'model.onnx');
    await nn.exportOnnx(file, g, { pred }, { metadata: { task: 'test' } });
    const model = decodeModel(fs.readFileSync(file));
    expect(model.opsetImport[0].version).toBeGreaterThanOrEqual(17);
    expect(model.opsetImport[0].version).toBe(ONNX_OPSET);
    expect(model.graph.input.map((i) => i.name)).toEqual(['x']);
    expect(model.graph.initializer.map((t) => t.name)).toEqual(
      expect.arrayContaining(ps.list().map((p) => p.name)),
    );
    expect(model.graph.node.some((n) => n.name.startsWith('grad/'))).toBe(false);
    expect(model.graph.node.some((n) => n.opType === 'ConvTranspose')).toBe(true);
    expect(model.metadataProps).toEqual([{ key: 'task', value: 'test' }]);
    expect(model.graph.output[0].type.tensorType.shape!.dim[0]).toEqual({ dimParam: 'batch' });

    // Plain onnxruntime, no drivekit code involved.
    const session = await ort.InferenceSession.create(file);
    const got = (await session.run({ x: new ort.Tensor('float32', evalBatch.x, [3, 2, 8, 8]) })).pred;
    expect(got.dims).toEqual([3, 3]);
    const gotData = got.data as Float32Array;
    expected.forEach((v, i) => expect(gotData[i]).toBeCloseTo(v, 5));
    await session.release();
    await fwd.dispose();
    await trainer.dispose();
  });

  it('a transformer with a causal mask exports and matches', async () => {
    const ps = new nn.ParamStore({ seed: 4 });
    const emb = nn.embedding(ps, 'emb', 11, 16);
    const block = nn.transformerBlock(ps, 'block0', { dim: 16, heads: 4 });
    const out = nn.linear(ps, 'logits', 16, 11);
    const g = new nn.Graph();
    const tokens = g.input('tokens', [2, 5], 'int64');
    const logits = out(block(emb(tokens), { causal: true }));
    const ids = BigInt64Array.from([1, 4, 2, 9, 10, 0, 3, 3, 7, 5].map(BigInt));
    const fwd = await nn.GraphSession.create(g, { logits }, { threads: 1 });
    const expected = (await fwd.run({ tokens: ids })).logits.data as Float32Array;
    const session = await ort.InferenceSession.create(nn.exportOnnxBytes(g, { logits }));
    const got = (await session.run({ tokens: new ort.Tensor('int64', ids, [2, 5]) })).logits
      .data as Float32Array;
    expected.forEach((v, i) => expect(got[i]).toBeCloseTo(v, 5));
    // Causality: changing the last token leaves earlier positions' logits unchanged.
    const ids2 = ids.slice();
    ids2[4] = 2n;
    const got2 = (await fwd.run({ tokens: ids2 })).logits.data as Float32Array;
    for (let t = 0; t < 4; t++)
      for (let c = 0; c < 11; c++) expect(got2[t * 11 + c]).toBe(expected[t * 11 + c]);
    expect(got2[4 * 11]).not.toBe(expected[4 * 11]);
    await session.release();
    await fwd.dispose();
  });
});
