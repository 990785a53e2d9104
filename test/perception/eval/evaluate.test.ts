// The full report: AP and DTC of one sequence, and several sequences pooled (frames kept apart, one
// precision/recall curve, DTC over all scored frames).
import { describe, expect, it } from 'vitest';
import { type BoxRow, boxesFromRows } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { evaluateBoxes, evaluateSets, formatEvalReport } from '../../../perception/eval/evaluate.ts';

const car = (frameIndex: number, cx: number, score = 1): BoxRow => ({
  frameIndex,
  cx,
  cy: 0,
  cz: 0.8,
  length: 4,
  width: 2,
  height: 1.6,
  yaw: 0,
  score,
});

function straight(frames: number) {
  const poses = new Float64Array(16 * frames);
  for (let f = 0; f < frames; f++) poses.set(poseFromTranslationYaw(f, 0, 0, 0), 16 * f);
  return { poses, timesS: Float64Array.from({ length: frames }, (_, f) => f / 10) };
}

describe('evaluation report', () => {
  it('pools sequences: frames with equal indices stay apart, DTC frames add up', () => {
    const ego = straight(60);
    // Sequence A: the car found in every frame; sequence B: a car never found, and a phantom.
    const gtA = boxesFromRows(Array.from({ length: 60 }, (_, f) => car(f, 40 - f)));
    const predA = boxesFromRows(Array.from({ length: 60 }, (_, f) => car(f, 40 - f, 0.9)));
    const gtB = boxesFromRows(Array.from({ length: 60 }, (_, f) => car(f, 20)));
    const predB = boxesFromRows(Array.from({ length: 60 }, (_, f) => car(f, -20, 0.8)));
    const a = evaluateBoxes(predA, gtA, ego);
    expect(a.ap.bev['0.3'].all).toBe(1);
    expect(a.dtc.frames).toBe(10); // frames 0–9 have 5 s of logged future
    expect(a.dtc.mean_abs_err_m).toBeCloseTo(0, 6);
    const pooled = evaluateSets([
      { pred: predA, gt: gtA, ego },
      { pred: predB, gt: gtB, ego },
    ]);
    expect(pooled.counts.frames).toBe(120);
    expect(pooled.counts.gt_boxes).toBe(120);
    // Half the truth found, found first: AP 0.5.
    expect(pooled.ap.bev['0.3'].all).toBeCloseTo(0.5, 10);
    expect(pooled.dtc.frames).toBe(20);
    // In B the missed car 20 m ahead stops the truth at 15.75 m while the detections run 50 m.
    expect(pooled.dtc.missed_rate).toBeCloseTo(0.5, 10);
    expect(pooled.dtc.phantom_rate).toBe(0);
    expect(formatEvalReport(pooled)).toMatch(/missed 50\.0%/);
    // Human-readable AP is in percent (the report object holds the fraction).
    expect(formatEvalReport(pooled)).toMatch(/^AP %.*\nBEV IoU 0\.3 +(.{8})*? +50\.0\n/m);
  });

  it('without ego motion reports DTC as unavailable', () => {
    const r = evaluateBoxes(boxesFromRows([car(0, 10)]), boxesFromRows([car(0, 10)]), null);
    expect(r.dtc.mean_abs_err_m).toBeNull();
    expect(r.dtc.note).toMatch(/no ego poses/);
  });
});
