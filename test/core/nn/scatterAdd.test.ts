// Scatter-add with repeated indices, as pillar pooling and every embedding's gradient use it: the exact
// float32 sums in index order, the same on every run with several onnxruntime threads (no lost updates).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as nn from '../../../core/nn/index.ts';
import { decodeModel } from '../../../core/nn/onnxProto.ts';
import * as o from '../../../core/nn/ops/index.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { Rng } from '../../../core/rng.ts';

const ROWS = 6;
const COLS = 16;
const UPDATES = 60_000;

/** Sum each update into its row in index order, rounding to float32 after every add as a kernel does. */
function referenceSums(rows: BigInt64Array, upd: Float32Array): Float32Array {
  const out = new Float32Array(ROWS * COLS);
  for (let i = 0; i < rows.length; i++) {
    const r = Number(rows[i]);
    for (let c = 0; c < COLS; c++) out[r * COLS + c] = Math.fround(out[r * COLS + c] + upd[i * COLS + c]);
  }
  return out;
}

describe('scatterND with reduction add', () => {
  it('sums repeated rows exactly and identically on every run with 2 threads', async () => {
    const g = new nn.Graph();
    const idx = g.input('idx', [UPDATES, 1], 'int64');
    const upd = g.input('upd', [UPDATES, COLS]);
    const y = o.scatterND(o.zerosLike(g.input('data', [ROWS, COLS])), idx, upd, 'add');
    const s = await nn.GraphSession.create(g, { y }, { threads: 2 });
    const rng = new Rng(7);
    const rows = BigInt64Array.from({ length: UPDATES }, () => BigInt(Math.floor(rng.uniform() * ROWS)));
    const values = Float32Array.from({ length: UPDATES * COLS }, () => rng.uniform() * 2 - 1);
    const want = referenceSums(rows, values);
    for (let run = 0; run < 8; run++) {
      const r = await s.run({ idx: rows, upd: values, data: new Float32Array(ROWS * COLS) });
      expect(Array.from(r.y.data as Float32Array), `run ${run}`).toEqual(Array.from(want));
    }
    await s.dispose();
  });

  it('folds two index axes into one row index', async () => {
    const g = new nn.Graph();
    const data = g.input('data', [2, 3, 4]);
    const idx = g.input('idx', [5, 2], 'int64');
    const upd = g.input('upd', [5, 4]);
    const y = o.scatterND(data, idx, upd, 'add');
    const s = await nn.GraphSession.create(g, { y }, { threads: 1 });
    const at = [0, 1, 1, 2, 0, 1, 1, 0, 1, 2];
    const r = await s.run({
      data: new Float32Array(24).fill(1),
      idx: BigInt64Array.from(at, BigInt),
      upd: Float32Array.from({ length: 20 }, (_, i) => i),
    });
    const want = new Float32Array(24).fill(1);
    for (let i = 0; i < 5; i++)
      for (let c = 0; c < 4; c++) want[(at[2 * i] * 3 + at[2 * i + 1]) * 4 + c] += i * 4 + c;
    expect(Array.from(r.y.data as Float32Array)).toEqual(Array.from(want));
    await s.dispose();
  });

  it('no shipped model holds a ScatterND with a reduction (the racy kernel)', () => {
    const onnxFiles = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        return e.isDirectory() ? onnxFiles(p) : p.endsWith('.onnx') ? [p] : [];
      });
    const files = onnxFiles(path.join(REPO_ROOT, 'models'));
    expect(files.length).toBeGreaterThan(0);
    const racy = files.filter((f) =>
      decodeModel(fs.readFileSync(f)).graph.node.some(
        (n) =>
          n.opType === 'ScatterND' &&
          (n.attribute ?? []).some((a) => a.name === 'reduction' && new TextDecoder().decode(a.s) !== 'none'),
      ),
    );
    expect(racy.map((f) => path.relative(REPO_ROOT, f))).toEqual([]);
  });
});
