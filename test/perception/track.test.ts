// Tracking: the Kalman filter recovers a constant velocity; objects crossing while the ego drives keep
// their identities through missed detections; forward/backward merging; missing poses fall back with a warning.
import { describe, expect, it } from 'vitest';
import { type BoxRow, boxesFromRows } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import {
  DEFAULT_KALMAN_NOISE,
  invert4,
  kalmanInit,
  kalmanPredict,
  kalmanUpdate,
  wrapHalfTurn,
} from '../../perception/kalman.ts';
import { mergePasses, trackBoxes } from '../../perception/track.ts';
import { mulberry32 } from './scene.ts';

describe('Kalman filter', () => {
  it('estimates the velocity of a target moving at constant speed from noisy positions', () => {
    const rnd = mulberry32(5);
    const kf = kalmanInit(0, 0, 0, 0.5, DEFAULT_KALMAN_NOISE);
    for (let k = 1; k <= 40; k++) {
      kalmanPredict(kf, 0.1, DEFAULT_KALMAN_NOISE);
      const t = k * 0.1;
      kalmanUpdate(
        kf,
        6 * t + (rnd() - 0.5) * 0.3,
        -2 * t + (rnd() - 0.5) * 0.3,
        0,
        0.5,
        DEFAULT_KALMAN_NOISE,
      );
    }
    expect(kf.x[4]).toBeCloseTo(6, 0);
    expect(kf.x[5]).toBeCloseTo(-2, 0);
    expect(kf.x[3]).toBeCloseTo(0.5, 5);
    // A heading measured a half turn away is the same box: the estimate must not move.
    kalmanUpdate(kf, kf.x[0], kf.x[1], 0, 0.5 + Math.PI, DEFAULT_KALMAN_NOISE);
    expect(kf.x[3]).toBeCloseTo(0.5, 5);
  });

  it('wraps headings to a half turn and inverts 4×4 matrices', () => {
    expect(wrapHalfTurn(Math.PI - 0.1)).toBeCloseTo(-0.1, 10);
    expect(wrapHalfTurn(-Math.PI / 2)).toBeCloseTo(Math.PI / 2, 10);
    const m = Float64Array.of(4, 1, 0, 0, 1, 3, 0.5, 0, 0, 0.5, 2, 0.1, 0, 0, 0.1, 1);
    const inv = invert4(m);
    for (let r = 0; r < 4; r++)
      for (let c = 0; c < 4; c++) {
        let s = 0;
        for (let k = 0; k < 4; k++) s += m[r * 4 + k] * inv[k * 4 + c];
        expect(s).toBeCloseTo(r === c ? 1 : 0, 10);
      }
  });
});

/** Two objects crossing in front of a driving ego and one parked car; detections in the vehicle frame. */
function crossingScene(drop: (obj: number, frame: number) => boolean) {
  const frames = 40;
  const rnd = mulberry32(11);
  const poses = new Float64Array(16 * frames);
  const rows: (BoxRow & { obj: number })[] = [];
  const objects = [
    { x: 30, y: -10, vx: 0, vy: 5, yaw: Math.PI / 2 },
    { x: 32, y: 10, vx: 0, vy: -5, yaw: -Math.PI / 2 },
    { x: 25, y: 6, vx: 0, vy: 0, yaw: 0 },
  ];
  for (let f = 0; f < frames; f++) {
    const t = f / 10;
    const ex = 4 * t; // ego drives along +x at 4 m/s
    poses.set(poseFromTranslationYaw(ex, 0, 0, 0), 16 * f);
    objects.forEach((o, k) => {
      if (drop(k, f)) return;
      rows.push({
        obj: k,
        frameIndex: f,
        cx: o.x + o.vx * t - ex + (rnd() - 0.5) * 0.2,
        cy: o.y + o.vy * t + (rnd() - 0.5) * 0.2,
        cz: 0.8,
        length: 4.4 + (rnd() - 0.5) * 0.3,
        width: 1.8,
        height: 1.5,
        yaw: o.yaw + (rnd() - 0.5) * 0.1,
        score: 0.9,
      });
    });
  }
  return { boxes: boxesFromRows(rows), obj: rows.map((r) => r.obj), frames, poses };
}

describe('tracking', () => {
  it('keeps three identities through a crossing and a 3-frame dropout, in the world frame', () => {
    const s = crossingScene((obj, f) => obj === 0 && f >= 10 && f < 13);
    for (const passes of ['forward', 'both'] as const) {
      const r = trackBoxes(s.boxes, { frameCount: s.frames, poses: s.poses }, { passes });
      expect(r.frame).toBe('world');
      expect(r.warnings).toEqual([]);
      expect(r.tracks).toBe(3);
      for (let k = 0; k < 3; k++) {
        const ids = new Set(s.obj.map((o, i) => (o === k ? r.boxes.trackId[i] : -1)).filter((t) => t >= 0));
        expect(ids.size).toBe(1);
      }
    }
  });

  it('associates by BEV IoU as well', () => {
    const s = crossingScene(() => false);
    const r = trackBoxes(s.boxes, { frameCount: s.frames, poses: s.poses }, { association: 'iou' });
    expect(r.tracks).toBe(3);
  });

  it('without poses tracks in the vehicle frame and says so', () => {
    const s = crossingScene(() => false);
    const r = trackBoxes(s.boxes, { frameCount: s.frames, poses: null });
    expect(r.frame).toBe('vehicle');
    expect(r.warnings.join(' ')).toMatch(/no poses: tracking in the vehicle frame/);
    // The parked car appears to move at the ego's speed; a constant-velocity track still follows it.
    const ids = new Set(s.obj.map((o, i) => (o === 2 ? r.boxes.trackId[i] : -1)).filter((t) => t >= 0));
    expect(ids.size).toBe(1);
    const bad = trackBoxes(s.boxes, { frameCount: s.frames, poses: s.poses.subarray(0, 32) });
    expect(bad.frame).toBe('vehicle');
  });

  it('merges forward and backward passes into consistent tracks', () => {
    // Rows 0..3 in frames 0, 1, 2, 3: the forward pass split the track, the backward pass bridged it.
    const four = boxesFromRows(
      [0, 1, 2, 3].map((f) => ({
        frameIndex: f,
        cx: f,
        cy: 0,
        cz: 0,
        length: 1,
        width: 1,
        height: 1,
        yaw: 0,
      })),
    );
    expect(
      mergePasses(
        [
          [0, 1],
          [2, 3],
        ],
        [[3, 2, 1], [0]],
        four,
      ).map((t) => t.slice().sort()),
    ).toEqual([[0, 1, 2, 3]]);
    // Rows in frames 0, 1, 0, 1: linking both passes would put two boxes in one frame; the forward
    // pass has fewer tracks there and wins.
    const two = boxesFromRows(
      [0, 1, 0, 1].map((f, i) => ({
        frameIndex: f,
        cx: i,
        cy: 0,
        cz: 0,
        length: 1,
        width: 1,
        height: 1,
        yaw: 0,
      })),
    );
    const m = mergePasses(
      [
        [0, 1],
        [2, 3],
      ],
      [[0, 3], [1], [2]],
      two,
    ).map((t) => t.slice().sort());
    expect(m.sort()).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it('never puts two boxes of one frame into a track, and merging never adds tracks', () => {
    const rnd = mulberry32(23);
    const rows: BoxRow[] = [];
    for (let f = 0; f < 30; f++)
      for (let k = 0; k < 25; k++)
        if (rnd() < 0.8)
          rows.push({
            frameIndex: f,
            cx: rnd() * 40,
            cy: rnd() * 40,
            cz: 0,
            length: 4,
            width: 2,
            height: 1.5,
            yaw: rnd() * 3,
          });
    const boxes = boxesFromRows(rows);
    const fwd = trackBoxes(boxes, { frameCount: 30, poses: null }, { passes: 'forward' });
    const both = trackBoxes(boxes, { frameCount: 30, poses: null });
    expect(both.tracks).toBeLessThanOrEqual(fwd.tracks);
    const seen = new Set<string>();
    for (let i = 0; i < rows.length; i++) {
      const key = `${both.boxes.trackId[i]}/${rows[i].frameIndex}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });
});
