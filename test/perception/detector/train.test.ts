// Training the detector end to end on tiny settings: it learns cars from a few labelled sweeps and finds
// cars it never saw (other places, headings); the exported ONNX computes what the training graph did; a
// run stopped at a checkpoint and resumed ends with the same weights as one that ran straight through.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { boxAt } from '../../../core/arrow/records.ts';
import type { Box3 } from '../../../core/geometry/box.ts';
import { bevIou } from '../../../core/geometry/iou.ts';
import { Graph } from '../../../core/nn/graph.ts';
import { GraphSession } from '../../../core/nn/graphSession.ts';
import { createSession, ort } from '../../../core/nn/runtime.ts';
import { Rng } from '../../../core/rng.ts';
import { resolveDetectorConfig } from '../../../perception/detector/config.ts';
import { Detector, readDetectorSpec } from '../../../perception/detector/model.ts';
import { type TrainingFrame, trainDetector, trainingFrame } from '../../../perception/detector/train.ts';
import { castSweep, flat } from '../scene.ts';
import { tmpDir } from '../tmp.ts';

const sensor = {
  sensorZ: 1.8,
  rings: 32,
  azimuthSteps: 900,
  minElevationDeg: -25,
  maxElevationDeg: 2,
  maxRangeM: 30,
};

/** `n` cars at random places 4–12 m from the sensor, not overlapping, random headings. */
function randomCars(rng: Rng, n: number): Box3[] {
  const cars: Box3[] = [];
  while (cars.length < n) {
    const r = 4 + 8 * rng.uniform();
    const a = 2 * Math.PI * rng.uniform();
    const c: Box3 = {
      cx: r * Math.cos(a),
      cy: r * Math.sin(a),
      cz: 0.8,
      length: 4.2 + 0.6 * rng.uniform(),
      width: 1.7 + 0.3 * rng.uniform(),
      height: 1.5 + 0.3 * rng.uniform(),
      yaw: Math.PI * (2 * rng.uniform() - 1),
    };
    if (cars.every((o) => Math.hypot(o.cx - c.cx, o.cy - c.cy) > 6)) cars.push(c);
  }
  return cars;
}

function sweepOf(cars: Box3[], seed: number) {
  const s = castSweep({ ...sensor, terrain: flat(0), boxes: cars, noiseM: 0.02, seed });
  const n = s.x.length;
  return { x: s.x, y: s.y, z: s.z, intensity: new Float32Array(n).fill(0.4), ring: new Uint16Array(n) };
}

const tiny = resolveDetectorConfig({
  grid: { rangeM: 12.8 },
  train: {
    steps: 200,
    batchSize: 4,
    cropCells: 64,
    lr: 4e-3,
    warmupSteps: 20,
    threads: 2,
    checkpointEvery: 1000,
  },
  augment: { rayDrop: { probability: 0.3 } },
});

const rng = new Rng(2024);
const trainScenes = Array.from({ length: 3 }, () => randomCars(rng, 3));
const heldOut = randomCars(rng, 4);
const frames: TrainingFrame[] = trainScenes.map((cars, i) => trainingFrame(sweepOf(cars, i + 1), cars, tiny));

describe('detector training (tiny)', () => {
  it('learns from labelled sweeps and detects held-out cars; the export matches the training forward', async () => {
    const res = await trainDetector(frames, tiny);
    expect(res.steps).toBe(200);
    const first = res.losses.slice(0, 20).reduce((s, l) => s + l.total, 0) / 20;
    const last = res.losses.slice(-20).reduce((s, l) => s + l.total, 0) / 20;
    expect(last).toBeLessThan(first * 0.6);

    const det = await Detector.fromBytes(res.onnx, 'trained.onnx', { threads: 2 });
    try {
      const boxes = await det.detect(sweepOf(heldOut, 99), 0);
      // Every held-out car is found at BEV IoU ≥ 0.3 among the 6 best boxes, and the 3 best are all cars.
      const order = Array.from({ length: boxes.cx.length }, (_, i) => i).sort(
        (a, b) => boxes.score[b] - boxes.score[a],
      );
      const top = order.slice(0, 6).map((i) => boxAt(boxes, i));
      for (const car of heldOut)
        expect(Math.max(...top.map((b) => bevIou(car, b)))).toBeGreaterThanOrEqual(0.3);
      for (const b of top.slice(0, 3))
        expect(Math.max(...heldOut.map((c) => bevIou(c, b)))).toBeGreaterThan(0.1);
    } finally {
      await det.dispose();
    }

    // Export: the ONNX file alone (onnxruntime, no drivekit graph) gives the training graph's forward outputs.
    const spec = readDetectorSpec(res.onnx, 'trained.onnx');
    expect(spec.network).toEqual(tiny.network);
    const g = new Graph();
    const x = g.input('bev', [1, 5, 64, 64]);
    const heads = res.net(x);
    const train = await GraphSession.create(
      g,
      { heatmap: heads.heatmap, boxes: heads.boxes },
      { threads: 1 },
    );
    const exported = await createSession(res.onnx, { threads: 1 });
    const input = new Float32Array(5 * 64 * 64);
    const r = new Rng(5);
    for (let i = 0; i < input.length; i++) input[i] = r.uniform() < 0.1 ? r.uniform() : 0;
    const a = await train.run({ bev: input });
    const b = await exported.run({ bev: new ort.Tensor('float32', input, [1, 5, 64, 64]) });
    for (const k of ['heatmap', 'boxes']) {
      const u = a[k].data as Float32Array;
      const v = b[k].data as Float32Array;
      expect(v.length).toBe(u.length);
      let maxDiff = 0;
      for (let i = 0; i < u.length; i++) maxDiff = Math.max(maxDiff, Math.abs(u[i] - v[i]));
      expect(maxDiff).toBeLessThan(1e-4);
    }
    await train.dispose();
    await exported.release();
  });

  it('resumes from a checkpoint to the same weights as an uninterrupted run', async () => {
    const cfg = resolveDetectorConfig({
      ...tiny,
      train: { ...tiny.train, steps: 6, checkpointEvery: 3, threads: 1 },
    });
    const dir = tmpDir();
    const straight = await trainDetector(frames, cfg, { checkpointPath: path.join(dir, 'a.safetensors') });
    const ck = path.join(dir, 'b.safetensors');
    const part = await trainDetector(frames, cfg, { checkpointPath: ck, stopAtStep: 3 });
    expect(part.steps).toBe(3);
    expect(fs.existsSync(ck)).toBe(true);
    const resumed = await trainDetector(frames, cfg, { checkpointPath: ck });
    expect(resumed.resumedFrom).toBe(3);
    expect(resumed.steps).toBe(6);
    expect(resumed.losses.map((l) => l.total)).toEqual(straight.losses.slice(3).map((l) => l.total));
    for (const p of straight.params.list()) {
      expect(Array.from(resumed.params.get(p.name).data)).toEqual(Array.from(p.data));
    }
    // Other settings with the same checkpoint path start afresh instead of resuming someone else's run.
    const stale: string[] = [];
    const other = await trainDetector(
      frames,
      { ...cfg, train: { ...cfg.train, lr: cfg.train.lr / 2 } },
      { checkpointPath: ck, onStaleCheckpoint: (p) => stale.push(p) },
    );
    expect(stale).toEqual([ck]);
    expect(other.resumedFrom).toBeNull();
    expect(other.losses).toHaveLength(6);
    // Another thread count is the same run: it resumes.
    const ck2 = path.join(dir, 'c.safetensors');
    await trainDetector(frames, cfg, { checkpointPath: ck2, stopAtStep: 3 });
    const moreThreads = await trainDetector(
      frames,
      { ...cfg, train: { ...cfg.train, threads: 2 } },
      { checkpointPath: ck2, onStaleCheckpoint: (p) => stale.push(p) },
    );
    expect(moreThreads.resumedFrom).toBe(3);
    expect(stale).toEqual([ck]);
    // A fresh start would not have matched: the weights moved during the run.
    const fresh = await trainDetector(frames, { ...cfg, train: { ...cfg.train, steps: 3 } });
    expect(Array.from(fresh.params.get('stem.weight').data)).not.toEqual(
      Array.from(straight.params.get('stem.weight').data),
    );
  });
});
