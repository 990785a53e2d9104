// Distance-to-collision: the ego box swept along its logged path stops at the first frozen object; the
// errors between detections and truth give the mean/p95 and the phantom-braking and missed-obstacle rates.
import { describe, expect, it } from 'vitest';
import { type BoxRow, boxesFromRows } from '../../../core/arrow/records.ts';
import type { Box3 } from '../../../core/geometry/box.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import {
  distanceToCollision,
  egoPath,
  evaluateDtc,
  rectanglesOverlap,
} from '../../../perception/eval/dtc.ts';
import { boxCornersBev } from '../../../core/geometry/box.ts';

/** Ego driving +x at `speed` m/s for `frames` frames at 10 Hz; optionally turning left at `yawRate`. */
function drive(frames: number, speed: number, yawRate = 0) {
  const poses = new Float64Array(16 * frames);
  const timesS = new Float64Array(frames);
  let x = 0;
  let y = 0;
  let yaw = 0;
  for (let f = 0; f < frames; f++) {
    timesS[f] = f / 10;
    poses.set(poseFromTranslationYaw(x, y, 0, yaw), 16 * f);
    x += Math.cos(yaw) * speed * 0.1;
    y += Math.sin(yaw) * speed * 0.1;
    yaw += yawRate * 0.1;
  }
  return { poses, timesS };
}

const box = (cx: number, cy: number, extra: Partial<Box3> = {}): Box3 => ({
  cx,
  cy,
  cz: 0.8,
  length: 4,
  width: 2,
  height: 1.5,
  yaw: 0,
  ...extra,
});

describe('distance to collision', () => {
  it('stops the ego box at the first object on its path, and runs the whole path past objects beside it', () => {
    const { poses, timesS } = drive(60, 10);
    const path = egoPath(poses, timesS, 0, 5);
    expect(path.s[path.s.length - 1]).toBeCloseTo(50, 6);
    // Object 30 m ahead, 4 m long: its rear at 28 m; the ego front (2.25 m ahead of the origin) reaches it after 25.75 m.
    expect(distanceToCollision([box(30, 0)], path)).toBeCloseTo(25.75, 1);
    expect(distanceToCollision([box(30, 4)], path)).toBeCloseTo(50, 6);
    expect(distanceToCollision([], path)).toBeCloseTo(50, 6);
    // The nearest of several wins; an object already overlapping the ego is not an obstacle.
    expect(distanceToCollision([box(30, 0), box(15, 0.5), box(0.5, 0)], path)).toBeCloseTo(10.75, 1);
  });

  it('follows a curved path in the vehicle frame of the scored frame', () => {
    // Turning left at 0.3 rad/s with 8 m/s: an object straight ahead at 25 m is missed, one on the arc is hit.
    const { poses, timesS } = drive(60, 8, 0.3);
    const path = egoPath(poses, timesS, 10, 5);
    expect(path.x[0]).toBeCloseTo(0, 10);
    expect(path.yaw[0]).toBeCloseTo(0, 10);
    const r = 8 / 0.3;
    const onArc = box(r * Math.sin(0.9), r * (1 - Math.cos(0.9)), { yaw: 0.9 });
    expect(distanceToCollision([onArc], path)).toBeLessThan(r * 0.9);
    expect(distanceToCollision([box(25, -3)], path)).toBeCloseTo(path.s[path.s.length - 1], 6);
  });

  it('separating-axis overlap of rotated rectangles', () => {
    const a = boxCornersBev(box(0, 0));
    expect(rectanglesOverlap(a, boxCornersBev(box(3.9, 0)))).toBe(true);
    expect(rectanglesOverlap(a, boxCornersBev(box(4.1, 0)))).toBe(false);
    // Rotated 45°, its corner reaches 2 + √2 ≈ 3.41 m: overlaps at 3.4, not at 3.45.
    expect(rectanglesOverlap(a, boxCornersBev(box(3.4, 0, { length: 2, yaw: Math.PI / 4 })))).toBe(true);
    expect(rectanglesOverlap(a, boxCornersBev(box(3.45, 0, { length: 2, yaw: Math.PI / 4 })))).toBe(false);
  });

  it('reports mean/p95 error and phantom/missed rates over frames with a full horizon', () => {
    const { poses, timesS } = drive(80, 10); // 7.9 s: frames 0..29 have 5 s of future
    // A parked car at world x = 70 on the path, in each frame's vehicle frame.
    const gtRows: BoxRow[] = [];
    const detRows: BoxRow[] = [];
    for (let f = 0; f < 80; f++) {
      const ex = f; // 1 m per frame
      gtRows.push({ frameIndex: f, ...box(70 - ex, 0) });
      // Frames 0-9: a phantom object 20 m ahead; frames 10-19: the real car missed; later: found.
      if (f < 10)
        detRows.push(
          { frameIndex: f, ...box(20, 0), score: 0.9 },
          { frameIndex: f, ...box(70 - ex, 0), score: 0.9 },
        );
      else if (f >= 20) detRows.push({ frameIndex: f, ...box(70 - ex, 0), score: 0.9 });
    }
    const r = evaluateDtc(boxesFromRows(detRows), boxesFromRows(gtRows), poses, timesS);
    expect(r.frames).toBe(30);
    expect(r.horizon_s).toBe(5);
    // Frames 0-9: truth reaches 70 − f − 4.25 > 50 → 50 m, detections stop at 15.75 → phantom.
    // Frames 10-19: truth stops at 65.75 − f (< 50 from f = 16), detections see nothing → 50: missed when 50 − (65.75 − f) > 2.
    const phantom = r.perFrame.filter((p) => p.det < p.gt - 2).map((p) => p.frame);
    const missed = r.perFrame.filter((p) => p.gt < p.det - 2).map((p) => p.frame);
    expect(phantom).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(missed).toEqual([18, 19]);
    expect(r.phantom_rate).toBeCloseTo(10 / 30, 10);
    expect(r.missed_rate).toBeCloseTo(2 / 30, 10);
    const errs = r.perFrame.map((p) => Math.abs(p.det - p.gt));
    expect(r.mean_abs_err_m).toBeCloseTo(errs.reduce((a, b) => a + b) / 30, 10);
    expect(r.p95_abs_err_m).toBeCloseTo(34.25, 1);
  });

  it('falls back to the frames it has when the log is shorter than the horizon', () => {
    const { poses, timesS } = drive(10, 10);
    const r = evaluateDtc(boxesFromRows([]), boxesFromRows([]), poses, timesS);
    expect(r.frames).toBe(9);
    expect(r.horizon_s).toBeCloseTo(0.9, 10);
    expect(r.mean_abs_err_m).toBe(0);
  });
});
