import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { composePoses, invertPose, poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { Rng } from '../../core/rng.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { DEFAULT_TOKENIZER_CONFIG } from '../../worldmodel/config.ts';
import { BAR_FIGURES, evalForecast, POINT_BASELINES } from '../../worldmodel/evalForecast.ts';
import type { ForecastRecord } from '../../worldmodel/forecastFile.ts';
import { readForecastFile, writeForecastFile } from '../../worldmodel/forecastFile.ts';
import { scoreSweep, transformed, type TruthSweep } from '../../worldmodel/forecastProtocol.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-evalfc-'));
  dirs.push(d);
  return d;
};

/** A static world of scattered points; the car drives at constant speed and turn rate. */
async function staticLog(dir: string, moving: boolean): Promise<void> {
  const rng = new Rng(4);
  const n = 300;
  const world = {
    x: Float32Array.from({ length: n }, () => rng.uniform(-20, 30)),
    // Nothing within 4 m of the path: no static point ever falls in the ego box.
    y: Float32Array.from({ length: n }, () => (rng.uniform() < 0.5 ? -1 : 1) * rng.uniform(4, 25)),
    z: Float32Array.from({ length: n }, () => rng.uniform(-1.5, 2)),
  };
  const w = LogWriter.create(dir, { source: 'test', rateHz: 10 });
  // Constant speed and turn rate: every frame moves 0.8 m forward and turns 0.02 rad in its own frame.
  const step = moving ? poseFromTranslationYaw(0.8, 0, 0, 0.02) : poseFromTranslationYaw(0, 0, 0, 0);
  let pose = poseFromTranslationYaw(0, 0, 0, 0);
  for (let f = 0; f < 16; f++) {
    if (f > 0) pose = composePoses(pose, step);
    const local = transformed(world, invertPose(pose));
    const pc = allocatePointCloud(n);
    pc.x.set(local.x);
    pc.y.set(local.y);
    pc.z.set(local.z);
    w.appendFrame({ timestampNs: BigInt(f) * 100_000_000n, pose, points: pc });
  }
  await w.close();
}

describe('eval-forecast (4D-Occ protocol)', () => {
  it('computes the squared Chamfer, L1 and AbsRel of hand-made clouds', () => {
    const truth: TruthSweep = {
      rays: {
        count: 2,
        dirX: Float32Array.of(1, 0),
        dirY: Float32Array.of(0, 1),
        dirZ: Float32Array.of(0, 0),
        depthM: Float32Array.of(10, 10),
        pointIndex: Int32Array.of(0, 1),
      },
      pointsT0: { x: Float32Array.of(10, 0), y: Float32Array.of(0, 10), z: Float32Array.of(0, 0) },
    };
    const pred = { x: Float32Array.of(11), y: Float32Array.of(0), z: Float32Array.of(0) };
    const f = scoreSweep(pred, Float32Array.of(11, 5), truth);
    // pred → truth: 1; truth → pred: (1 + 11² + 10²) / 2 = 111.
    expect(f.chamfer).toBeCloseTo(0.5 * (1 + 111), 9);
    expect(f.chamferNear).toBeCloseTo(56, 9);
    expect(f.l1).toBeCloseTo(3, 9);
    expect(f.absrel).toBeCloseTo(0.3, 9);
    const far = { x: Float32Array.of(11, 100), y: Float32Array.of(0, 0), z: Float32Array.of(0, 0) };
    expect(scoreSweep(far, Float32Array.of(11, 5), truth).chamferNear).toBeCloseTo(56, 9);
    expect(scoreSweep(far, Float32Array.of(11, 5), truth).chamfer).toBeGreaterThan(56);
  });

  it('copy-last (and constant velocity) on a static scene with known motion score zero', async () => {
    const dir = path.join(tmp(), 'static');
    await staticLog(dir, true);
    const log = await LogReader.open(dir);
    // The forecast file round trip, with a "model" that is the truth shifted by 1 m.
    const records: ForecastRecord[] = [];
    for (const d of [2, 4, 6, 8, 10]) {
      const m = composePoses(invertPose(log.pose(4)), log.pose(4 + d));
      const pts = (await log.readFrame(4 + d)).points;
      const t0 = transformed(pts, m);
      records.push({
        startFrame: 4,
        targetFrame: 4 + d,
        horizonS: d / 10,
        rays: 'nominal',
        points: { ...t0, x: t0.x.map((v) => v + 1) },
      });
    }
    const file = path.join(tmp(), 'pred.arrow');
    await writeForecastFile(file, records);
    const back = readForecastFile(file).records;
    expect(back.map((r) => [r.startFrame, r.targetFrame])).toEqual(
      records.map((r) => [r.startFrame, r.targetFrame]),
    );
    const res = await evalForecast({ log, records: back, tokenizerConfig: DEFAULT_TOKENIZER_CONFIG });
    await log.close();
    const h = res['1s']!;
    const r = h.methods;
    expect(h.starts).toEqual([4]);
    expect(res['3s']).toBeUndefined();
    expect(r.copy_last.chamfer).toBeLessThan(1e-9);
    expect(r.copy_last.chamfer_near).toBeLessThan(1e-9);
    // Depth of a point cloud along a ray is read from a 0.2° × 0.25° range image: a neighbouring point in
    // the same or the next bin can stand in for a ray's own, rarely, with 300 scattered points.
    expect(r.copy_last.l1).toBeLessThan(0.05);
    expect(r.copy_last.absrel).toBeLessThan(0.005);
    expect(r.copy_last.l1_median).toBeLessThan(1e-4);
    expect(r.const_vel.chamfer).toBeLessThan(1e-6);
    // Every past sweep of a static scene holds the future's points: the ray-trace finds each ray's own return.
    for (const m of ['ray_trace', 'ray_trace_clamped', 'ray_trace_ground', 'ray_cast_voxels'])
      expect(r[m].l1_median, m).toBeLessThan(1e-4);
    expect(r.ray_trace.chamfer_median).toBeLessThan(1e-6);
    // Shifting every point by 1 m costs at most 1 m² (and more than nothing).
    expect(r.model.chamfer).toBeGreaterThan(0.05);
    expect(r.model.chamfer).toBeLessThanOrEqual(1 + 1e-6);
    expect(r.model.chamfer_median).toBeGreaterThan(0.05);
    expect(r.oracle).toBeUndefined();
    expect(r.prior).toBeUndefined();
    // The bar is the best baseline in each figure, and the shifted "model" does not clear it.
    for (const k of BAR_FIGURES) {
      const best = Math.min(...POINT_BASELINES.map((m) => r[m][k]));
      expect(h.bar[k].value).toBe(best);
      expect(r[h.bar[k].method][k]).toBe(best);
    }
    expect(h.beats_bar.model.chamfer).toBe(false);
    expect(res.past_sweeps).toBe(3);
    // Without a forecast, the baselines alone at the given starts.
    const again = await LogReader.open(dir);
    const only = await evalForecast({
      log: again,
      starts: [4, 6],
      tokenizerConfig: DEFAULT_TOKENIZER_CONFIG,
    });
    await again.close();
    expect(only['1s']!.starts).toEqual([4]);
    expect(Object.keys(only['1s']!.methods)).toEqual([...POINT_BASELINES]);
  });

  it('a log without ego poses is a clear error', async () => {
    const dir = path.join(tmp(), 'noposes');
    await staticLog(dir, false);
    const log = await LogReader.open(dir);
    const rec: ForecastRecord = {
      startFrame: 4,
      targetFrame: 6,
      horizonS: 0.2,
      rays: 'nominal',
      points: { x: Float32Array.of(1), y: Float32Array.of(1), z: Float32Array.of(1) },
    };
    await expect(
      evalForecast({ log, records: [rec], tokenizerConfig: DEFAULT_TOKENIZER_CONFIG }),
    ).rejects.toThrow(InputError);
    await expect(
      evalForecast({ log, records: [rec], tokenizerConfig: DEFAULT_TOKENIZER_CONFIG }),
    ).rejects.toThrow(/no ego poses.*odometry/);
    await log.close();
  });
});
