// Learning end to end: an MLP learns XOR and a regression, a small CNN learns a toy BEV task
// (objects vs clutter), judged on held-out data; optimizers, schedules and clipping by their formulas.
import { describe, expect, it } from 'vitest';
import * as nn from '../../../core/nn/index.ts';

describe('an MLP learns', () => {
  it('XOR', async () => {
    const ps = new nn.ParamStore({ seed: 2 });
    const net = nn.mlp(ps, 'xor', [2, 8, 1], { activation: 'tanh' });
    const g = new nn.Graph();
    const x = g.input('x', [4, 2]);
    const y = g.input('y', [4, 1]);
    const logits = net(x);
    const loss = nn.bceWithLogits(logits, y);
    const trainer = await nn.Trainer.create(g, {
      loss,
      optimizer: nn.adamW({ weightDecay: 0 }),
      lr: 0.05,
      outputs: { logits },
      threads: 1,
    });
    const feeds = { x: new Float32Array([0, 0, 0, 1, 1, 0, 1, 1]), y: new Float32Array([0, 1, 1, 0]) };
    let last = await trainer.step(feeds);
    const first = last.loss;
    for (let i = 0; i < 300; i++) last = await trainer.step(feeds);
    expect(first).toBeGreaterThan(0.5);
    expect(last.loss).toBeLessThan(0.05);
    const out = Array.from(last.outputs.logits.data as Float32Array);
    expect(out.map((v) => (v > 0 ? 1 : 0))).toEqual([0, 1, 1, 0]);
    await trainer.dispose();
  });

  it('a 1-D regression, judged on held-out points, with the training loop helper', async () => {
    const f = (x: number) => Math.sin(2 * x) + 0.5 * x;
    const ps = new nn.ParamStore({ seed: 3 });
    const net = nn.mlp(ps, 'reg', [1, 32, 32, 1], { activation: 'tanh' });
    const g = new nn.Graph();
    const x = g.input('x', ['batch', 1]);
    const y = g.input('y', ['batch', 1]);
    const pred = net(x);
    const steps = 400;
    const trainer = await nn.Trainer.create(g, {
      loss: nn.mseLoss(pred, y),
      optimizer: nn.adamW({ weightDecay: 1e-4 }),
      lr: nn.warmupCosine({ lr: 0.02, warmupSteps: 20, totalSteps: steps, minLr: 1e-4 }),
      clipGradNorm: 5,
      threads: 1,
    });
    // Held-out grid, between the random training points.
    const testX = Float32Array.from({ length: 101 }, (_, i) => -2 + (4 * i) / 100);
    const evalSession = await nn.GraphSession.create(g, { pred }, { threads: 1 });
    const testMse = async () => {
      const p = (await evalSession.run({ x: testX })).pred.data as Float32Array;
      let s = 0;
      testX.forEach((v, i) => (s += (p[i] - f(v)) ** 2));
      return { mse: s / testX.length };
    };
    const result = await nn.trainLoop({
      trainer,
      params: ps,
      steps,
      progress: false,
      batch: (_step, rng) => {
        const xs = Float32Array.from({ length: 64 }, () => -2 + 4 * rng.uniform());
        const ys = xs.map((v) => f(v) + 0.02 * rng.normal());
        return { x: xs, y: ys };
      },
      evaluate: { every: 100, run: testMse },
    });
    expect(result.evals.map((e) => e.step)).toEqual([100, 200, 300, 400]);
    expect(result.losses).toHaveLength(steps);
    expect(result.evals[0].metrics.mse).toBeGreaterThan(result.evals[3].metrics.mse);
    expect(result.evals[3].metrics.mse).toBeLessThan(0.01);
    await evalSession.dispose();
    await trainer.dispose();
  });
});

/** A BEV occupancy grid with box-shaped objects (target 1) and isolated clutter returns (target 0). */
function bevSample(rng: nn.Rng, size: number, occ: Float32Array, target: Float32Array, off: number) {
  const at = (r: number, c: number) => off + r * size + c;
  const objects = 2 + rng.int(2);
  for (let k = 0; k < objects; k++) {
    const h = 2 + rng.int(2);
    const w = 2 + rng.int(2);
    const r0 = rng.int(size - h);
    const c0 = rng.int(size - w);
    for (let r = r0; r < r0 + h; r++) for (let c = c0; c < c0 + w; c++) occ[at(r, c)] = target[at(r, c)] = 1;
  }
  for (let k = 0, tries = 0; k < 6 && tries < 200; tries++) {
    const r = rng.int(size);
    const c = rng.int(size);
    let free = true;
    for (let dr = -1; dr <= 1; dr++)
      for (let dc = -1; dc <= 1; dc++) {
        const rr = r + dr;
        const cc = c + dc;
        if (rr >= 0 && rr < size && cc >= 0 && cc < size && occ[at(rr, cc)]) free = false;
      }
    if (free) {
      occ[at(r, c)] = 1;
      k++;
    }
  }
}

function bevBatch(rng: nn.Rng, n: number, size: number) {
  const occ = new Float32Array(n * size * size);
  const target = new Float32Array(n * size * size);
  for (let i = 0; i < n; i++) bevSample(rng, size, occ, target, i * size * size);
  return { occ, target };
}

describe('a small CNN learns a toy BEV task', () => {
  it('tells objects from clutter on held-out grids (SGD with momentum)', async () => {
    const size = 16;
    const ps = new nn.ParamStore({ seed: 4 });
    const c1 = nn.conv2d(ps, 'c1', 1, 8, 3, { padding: 1 });
    const c2 = nn.conv2d(ps, 'c2', 8, 8, 3, { padding: 1 });
    const head = nn.conv2d(ps, 'head', 8, 1, 1);
    const g = new nn.Graph();
    const occ = g.input('occ', ['batch', 1, size, size]);
    const target = g.input('target', ['batch', 1, size, size]);
    const logits = head(nn.relu(c2(nn.relu(c1(occ)))));
    const trainer = await nn.Trainer.create(g, {
      loss: nn.bceWithLogits(logits, target),
      optimizer: nn.sgd({ momentum: 0.9 }),
      lr: 0.5,
      threads: 1,
    });
    const rng = new nn.Rng(11);
    for (let i = 0; i < 150; i++) {
      const b = bevBatch(rng, 8, size);
      await trainer.step({ occ: b.occ, target: b.target });
    }
    const test = bevBatch(new nn.Rng(999), 32, size);
    const s = await nn.GraphSession.create(g, { logits }, { threads: 1 });
    const out = (await s.run({ occ: test.occ })).logits.data as Float32Array;
    let tp = 0;
    let fp = 0;
    let fn = 0;
    let clutterHit = 0;
    let clutter = 0;
    out.forEach((v, i) => {
      const p = v > 0;
      if (p && test.target[i]) tp++;
      else if (p) fp++;
      else if (test.target[i]) fn++;
      if (test.occ[i] && !test.target[i]) {
        clutter++;
        if (p) clutterHit++;
      }
    });
    const f1 = (2 * tp) / (2 * tp + fp + fn);
    expect(f1).toBeGreaterThan(0.95);
    expect(clutterHit / clutter).toBeLessThan(0.05);
    await s.dispose();
    await trainer.dispose();
  });
});

describe('losses', () => {
  it('cross-entropy with label smoothing and position weights matches a direct computation', async () => {
    const g = new nn.Graph({ floatType: 'float64' });
    const logitsV = [0.5, -1, 2, 0.1, 0.3, 0.3, -2, 1, 0];
    const logits = g.constant(logitsV, [3, 3]);
    const targets = g.constant(BigInt64Array.from([2n, 0n, 1n]), [3], 'int64');
    const w = g.constant([1, 0, 2], [3]);
    const plain = nn.crossEntropy(logits, targets);
    const smooth = nn.crossEntropy(logits, targets, { labelSmoothing: 0.1, weights: w });
    const s = await nn.GraphSession.create(g, { plain, smooth }, { threads: 1 });
    const r = await s.run({});
    await s.dispose();
    const rows = [0, 1, 2].map((i) => logitsV.slice(3 * i, 3 * i + 3));
    const logp = rows.map((row) => {
      const m = Math.log(row.reduce((a, v) => a + Math.exp(v), 0));
      return row.map((v) => v - m);
    });
    const t = [2, 0, 1];
    const nll = logp.map((lp, i) => -lp[t[i]]);
    const smoothed = logp.map((lp, i) => 0.9 * nll[i] + (0.1 * -(lp[0] + lp[1] + lp[2])) / 3);
    expect(Number(r.plain.data[0])).toBeCloseTo((nll[0] + nll[1] + nll[2]) / 3, 12);
    expect(Number(r.smooth.data[0])).toBeCloseTo((smoothed[0] + 2 * smoothed[2]) / 3, 12);
  });
});

describe('optimizers, schedules, clipping', () => {
  const param = (ps: nn.ParamStore, name: string, kind: nn.ParamKind, values: number[]) => {
    const p = ps.add(name, [values.length], { kind: 'zeros' }, { kind });
    p.data.set(values);
    return p;
  };

  it('AdamW follows its formula and decays weights but not biases, norms or embeddings', () => {
    const ps = new nn.ParamStore();
    const w = param(ps, 'w', 'weight', [1, -2]);
    const b = param(ps, 'b', 'bias', [1, -2]);
    const n = param(ps, 'n', 'norm', [1, -2]);
    const e = param(ps, 'e', 'embedding', [1, -2]);
    const opt = nn.adamW({ weightDecay: 0.1, beta1: 0.9, beta2: 0.99, eps: 1e-8 });
    const g = new Float32Array([0.5, 0.25]);
    const lr = 0.01;
    opt.step([w, b, n, e], [g, g, g, g], lr);
    opt.step([w, b, n, e], [g, g, g, g], lr);
    // Reference: two steps of Loshchilov & Hutter's AdamW with bias correction.
    const ref = (x0: number, gi: number, wd: number) => {
      let x = x0;
      let m = 0;
      let v = 0;
      for (let t = 1; t <= 2; t++) {
        m = 0.9 * m + 0.1 * gi;
        v = 0.99 * v + 0.01 * gi * gi;
        const mh = m / (1 - 0.9 ** t);
        const vh = v / (1 - 0.99 ** t);
        x = x - lr * wd * x - (lr * mh) / (Math.sqrt(vh) + 1e-8);
      }
      return x;
    };
    [0, 1].forEach((i) => {
      expect(w.data[i]).toBeCloseTo(ref([1, -2][i], g[i], 0.1), 6);
      for (const p of [b, n, e]) expect(p.data[i]).toBeCloseTo(ref([1, -2][i], g[i], 0), 6);
    });
    expect(w.data[0]).not.toBeCloseTo(b.data[0], 6);
  });

  it('SGD with momentum accumulates velocity', () => {
    const ps = new nn.ParamStore();
    const w = param(ps, 'w', 'weight', [1]);
    const opt = nn.sgd({ momentum: 0.9 });
    opt.step([w], [new Float32Array([1])], 0.1); // v = 1, x = 0.9
    opt.step([w], [new Float32Array([1])], 0.1); // v = 1.9, x = 0.71
    expect(w.data[0]).toBeCloseTo(0.71, 6);
  });

  it('warm-up then cosine decay', () => {
    const s = nn.warmupCosine({ lr: 1, warmupSteps: 10, totalSteps: 110, minLr: 0.1 });
    expect(s(0)).toBeCloseTo(0.1);
    expect(s(9)).toBeCloseTo(1);
    expect(s(10)).toBeCloseTo(1);
    expect(s(60)).toBeCloseTo(0.55);
    expect(s(110)).toBeCloseTo(0.1);
    expect(s(500)).toBeCloseTo(0.1);
  });

  it('global-norm clipping scales all gradients together', () => {
    const a = new Float32Array([3, 0]);
    const b = new Float32Array([4]);
    const norm = nn.clipGradNorm([a, b], 1);
    expect(norm).toBeCloseTo(5);
    expect(nn.globalNorm([a, b])).toBeCloseTo(1, 5);
    expect(a[0] / b[0]).toBeCloseTo(0.75);
    const c = new Float32Array([0.3]);
    expect(nn.clipGradNorm([c], 1)).toBeCloseTo(0.3);
    expect(c[0]).toBeCloseTo(0.3);
  });
});
