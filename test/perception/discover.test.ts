// The discovery pipeline on one sweep and on a whole log: boxes for the objects of a generated drive, and
// bad input — empty sweeps, a few points, NaN points, missing poses — handled without throwing.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud, boxAt, boxesFromRows, type PointCloud } from '../../core/arrow/records.ts';
import { bevIou } from '../../core/geometry/iou.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { discoverSweep, sweepBuffers } from '../../perception/discover.ts';
import { discoverLog, resolvePipelineConfig } from '../../perception/discoverLog.ts';
import { castSequence, castSweep, type Sweep } from './scene.ts';
import { tmpDir } from './tmp.ts';

const cloud = (s: Sweep): PointCloud => {
  const p = allocatePointCloud(s.x.length);
  p.x.set(s.x);
  p.y.set(s.y);
  p.z.set(s.z);
  return p;
};

const sensor = {
  sensorZ: 1.8,
  rings: 32,
  azimuthSteps: 720,
  minElevationDeg: -24.9,
  maxElevationDeg: 2,
  maxRangeM: 60,
};

describe('discovery on a sweep', () => {
  it('finds the cars around the sensor', () => {
    const cars = [
      { cx: 10, cy: 4, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 1.2 },
      { cx: -12, cy: -6, cz: 0.8, length: 4.2, width: 1.9, height: 1.6, yaw: 1.2 },
      { cx: 6, cy: -9, cz: 0.8, length: 4.4, width: 1.8, height: 1.6, yaw: 0 },
    ];
    const s = castSweep({ ...sensor, terrain: () => 0, boxes: cars, noiseM: 0.02 });
    const r = discoverSweep(s);
    expect(r.stats.boxes).toBe(3);
    for (const c of cars) {
      const best = Math.max(
        ...Array.from({ length: r.boxes.cx.length }, (_, i) => bevIou(boxAt(r.boxes, i), c)),
      );
      expect(best).toBeGreaterThan(0.3);
    }
  });

  it('gives the same result with reused buffers, over sweeps of growing and shrinking size', () => {
    const cars = [
      { cx: 10, cy: 4, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 1.2 },
      { cx: 11, cy: 4.6, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 1.2 },
      { cx: -8, cy: 7, cz: 0.8, length: 4.4, width: 1.8, height: 1.6, yaw: 0.3 },
    ];
    const sweeps = [0.5, 1, 0.25, 1].map((k, i) =>
      castSweep({
        ...sensor,
        azimuthSteps: Math.round(720 * k),
        terrain: (x) => 0.02 * x,
        boxes: cars.map((c) => ({ ...c, cx: c.cx + i })),
        noiseM: 0.02,
      }),
    );
    const buffers = sweepBuffers();
    for (const s of sweeps) {
      const fresh = discoverSweep(s);
      const reused = discoverSweep(s, undefined, 0, buffers);
      expect(fresh.stats.boxes).toBeGreaterThan(0);
      expect(reused.stats).toEqual(fresh.stats);
      expect(Array.from(reused.boxes.cx)).toEqual(Array.from(fresh.boxes.cx));
      expect(Array.from(reused.boxes.yaw)).toEqual(Array.from(fresh.boxes.yaw));
      expect(Array.from(reused.isGround)).toEqual(Array.from(fresh.isGround));
      expect(Array.from(reused.clusterOf)).toEqual(Array.from(fresh.clusterOf));
    }
  });

  it('returns no boxes for an empty sweep, a sweep of a few points, and skips NaN points', () => {
    const empty = discoverSweep({ x: new Float32Array(0), y: new Float32Array(0), z: new Float32Array(0) });
    expect(empty.boxes.cx.length).toBe(0);
    expect(empty.stats.points).toBe(0);
    const few = discoverSweep({
      x: Float32Array.of(5, 5.1, 5.2),
      y: Float32Array.of(0, 0, 0),
      z: Float32Array.of(0, 1, 2),
    });
    expect(few.boxes.cx.length).toBe(0);
    const s = castSweep({
      ...sensor,
      terrain: () => 0,
      boxes: [{ cx: 10, cy: 0, cz: 0.8, length: 4, width: 2, height: 1.6, yaw: 0.6 }],
    });
    for (let i = 0; i < s.x.length; i += 50) s.y[i] = NaN;
    const r = discoverSweep(s);
    expect(r.stats.nonFinite).toBe(Math.ceil(s.x.length / 50));
    expect(r.boxes.cx.length).toBe(1);
    expect(Number.isFinite(r.boxes.cx[0])).toBe(true);
  });
});

describe('discovery on a log', () => {
  it('writes nothing from labels, tracks a drive, and warns when the log has no poses', async () => {
    const seq = castSequence({
      ...sensor,
      frames: 12,
      rateHz: 10,
      egoSpeed: 5,
      terrain: () => 0,
      noiseM: 0.02,
      objects: [
        { cx: 15, cy: 4, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 0, vx: 6, vy: 0 },
        { cx: 12, cy: -5, cz: 0.8, length: 4.4, width: 1.8, height: 1.6, yaw: 0.1, vx: 0, vy: 0 },
      ],
    });
    const dir = tmpDir();
    for (const [name, extra] of [
      ['posed', {}],
      ['unposed', { poses: 'none given: identity for every frame' }],
    ] as const) {
      const w = LogWriter.create(path.join(dir, name), { source: 'test', extra });
      seq.sweeps.forEach((s, f) => {
        const pose =
          name === 'posed'
            ? seq.poses.subarray(16 * f, 16 * f + 16)
            : Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
        w.appendFrame({ timestampNs: BigInt(f) * 100_000_000n, pose, points: cloud(s) });
      });
      // Labels that would be perfect detections: discovery must not read them.
      w.setLabels(boxesFromRows(seq.gt.map((g) => ({ ...g.box, frameIndex: g.frame, cx: g.box.cx + 100 }))));
      await w.close();
    }
    const cfg = resolvePipelineConfig({ refine: { minTrackFrames: 5 } });
    const posed = await LogReader.open(path.join(dir, 'posed'));
    const a = await discoverLog(posed, cfg);
    await posed.close();
    expect(a.summary.trackingFrame).toBe('world');
    expect(a.summary.warnings).toEqual([]);
    expect(Math.max(...Array.from(a.detections.cx).map(Math.abs))).toBeLessThan(60);
    expect(a.summary.refined.tracksKept).toBe(2);
    expect(a.summary.refined.movingTracks).toBe(1);
    const unposed = await LogReader.open(path.join(dir, 'unposed'));
    const b = await discoverLog(unposed, cfg);
    await unposed.close();
    expect(b.summary.trackingFrame).toBe('vehicle');
    expect(b.summary.warnings.join(' ')).toMatch(/no poses/);
    expect(b.detections.cx.length).toBe(a.detections.cx.length);
  });
});
