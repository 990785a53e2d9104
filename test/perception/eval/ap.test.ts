// AP by range: hand-computed precision/recall curves, IoU thresholds (BEV and 3D), range buckets by the
// matched ground truth, ignore boxes for ground truth without points, and the best-F1 operating point.
import { describe, expect, it } from 'vitest';
import { type BoxRow, boxesFromRows } from '../../../core/arrow/records.ts';
import { averagePrecision, evaluateAp } from '../../../perception/eval/ap.ts';

const car = (frameIndex: number, cx: number, cy: number, extra: Partial<BoxRow> = {}): BoxRow => ({
  frameIndex,
  cx,
  cy,
  cz: 0.8,
  length: 4,
  width: 2,
  height: 1.6,
  yaw: 0,
  ...extra,
});

describe('average precision', () => {
  it('integrates the interpolated precision envelope (all points)', () => {
    // Scores 0.9 TP, 0.8 FP, 0.7 TP with 3 ground truth: P/R points (1, 1/3), (1/2, 1/3), (2/3, 2/3).
    const r = averagePrecision(
      [
        { score: 0.9, tp: true },
        { score: 0.8, tp: false },
        { score: 0.7, tp: true },
      ],
      3,
    );
    expect(r.ap).toBeCloseTo(1 / 3 + (1 / 3) * (2 / 3), 10);
    // Best F1: at the last point, P = R = 2/3.
    expect(r.best.f1).toBeCloseTo(2 / 3, 10);
    expect(r.best.scoreThreshold).toBe(0.7);
    expect(averagePrecision([], 0).ap).toBeNull();
    expect(averagePrecision([{ score: 1, tp: false }], 2).ap).toBe(0);
  });

  it('scores perfect predictions 1 and misses 0, per range bucket', () => {
    const gt = boxesFromRows([car(0, 10, 0), car(0, 40, 5), car(1, 60, -5), car(1, 20, 3)]);
    const perfect = evaluateAp(
      boxesFromRows([car(0, 10, 0), car(0, 40, 5), car(1, 60, -5), car(1, 20, 3)]),
      gt,
    );
    for (const kind of ['bev', '3d'] as const)
      for (const table of Object.values(perfect.ap[kind]))
        for (const e of Object.values(table)) expect(e.ap).toBe(1);
    const none = evaluateAp(boxesFromRows([car(0, -10, 20)]), gt);
    expect(none.ap.bev['0.3'].all.ap).toBe(0);
    expect(none.ap.bev['0.3']['30-50'].gt).toBe(1);
  });

  it('applies each IoU threshold: a 1 m shift passes BEV 0.3 but not 0.5; a lifted box fails 3D', () => {
    const gt = boxesFromRows([car(0, 10, 0)]);
    // Shifted 1.5 m along its length: BEV IoU = 2.5·2 / (8 + 8 − 5) = 0.4545.
    const shifted = evaluateAp(boxesFromRows([car(0, 11.5, 0)]), gt);
    expect(shifted.ap.bev['0.3'].all.ap).toBe(1);
    expect(shifted.ap.bev['0.5'].all.ap).toBe(0);
    // Same footprint 1.2 m higher: vertical overlap 0.4 of 1.6 → 3D IoU 0.143.
    const lifted = evaluateAp(boxesFromRows([car(0, 10, 0, { cz: 2.0 })]), gt);
    expect(lifted.ap.bev['0.5'].all.ap).toBe(1);
    expect(lifted.ap['3d']['0.3'].all.ap).toBe(0);
  });

  it('counts a true positive in its ground truth bucket and a false positive in its own', () => {
    // GT at 31 m, prediction centre at 29.5 m overlapping it; a stray prediction at 45 m.
    const gt = boxesFromRows([car(0, 31, 0)]);
    const pred = boxesFromRows([car(0, 29.5, 0, { score: 0.9 }), car(0, 45, 0, { score: 0.5 })]);
    const r = evaluateAp(pred, gt);
    expect(r.ap.bev['0.3']['30-50']).toMatchObject({ gt: 1, tp: 1, predictions: 2 });
    expect(r.ap.bev['0.3']['0-30']).toMatchObject({ gt: 0, predictions: 0, ap: null });
    expect(r.ap.bev['0.3']['30-50'].ap).toBe(1);
    // Everything beyond 80 m is out of scope.
    const far = evaluateAp(boxesFromRows([car(0, 90, 0)]), boxesFromRows([car(0, 95, 0)]));
    expect(far.gtBoxes).toBe(0);
    expect(far.predBoxes).toBe(0);
  });

  it('ignores ground truth without LiDAR points: neither missed nor a false positive when detected', () => {
    const gt = boxesFromRows([
      car(0, 10, 0, { numPoints: 120 }),
      car(0, 20, 5, { numPoints: 0 }),
      car(0, 25, -5),
    ]);
    const pred = boxesFromRows([
      car(0, 10, 0, { score: 0.9 }),
      car(0, 20, 5, { score: 0.8 }),
      car(0, 25, -5, { score: 0.7 }),
    ]);
    const r = evaluateAp(pred, gt);
    expect(r.gtBoxes).toBe(2); // the unknown count (−1) is kept
    expect(r.gtIgnored).toBe(1);
    expect(r.ap.bev['0.3'].all).toMatchObject({ ap: 1, predictions: 2, tp: 2 });
    // With the ignore rule off the empty box counts.
    expect(evaluateAp(pred, gt, { minGtPoints: 0 }).gtBoxes).toBe(3);
    // Classes left out by the caller behave the same way.
    const ign = evaluateAp(pred, gt, {}, Uint8Array.of(0, 0, 1));
    expect(ign.gtBoxes).toBe(1);
    expect(ign.ap.bev['0.3'].all.predictions).toBe(1);
  });

  it('limits scoring to a field of view when asked', () => {
    const gt = boxesFromRows([car(0, 20, 0), car(0, -20, 0)]);
    const pred = boxesFromRows([car(0, 20, 0), car(0, 0, -20)]);
    const r = evaluateAp(pred, gt, { halfFovDeg: 45 });
    expect(r.gtBoxes).toBe(1);
    expect(r.ap.bev['0.3'].all.ap).toBe(1);
  });
});
