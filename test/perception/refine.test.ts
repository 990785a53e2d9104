// Refinement: partial views of a parked car, seen whole only when near, become full boxes at every frame
// (size from the nearest boxes, anchored at the visible corner); short tracks go, gaps fill, headings follow motion.
import { describe, expect, it } from 'vitest';
import { type BoxRow, boxAt, boxesFromRows, rowsByFrame } from '../../core/arrow/records.ts';
import { type Box3, boxCornersBev } from '../../core/geometry/box.ts';
import { bevIou } from '../../core/geometry/iou.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { wrapHalfTurn } from '../../perception/kalman.ts';
import { anchorAtVisibleCorner, refineTracks } from '../../perception/refine.ts';

const TRUE = { length: 4.5, width: 1.8, height: 1.6 };

/**
 * The part of a box a sensor at the origin sees from range r: the corner nearest the sensor is exact,
 * the box shrinks away from it (length and width to `share` of the truth).
 */
function partialView(truth: Box3, share: number): Box3 {
  const l = truth.length * share;
  const w = truth.width * share;
  const [cx, cy] = anchorAtVisibleCorner(truth.cx, truth.cy, truth.length, truth.width, truth.yaw, l, w);
  return { ...truth, cx, cy, length: l, width: w };
}

/** A parked car at world (30, 6) passed by an ego driving +x at 8 m/s; nearer views are more complete. */
function parkedCar(frames = 30, skip: number[] = []) {
  const poses = new Float64Array(16 * frames);
  const rows: BoxRow[] = [];
  const truth: Box3[] = [];
  for (let f = 0; f < frames; f++) {
    const ex = 0.8 * f;
    poses.set(poseFromTranslationYaw(ex, 0, 0, 0), 16 * f);
    const t: Box3 = { cx: 30 - ex, cy: 6, cz: 0.8, ...TRUE, yaw: 0.1 };
    truth.push(t);
    if (skip.includes(f)) continue;
    const r = Math.hypot(t.cx, t.cy);
    const share = r < 12 ? 1 : Math.max(0.3, 12 / r);
    rows.push({
      ...partialView(t, share),
      frameIndex: f,
      trackId: 7,
      score: 0.8,
      numPoints: Math.round(2000 / r),
    });
  }
  return { boxes: boxesFromRows(rows), poses, truth, frames };
}

describe('refinement', () => {
  it('gives every box of a track the size of its nearest views, anchored at the visible corner', () => {
    const s = parkedCar();
    const rawIou = s.truth.map((t, f) => bevIou(boxAt(s.boxes, f), t));
    const r = refineTracks(s.boxes, { frameCount: s.frames, poses: s.poses }, { minTrackFrames: 5 });
    expect(r.stats.tracksKept).toBe(1);
    expect(r.boxes.cx.length).toBe(s.frames);
    for (let i = 0; i < r.boxes.cx.length; i++) {
      const f = r.boxes.frameIndex[i];
      expect(r.boxes.length[i]).toBeCloseTo(4.5, 1);
      expect(r.boxes.width[i]).toBeCloseTo(1.8, 1);
      expect(bevIou(boxAt(r.boxes, i), s.truth[f])).toBeGreaterThan(0.9);
    }
    // The far views were poor before.
    expect(Math.min(...rawIou)).toBeLessThan(0.2);
  });

  it('drops tracks shorter than the minimum and fills short gaps by interpolation', () => {
    const s = parkedCar(30, [14, 15]);
    const short = boxesFromRows(
      [0, 1, 2].map((f) => ({
        frameIndex: f,
        trackId: 9,
        cx: -10,
        cy: 3,
        cz: 0,
        length: 1,
        width: 1,
        height: 1,
        yaw: 0,
      })),
    );
    const all = boxesFromRows([...rowsOf(s.boxes), ...rowsOf(short)]);
    const r = refineTracks(
      all,
      { frameCount: s.frames, poses: s.poses },
      { minTrackFrames: 5, maxGapFrames: 3 },
    );
    expect(r.stats.tracksIn).toBe(2);
    expect(r.stats.tracksKept).toBe(1);
    expect(r.stats.gapBoxes).toBe(2);
    const by = rowsByFrame(r.boxes);
    for (const f of [14, 15]) {
      const i = by.get(f)![0];
      expect(r.boxes.numPoints[i]).toBe(-1);
      expect(bevIou(boxAt(r.boxes, i), s.truth[f])).toBeGreaterThan(0.85);
    }
    const noFill = refineTracks(
      all,
      { frameCount: s.frames, poses: s.poses },
      { minTrackFrames: 5, fillGaps: false },
    );
    expect(noFill.boxes.cx.length).toBe(28);
  });

  it('turns a moving track seen end-on to its direction of motion', () => {
    // A car driving away along +y, seen from behind: the fitted rectangles call its back "length".
    const poses = new Float64Array(16 * 20);
    const rows: BoxRow[] = [];
    for (let f = 0; f < 20; f++) {
      poses.set(poseFromTranslationYaw(0, 0, 0, 0), 16 * f);
      rows.push({
        frameIndex: f,
        trackId: 1,
        cx: 0.3,
        cy: 8 + f,
        cz: 0.8,
        length: 1.8,
        width: 0.4,
        height: 1.5,
        yaw: 0.02,
      });
    }
    const r = refineTracks(boxesFromRows(rows), { frameCount: 20, poses }, { minTrackFrames: 5 });
    expect(r.stats.movingTracks).toBe(1);
    for (let i = 0; i < r.boxes.cx.length; i++) {
      expect(Math.abs(wrapHalfTurn(r.boxes.yaw[i] - Math.PI / 2))).toBeLessThan(0.05);
      expect(r.boxes.width[i]).toBeCloseTo(1.8, 5);
    }
  });

  it('drops walls and poles by their track shape and ranks moving tracks above static ones', () => {
    const poses = new Float64Array(16 * 20);
    const rows: BoxRow[] = [];
    for (let f = 0; f < 20; f++) {
      poses.set(poseFromTranslationYaw(f, 0, 0, 0), 16 * f);
      const at = (x: number, y: number, l: number, w: number, h: number, trackId: number, score = 0.8) =>
        rows.push({
          frameIndex: f,
          trackId,
          cx: x - f,
          cy: y,
          cz: h / 2,
          length: l,
          width: w,
          height: h,
          yaw: 0,
          score,
        });
      at(20, 8, 8, 0.15, 2.5, 1); // a wall
      at(25, -6, 0.3, 0.3, 3, 2); // a pole
      at(15, 6, 4.4, 1.8, 1.5, 3); // a parked car
      at(10 + 1.5 * f, -3, 4.4, 1.8, 1.5, 4, 0.7); // a car driving at 15 m/s (ego: 10 m/s)
      at(30, 5, 0.6, 0.6, 1.7, 5); // a pedestrian standing
    }
    const r = refineTracks(boxesFromRows(rows), { frameCount: 20, poses }, { minTrackFrames: 5 });
    expect(r.stats.tracksShapeFiltered).toBe(2);
    expect(r.stats.tracksKept).toBe(3);
    expect(r.stats.movingTracks).toBe(1);
    const scoreOf = (x: number) =>
      r.boxes.score[
        Array.from(r.boxes.cx).findIndex((cx, i) => r.boxes.frameIndex[i] === 0 && Math.abs(cx - x) < 1)
      ];
    // The moving car's raw scores were lower, yet it ranks first.
    expect(scoreOf(10)).toBeGreaterThan(scoreOf(15));
    expect(scoreOf(10)).toBeGreaterThan(scoreOf(30));
    const off = refineTracks(
      boxesFromRows(rows),
      { frameCount: 20, poses },
      { minTrackFrames: 5, maxAspectRatio: null, poleMaxSideM: null },
    );
    expect(off.stats.tracksKept).toBe(5);
  });

  it('keeps the visible corner in place when resizing', () => {
    const [cx, cy] = anchorAtVisibleCorner(10, 5, 2, 1, 0.3, 4.5, 1.8);
    const before = boxCornersBev({ cx: 10, cy: 5, cz: 0, length: 2, width: 1, height: 1, yaw: 0.3 });
    const after = boxCornersBev({ cx, cy, cz: 0, length: 4.5, width: 1.8, height: 1, yaw: 0.3 });
    const nearest = (k: Float64Array) =>
      [0, 1, 2, 3].reduce(
        (a, i) => (Math.hypot(k[2 * i], k[2 * i + 1]) < Math.hypot(k[2 * a], k[2 * a + 1]) ? i : a),
        0,
      );
    const i = nearest(before);
    expect(after[2 * i]).toBeCloseTo(before[2 * i], 10);
    expect(after[2 * i + 1]).toBeCloseTo(before[2 * i + 1], 10);
  });

  it('without poses refines in the vehicle frame and warns', () => {
    const s = parkedCar();
    const r = refineTracks(s.boxes, { frameCount: s.frames, poses: null }, { minTrackFrames: 5 });
    expect(r.warnings.join(' ')).toMatch(/no poses/);
    expect(r.boxes.cx.length).toBeGreaterThan(0);
  });
});

function rowsOf(b: ReturnType<typeof boxesFromRows>): BoxRow[] {
  return Array.from({ length: b.cx.length }, (_, i) => ({
    ...boxAt(b, i),
    frameIndex: b.frameIndex[i],
    trackId: b.trackId[i],
    score: b.score[i],
    numPoints: b.numPoints[i],
  }));
}
