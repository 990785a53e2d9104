// The ray-depth head's gate on real and simulated sweeps: the real-sweep threshold applied by log source, chosen
// on the real logs' validation rays (in training or afterwards by tools/models/gateRayDepth.ts), real rays repeated.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogReader } from '../../datasets/logstore.ts';
import { DEFAULT_TOKENIZER_CONFIG } from '../../worldmodel/config.ts';
import { RAY_FEATURE_COUNT } from '../../worldmodel/pastRayFeatures.ts';
import { forecastLogRayDepth } from '../../worldmodel/rayDepthForecast.ts';
import {
  depthFromOutputs,
  keepBelowElevationFor,
  keepLogRatioBelowFor,
  keepThresholdFor,
  RayDepthHead,
  rayDepth,
  withRayDepthCard,
} from '../../worldmodel/rayDepthModel.ts';
import {
  allocateTrainingRays,
  chooseKeepBelowElevation,
  chooseKeepLogRatioBelow,
  chooseKeepThreshold,
  chooseRealKeepThreshold,
  rayDepthSamples,
  trainRayDepth,
} from '../../worldmodel/trainRayDepth.ts';
import { tmpDir } from '../perception/tmp.ts';
import { streetLog } from './streetLog.ts';

const cfg = DEFAULT_TOKENIZER_CONFIG;
const tmp = () => tmpDir('dk-raygate-');

describe('the gate on real and simulated sweeps', () => {
  it('a dead zone keeps the reference where the head only nudges it, the least median at no cost in mean, on real sweeps only', () => {
    expect(rayDepth(0.5, 40, 10, 0.01, -5, 0, 0.02)).toBe(10);
    expect(rayDepth(0.5, 40, 10, 0.03, -5, 0, 0.02)).toBeCloseTo(10 * Math.exp(0.03), 5);
    expect(rayDepth(0.5, 40, 10, 0.01, -5, 0)).toBeCloseTo(10 * Math.exp(0.01), 5);
    const card = {
      format: 'x',
      features: 1,
      pastSweeps: 3,
      keepThresholdLogit: 0,
      realKeepLogRatioBelow: 0.02,
    };
    expect(keepLogRatioBelowFor(card, 'kitti')).toBe(0.02);
    expect(keepLogRatioBelowFor(card, 'synthetic')).toBe(0);
    expect(keepLogRatioBelowFor({ ...card, realKeepLogRatioBelow: undefined }, 'kitti')).toBe(0);
    // Half the rays: the reference is exact and the head nudges it by ±0.8 %; half: the head's 30 % is exact.
    const n = 200;
    const s = allocateTrainingRays(n);
    const out = { logRatio: new Float32Array(n), keepLogit: new Float32Array(n).fill(-10) };
    for (let k = 0; k < n; k++) {
      s.reference[k] = 10;
      s.exitM[k] = 40;
      const nudged = k % 2 === 0;
      out.logRatio[k] = nudged ? (k % 4 === 0 ? 0.008 : -0.008) : 0.3;
      s.truth[k] = nudged ? 10 : 10 * Math.exp(0.3);
    }
    const pick = chooseKeepLogRatioBelow(cfg, s, out, 0);
    // Every zone above the nudges and below the real corrections makes all errors 0; the first of them is kept.
    expect(pick.below).toBe(0.01);
    expect(pick.table.find((r) => r.below === pick.below)!.median).toBeLessThan(1e-5);
    expect(pick.table[0]).toMatchObject({ below: 0 });
    expect(pick.table[0].mean).toBeCloseTo(0.04, 2);
    // A zone that would win the median by keeping a reference that is 0.46 m off on 45 % of the rays raises the
    // mean: it is not taken.
    for (let k = 0; k < n; k++) {
      const nudged = k % 20 < 11;
      out.logRatio[k] = nudged ? 0.035 : 0.045;
      s.truth[k] = nudged ? 10 : 10 * Math.exp(0.045);
    }
    const costly = chooseKeepLogRatioBelow(cfg, s, out, 0);
    const at = (below: number) => costly.table.find((r) => r.below === below)!;
    expect(at(0.05).median).toBeLessThan(at(0).median);
    expect(at(0.05).mean).toBeGreaterThan(at(0).mean);
    expect(costly.below).toBe(0);
  });

  it('keeps the reference on rays below an elevation, the least median at no cost in mean, on real sweeps only', () => {
    const card = {
      format: 'x',
      features: 1,
      pastSweeps: 3,
      keepThresholdLogit: 0,
      realKeepBelowElevationDeg: -10,
    };
    expect(keepBelowElevationFor(card, 'kitti')).toBe(-10);
    expect(keepBelowElevationFor(card, 'synthetic')).toBe(-90);
    expect(keepBelowElevationFor({ ...card, realKeepBelowElevationDeg: undefined }, 'kitti')).toBe(-90);
    // Rays from −23° to +3° in 2° steps, 10 each (no ray on a tried elevation): on the ground (−7° and below) the
    // reference is exact and the head 3 % long; above it the head is 1 % long and the reference 20 % short.
    const elevations = Array.from({ length: 140 }, (_, k) => -23 + 2 * Math.floor(k / 10));
    const n = elevations.length;
    const s = allocateTrainingRays(n);
    const out = { logRatio: new Float32Array(n), keepLogit: new Float32Array(n).fill(-10) };
    const ground = (k: number) => elevations[k] <= -7;
    for (let k = 0; k < n; k++) {
      s.dirZ[k] = Math.sin((elevations[k] * Math.PI) / 180);
      s.reference[k] = 10;
      s.exitM[k] = 40;
      out.logRatio[k] = ground(k) ? Math.log(1.03) : Math.log(12.12 / 10);
      s.truth[k] = ground(k) ? 10 : 12;
    }
    const pick = chooseKeepBelowElevation(cfg, s, out, 0);
    const at = (deg: number) => pick.table.find((r) => r.belowDeg === deg)!;
    expect(pick.table[0]).toMatchObject({ belowDeg: -90 });
    expect(at(-90).median).toBeCloseTo(0.3, 4);
    // Keeping the reference below −8° makes 80 of the 140 errors 0, and the median: the first elevation to do so.
    expect(at(-8).median).toBe(0);
    expect(at(-10).median).toBeGreaterThan(0);
    expect(pick.belowDeg).toBe(-8);
    // Keeping level rays too (below 0°) would give up the head's corrections there: a worse mean than none.
    expect(at(0).median).toBe(0);
    expect(at(0).mean).toBeGreaterThan(at(-90).mean);
    // The forecast applies the same rule per ray.
    const rays = { count: n, dirX: new Float32Array(n).fill(1), dirY: new Float32Array(n), dirZ: s.dirZ };
    const depth = depthFromOutputs(cfg, rays as never, s.reference, out, 0, 0, -6);
    for (let k = 0; k < n; k++) expect(depth[k]).toBeCloseTo(ground(k) ? 10 : 12.12, 4);
  });

  it('repeats the training rays of real logs and chooses their gate on their validation rays alone', async () => {
    const real = path.join(tmp(), 'real');
    const simulated = path.join(tmp(), 'simulated');
    await streetLog(real, 1.2, 24);
    await streetLog(simulated, 1.2, 24, false, 'synthetic');
    const logs = [
      { name: 'real', log: await LogReader.open(real) },
      { name: 'simulated', log: await LogReader.open(simulated) },
    ];
    const out = path.join(tmp(), 'run');
    try {
      const c = { epochs: 1, rayStride: 64, batch: 512, realRepeat: 3, realGate: true };
      await trainRayDepth({ logs, cfg, out, data: {} }, c);
      const card = JSON.parse(fs.readFileSync(path.join(out, 'card.json'), 'utf8'));
      const samples = await Promise.all(
        logs.map(({ name, log }) =>
          rayDepthSamples(log, cfg, card.split[name].train, { rayStride: 64, pastSweeps: 3 }),
        ),
      );
      expect(card.samples.trainRowsPerEpoch).toBe(3 * samples[0].count + samples[1].count);
      // The real gate is the trainer's rule on the real log's validation rays, the pooled one on both logs'.
      const head = await RayDepthHead.load(path.join(out, 'raydepth.onnx'));
      try {
        const val = await Promise.all(
          logs.map(({ name, log }) =>
            rayDepthSamples(log, cfg, card.split[name].validation, { rayStride: 64, pastSweeps: 3 }),
          ),
        );
        const parts = [
          { source: 'test', rays: val[0] },
          { source: 'synthetic', rays: val[1] },
        ];
        const gate = await chooseRealKeepThreshold(cfg, parts, (x, n) => head.outputs(x, n));
        const want = chooseKeepThreshold(cfg, val[0], await head.outputs(val[0].x, val[0].count)).threshold;
        expect(gate!.threshold).toBe(want);
        expect(head.card.realKeepThresholdLogit).toBe(Number.isFinite(want) ? want : 1e9);
        expect(card.validation.real.rays).toBe(val[0].count);
        expect(await chooseRealKeepThreshold(cfg, [parts[1]], (x, n) => head.outputs(x, n))).toBeNull();
      } finally {
        await head.dispose();
      }
    } finally {
      for (const { log } of logs) await log.close();
    }
  });

  it('applies the real-sweep threshold to every log not from the simulator, and rewrites a card without touching the weights', async () => {
    const bytes = new Uint8Array(fs.readFileSync('models/raydepth-foldA/raydepth.onnx'));
    const shipped = await RayDepthHead.load('models/raydepth-foldA/raydepth.onnx');
    const d = tmp();
    // Real sweeps keep the ray-trace everywhere (a threshold every logit reaches); simulated ones as shipped.
    const file = path.join(d, 'gated.onnx');
    fs.writeFileSync(file, withRayDepthCard(bytes, { ...shipped.card, realKeepThresholdLogit: -1e9 }));
    const gated = await RayDepthHead.load(file);
    const real = path.join(d, 'real');
    const simulated = path.join(d, 'simulated');
    await streetLog(real, 1.2, 16);
    await streetLog(simulated, 1.2, 16, false, 'synthetic');
    const logs = [await LogReader.open(real), await LogReader.open(simulated)];
    try {
      expect(keepThresholdFor(gated.card, 'kitti')).toBe(-1e9);
      expect(keepThresholdFor(gated.card, 'synthetic')).toBe(shipped.card.keepThresholdLogit);
      expect(keepThresholdFor(shipped.card, 'kitti')).toBe(shipped.card.keepThresholdLogit);
      const x = new Float32Array(4 * RAY_FEATURE_COUNT).map((_, i) => Math.sin(i));
      expect(await gated.outputs(x, 4)).toEqual(await shipped.outputs(x, 4));
      const opts = { starts: [4], horizons: ['1s' as const], rayStride: 32, workers: 1 };
      const alwaysKeeps = path.join(d, 'keeps.onnx');
      fs.writeFileSync(alwaysKeeps, withRayDepthCard(bytes, { ...shipped.card, keepThresholdLogit: -1e9 }));
      const keeps = await RayDepthHead.load(alwaysKeeps);
      try {
        const forecast = (log: LogReader, head: RayDepthHead) => forecastLogRayDepth(log, cfg, head, opts);
        // Simulated sweeps: the gated head is the shipped one. Real sweeps: it keeps the ray-trace's depth on
        // every ray, as a head whose only threshold keeps everywhere, and that differs from the shipped head's.
        expect(await forecast(logs[1], gated)).toEqual(await forecast(logs[1], shipped));
        const onReal = await forecast(logs[0], gated);
        expect(onReal).toEqual(await forecast(logs[0], keeps));
        expect(onReal).not.toEqual(await forecast(logs[0], shipped));
      } finally {
        await keeps.dispose();
      }
    } finally {
      for (const l of logs) await l.close();
      await gated.dispose();
      await shipped.dispose();
    }
  });

  it('gives a trained head its real-sweep gate from the real logs of its own split (tools/models/gateRayDepth.ts)', async () => {
    const d = tmp();
    await streetLog(path.join(d, 'logs', 'real'), 1.2, 16);
    await streetLog(path.join(d, 'logs', 'simulated'), 1.2, 16, false, 'synthetic');
    const shipped = await RayDepthHead.load('models/raydepth-foldA/raydepth.onnx');
    const split = { real: { train: [], validation: [4] }, simulated: { train: [], validation: [4] } };
    const file = path.join(d, 'head.onnx');
    fs.writeFileSync(
      file,
      withRayDepthCard(new Uint8Array(fs.readFileSync('models/raydepth-foldA/raydepth.onnx')), {
        ...shipped.card,
        split,
      }),
    );
    await shipped.dispose();
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'tools/models/gateRayDepth.ts',
        '--model',
        file,
        '--logs',
        path.join(d, 'logs'),
        '--out',
        path.join(d, 'out'),
      ],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    const head = await RayDepthHead.load(path.join(d, 'out', 'raydepth.onnx'));
    const log = await LogReader.open(path.join(d, 'logs', 'real'));
    try {
      const val = await rayDepthSamples(log, cfg, [4], { rayStride: 16, pastSweeps: 3 });
      const want = chooseKeepThreshold(cfg, val, await head.outputs(val.x, val.count)).threshold;
      expect(head.card.realKeepThresholdLogit).toBe(Number.isFinite(want) ? want : 1e9);
      expect(head.card.keepThresholdLogit).toBe(shipped.card.keepThresholdLogit);
      expect((head.card.validation as { real: { rays: number } }).real.rays).toBe(val.count);
    } finally {
      await log.close();
      await head.dispose();
    }
  });
});
