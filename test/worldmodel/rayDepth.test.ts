// The learned ray-depth head: its features along constructed rays, the gate and clamps of its depth, learning a
// planted correction, and training on a log whose future sweeps label it (resumed, refused when it cannot win).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { streetLog } from './streetLog.ts';
import { rayTracePast } from '../../worldmodel/baselines/rayTracePast.ts';
import { DEFAULT_TOKENIZER_CONFIG } from '../../worldmodel/config.ts';
import { pastRayFeatures, RAY_FEATURE_COUNT, sweepRayStats } from '../../worldmodel/pastRayFeatures.ts';
import { forecastLogRayDepth } from '../../worldmodel/rayDepthForecast.ts';
import { type RayDepthJob, rayDepthInputsOf, rayDepthJob } from '../../worldmodel/rayDepthInputs.ts';
import { createRayDepthPool } from '../../worldmodel/rayDepthPool.ts';
import { truthRays } from '../../worldmodel/forecastProtocol.ts';
import { sensorOrigin } from '../../worldmodel/sweep.ts';
import { rayDepthErrors, referenceBand } from '../../tools/report/rayDepthErrors.ts';
import { scoreOnValidation, validationStarts } from '../../tools/report/rayDepthValidation.ts';
import { keepThresholdFor, RayDepthHead, RayDepthModel, rayDepth } from '../../worldmodel/rayDepthModel.ts';
import { raysAlong } from '../../worldmodel/rays.ts';
import {
  baselineErrors,
  allocateTrainingRays,
  chooseKeepThreshold,
  headErrors,
  rayDepthSamples,
  trainRayDepth,
} from '../../worldmodel/trainRayDepth.ts';

const cfg = DEFAULT_TOKENIZER_CONFIG;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-raydepth-'));
  dirs.push(d);
  return d;
};

/** A wall at x = 10 m, 4 m wide and 2 m tall, sampled every 5 cm. */
function wall(x: number): { x: Float32Array; y: Float32Array; z: Float32Array } {
  const ys: number[] = [];
  const zs: number[] = [];
  for (let y = -2; y <= 2; y += 0.05)
    for (let z = -1; z <= 1; z += 0.05) {
      ys.push(y);
      zs.push(z);
    }
  return { x: new Float32Array(ys.length).fill(x), y: Float32Array.from(ys), z: Float32Array.from(zs) };
}

describe('past-ray features', () => {
  it('describe each sweep along a ray: found, nearest range, spread, and nothing where no point is near', () => {
    const near = wall(10);
    const far = wall(12);
    const r = raysAlong(
      [
        [1, 0, 0],
        [0, 1, 0],
      ],
      [10, 10],
    );
    const agg = {
      x: Float32Array.of(...near.x),
      y: Float32Array.of(...near.y),
      z: Float32Array.of(...near.z),
    };
    const rt = rayTracePast(cfg, agg, r);
    const f = pastRayFeatures(
      cfg,
      [near, far].map((c) => sweepRayStats(c, r)),
      r,
      rt,
      NaN,
      0.6,
      3,
    );
    expect(f.length).toBe(2 * RAY_FEATURE_COUNT);
    // Ray 0, sweep 0 (the wall at 10 m, the ray-trace's depth): found, log ratio 0, within a bin.
    expect(f[0]).toBe(1);
    expect(Math.abs(f[1])).toBeLessThan(1e-3);
    expect(f[2]).toBeLessThan(0.2);
    // Sweep 1 saw the wall 2 m farther: its nearest point's log ratio is log(12 / 10).
    expect(f[7]).toBe(1);
    expect(f[8]).toBeCloseTo(Math.log(1.2), 2);
    // Sweep 2 was not given: empty, angle at its cap.
    expect(f[14]).toBe(0);
    expect(f[16]).toBe(1);
    // Ray 1 (along +y) meets no point of any sweep.
    const o = RAY_FEATURE_COUNT;
    expect(f[o]).toBe(0);
    expect(f[o + 7]).toBe(0);
    expect(f[o + 22]).toBe(1); // the ray-trace's miss flag
  });
});

describe('ray depth', () => {
  it('keeps the reference exactly where the gate says so, else scales it, inside the minimum range and the region', () => {
    expect(rayDepth(0.5, 40, 12.3456, 0.5, 2, 1)).toBe(12.3456);
    expect(rayDepth(0.5, 40, 10, Math.log(1.5), 0, 1)).toBeCloseTo(15, 5);
    expect(rayDepth(0.5, 40, 30, Math.log(2), 0, 1)).toBe(40);
    expect(rayDepth(0.5, 40, 1, Math.log(0.1), 0, 1)).toBe(0.5);
  });

  it('learns a planted correction the baseline lacks, and the gate keeps the baseline where it is right', async () => {
    const rng = new Rng(3);
    const n = 4096;
    const F = RAY_FEATURE_COUNT;
    const s = allocateTrainingRays(n);
    s.exitM.fill(40);
    for (let k = 0; k < n; k++) {
      const shifted = rng.uniform() < 0.5;
      for (let j = 0; j < F; j++) s.x[k * F + j] = rng.uniform(-1, 1);
      s.x[k * F] = shifted ? 1 : 0;
      const ref = rng.uniform(5, 30);
      s.reference[k] = ref;
      s.truth[k] = shifted ? ref * 1.25 : ref;
      s.y[k] = Math.log(s.truth[k] / ref);
      s.weight[k] = ref / 10;
    }
    const model = await RayDepthModel.create({ seed: 2 });
    try {
      const rows = Int32Array.from({ length: n }, (_, i) => i);
      for (let e = 0; e < 60; e++) await model.step(s, rows.subarray((e % 4) * 1024, ((e % 4) + 1) * 1024));
      const out = await model.predict(s.x, n);
      const base = baselineErrors(s);
      const gate = chooseKeepThreshold(cfg, s, out);
      const head = headErrors(cfg, s, out, gate.threshold);
      expect(base.mean).toBeGreaterThan(1);
      expect(head.mean).toBeLessThan(0.5 * base.mean);
      // Half the rays are exact in the baseline: the chosen gate keeps the median at the baseline's 0.
      expect(head.median).toBeLessThanOrEqual(base.median);
    } finally {
      await model.dispose();
    }
  });
});

describe('loading a ray-depth head', () => {
  it('names the file and what is wrong: missing, not ONNX, an ONNX model of something else', async () => {
    const d = tmp();
    await expect(RayDepthHead.load(path.join(d, 'none.onnx'))).rejects.toThrow(
      /none\.onnx.*no such ray-depth model/,
    );
    fs.writeFileSync(path.join(d, 'junk.onnx'), 'not a model');
    await expect(RayDepthHead.load(path.join(d, 'junk.onnx'))).rejects.toThrow(/junk\.onnx/);
    await expect(RayDepthHead.load('models/intention.onnx')).rejects.toThrow(
      /not a drivekit ray-depth model/,
    );
  });

  it('ships both folds with their training logs and held-out logs disjoint', async () => {
    for (const fold of ['A', 'B']) {
      const head = await RayDepthHead.load(`models/raydepth-fold${fold}/raydepth.onnx`);
      try {
        const card = JSON.parse(fs.readFileSync(`models/raydepth-fold${fold}/card.json`, 'utf8')) as {
          train: string[];
          heldOut: { logs: string[] };
        };
        expect(head.card.features).toBe(RAY_FEATURE_COUNT);
        expect(card.train.filter((l) => card.heldOut.logs.includes(l))).toEqual([]);
      } finally {
        await head.dispose();
      }
    }
  });
});

describe('training the ray-depth head on a log', () => {
  it('labels rays with the future sweep and the ray-trace depth as reference', async () => {
    const dir = path.join(tmp(), 'street');
    await streetLog(dir, 1, 16);
    const log = await LogReader.open(dir);
    try {
      const s = await rayDepthSamples(log, cfg, [4], { rayStride: 64, pastSweeps: 3 });
      expect(s.count).toBeGreaterThan(100);
      expect(s.x.length).toBe(s.count * RAY_FEATURE_COUNT);
      for (let k = 0; k < s.count; k++) {
        expect(s.truth[k]).toBeGreaterThan(0);
        expect(s.y[k]).toBeCloseTo(Math.max(-3, Math.min(3, Math.log(s.truth[k] / s.reference[k]))), 5);
      }
    } finally {
      await log.close();
    }
  });

  it('refuses to ship a head that never beats the baseline (a world where the past points are the future)', async () => {
    const dir = path.join(tmp(), 'still');
    await streetLog(dir, 0, 20, true);
    const log = await LogReader.open(dir);
    const out = path.join(tmp(), 'run');
    try {
      // A stationary car in a static world: the ray-trace depth is the truth, nothing can improve on it.
      await expect(
        trainRayDepth({ logs: [{ name: 'still', log }], cfg, out, data: {} }, { epochs: 1, rayStride: 64 }),
      ).rejects.toThrow(/no epoch beat the ray-trace baseline/);
      expect(fs.existsSync(path.join(out, 'raydepth.onnx'))).toBe(false);
    } finally {
      await log.close();
    }
  });

  it('trains on a moving street, resumes from its checkpoint, and forecasts along the true rays', async () => {
    const dir = path.join(tmp(), 'street');
    await streetLog(dir, 1.2, 24);
    const log = await LogReader.open(dir);
    const out = path.join(tmp(), 'run');
    try {
      const first = await trainRayDepth(
        { logs: [{ name: 'street', log }], cfg, out, data: {} },
        { epochs: 2, rayStride: 16, batch: 256 },
      );
      expect(first.curve.map((c) => c.epoch)).toEqual([1, 2]);
      expect(first.validation.model.mean).toBeLessThan(first.validation.baseline.mean);
      const resumed = await trainRayDepth(
        { logs: [{ name: 'street', log }], cfg, out, data: {} },
        { epochs: 3, rayStride: 16, batch: 256 },
      );
      // Epochs 1–2 come from the checkpoint; only epoch 3 ran.
      expect(resumed.curve.map((c) => c.epoch)).toEqual([1, 2, 3]);
      expect(resumed.curve.slice(0, 2)).toEqual(first.curve);
      const head = await RayDepthHead.load(path.join(out, 'raydepth.onnx'));
      try {
        expect(head.card.pastSweeps).toBe(3);
        const recs = await forecastLogRayDepth(log, cfg, head, {
          starts: [4],
          horizons: ['1s'],
          rayStride: 32,
        });
        expect(recs.map((r) => r.targetFrame)).toEqual([6, 8, 10, 12, 14]);
        for (const r of recs) expect(r.rays).toBe('truth');
      } finally {
        await head.dispose();
      }
    } finally {
      await log.close();
    }
  });

  it('computes the same inputs on worker threads as in this one; a job failing in a worker rejects with its message', async () => {
    const dir = path.join(tmp(), 'street');
    await streetLog(dir, 1.2, 18);
    const log = await LogReader.open(dir);
    const pool = createRayDepthPool(cfg, 2);
    try {
      expect(pool.workers).toBe(2);
      const cache = new Map();
      const jobs: RayDepthJob[] = [];
      for (const target of [6, 10, 14]) {
        const r = truthRays(cfg, (await log.readFrame(target)).points, sensorOrigin(log.meta), 8);
        jobs.push(await rayDepthJob(log, 4, target, 3, r, cache));
      }
      // All three frames in flight at once, as a forecast sends them.
      const pooled = await Promise.all(jobs.map((j) => pool.inputs(j)));
      jobs.forEach((j, i) => {
        const here = rayDepthInputsOf(cfg, j);
        expect(pooled[i].features).toEqual(here.features);
        expect(pooled[i].rt).toEqual(here.rt);
      });
      // A job that throws inside a worker (here: no grid in the config) rejects with the worker's message,
      // and the pool answers the next job instead of hanging.
      const broken = createRayDepthPool({} as typeof cfg, 2);
      try {
        await expect(broken.inputs(jobs[0])).rejects.toThrow(/^ray-depth worker: \S/);
        await expect(broken.inputs(jobs[1])).rejects.toThrow(/^ray-depth worker: \S/);
      } finally {
        await broken.close();
      }
    } finally {
      await pool.close();
      await log.close();
    }
  });

  it('reports the head against the ray-trace per ray, every ray in one reference band and one horizon', async () => {
    expect([2, 2.5, 3.49, 3.5, 19.9, 20, 80].map(referenceBand)).toEqual([
      '< 2.5 m',
      '2.5–3.5 m',
      '2.5–3.5 m',
      '3.5–5 m',
      '10–20 m',
      '≥ 20 m',
      '≥ 20 m',
    ]);
    const dir = path.join(tmp(), 'street');
    await streetLog(dir, 1.2, 16);
    const log = await LogReader.open(dir);
    const head = await RayDepthHead.load('models/raydepth-foldA/raydepth.onnx');
    try {
      const rows = await rayDepthErrors(log, cfg, head, [4], 32);
      const all = rows.find((r) => r.bucket === 'all')!;
      expect(all.rays).toBeGreaterThan(100);
      const sum = (prefix: RegExp) =>
        rows.filter((r) => prefix.test(r.bucket)).reduce((a, r) => a + r.rays, 0);
      expect(sum(/^reference /)).toBe(all.rays);
      expect(sum(/ s ahead$/)).toBe(all.rays);
      expect(sum(/^(looking down|level or up)$/)).toBe(all.rays);
      for (const r of rows) {
        expect(r.headMedianM).toBeGreaterThanOrEqual(0);
        expect(Number.isFinite(r.rayTraceMeanM) && Number.isFinite(r.headMeanM)).toBe(true);
        expect(r.keptShare).toBeGreaterThanOrEqual(0);
        expect(r.keptShare).toBeLessThanOrEqual(1);
      }
      await expect(rayDepthErrors(log, cfg, head, [12], 32)).rejects.toThrow(/start 12 has no 1 s ahead/);
    } finally {
      await head.dispose();
      await log.close();
    }
  });

  it('scores several heads on the same validation rays, per log and pooled as the trainer pools them', async () => {
    const dir = path.join(tmp(), 'street');
    await streetLog(dir, 1.2, 16);
    const log = await LogReader.open(dir);
    const a = await RayDepthHead.load('models/raydepth-foldA/raydepth.onnx');
    const b = await RayDepthHead.load('models/raydepth-foldB/raydepth.onnx');
    try {
      const starts = validationStarts({ split: { street: { validation: [4] } } }).get('street')!;
      const rows = await scoreOnValidation([{ name: 'street', log, starts }], cfg, [a, b, a]);
      expect(rows.map((r) => r.log)).toEqual(['street', 'pooled']);
      const s = await rayDepthSamples(log, cfg, [4], { rayStride: 16, pastSweeps: 3 });
      expect(rows[0].rays).toBe(s.count);
      expect(rows[0].rayTrace).toEqual(baselineErrors(s));
      expect(rows[0].heads[0]).toEqual(
        headErrors(cfg, s, await a.outputs(s.x, s.count), keepThresholdFor(a.card, 'test')),
      );
      // The same head twice gives the same figures; one log pooled is that log.
      expect(rows[0].heads[2]).toEqual(rows[0].heads[0]);
      expect(rows[1]).toEqual({ ...rows[0], log: 'pooled' });
      expect(() => validationStarts({})).toThrow(/no split/);
    } finally {
      await a.dispose();
      await b.dispose();
      await log.close();
    }
  });

  it('a frame that fails to read mid-forecast ends it with that error, the frames already sent to workers dropped', async () => {
    const dir = path.join(tmp(), 'street');
    await streetLog(dir, 1.2, 16);
    const log = await LogReader.open(dir);
    const head = await RayDepthHead.load('models/raydepth-foldA/raydepth.onnx');
    // Fault injection on the real reader: frame 10 (the third future sweep of start 4) cannot be read.
    const read = log.readFrame.bind(log);
    log.readFrame = (f: number) => (f === 10 ? Promise.reject(new Error('frame 10: bad chunk')) : read(f));
    try {
      await expect(
        forecastLogRayDepth(log, cfg, head, { starts: [4], horizons: ['1s'], rayStride: 32, workers: 2 }),
      ).rejects.toThrow('frame 10: bad chunk');
    } finally {
      await head.dispose();
      await log.close();
    }
  });
});
