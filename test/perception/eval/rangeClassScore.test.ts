// The real-data protocol: AP by 0–40 / 40–80 m at BEV IoU 0.3, recall per class group, a camera view
// that drops predictions outside it and ignores ground truth there, and pooling over sets.
import { describe, expect, it } from 'vitest';
import { boxesFromRows, type BoxRow } from '../../../core/arrow/records.ts';
import { classGroupOf } from '../../../perception/eval/classGroups.ts';
import { scoreRangeClass } from '../../../perception/eval/rangeClassScore.ts';

const box = (frameIndex: number, cx: number, cy: number, label = '', score = 1): BoxRow => ({
  frameIndex,
  cx,
  cy,
  cz: 0,
  length: 4,
  width: 2,
  height: 1.5,
  yaw: 0,
  label,
  score,
  numPoints: 50,
});

describe('range and class scoring', () => {
  it('maps each source’s labels to car / pedestrian / cyclist / other', () => {
    expect(['Car', 'Van', 'REGULAR_VEHICLE', 'car'].map(classGroupOf)).toEqual(['car', 'car', 'car', 'car']);
    expect(['Pedestrian', 'PEDESTRIAN', 'Person_sitting'].map(classGroupOf)).toEqual([
      'pedestrian',
      'pedestrian',
      'pedestrian',
    ]);
    expect(['Cyclist', 'BICYCLIST', 'MOTORCYCLIST'].map(classGroupOf)).toEqual([
      'cyclist',
      'cyclist',
      'cyclist',
    ]);
    expect(['Truck', 'BICYCLE', 'BOLLARD', 'Misc'].map(classGroupOf)).toEqual([
      'other',
      'other',
      'other',
      'other',
    ]);
  });

  it('scores AP per range bucket and recall per class group', () => {
    const gt = boxesFromRows([
      box(0, 10, 0, 'Car'),
      box(0, 20, 8, 'Pedestrian'),
      box(0, 50, 0, 'Cyclist'),
      box(0, 60, 10, 'Truck'),
    ]);
    // Hits on the car (best score) and the cyclist; one false positive at 30 m ranked second.
    const pred = boxesFromRows([box(0, 10.2, 0, '', 0.9), box(0, 30, -5, '', 0.8), box(0, 50, 0.1, '', 0.7)]);
    const s = scoreRangeClass([{ pred, gt, halfFovDeg: null }]);
    expect(s.gt).toEqual({ '0-40': 2, '40-80': 2, all: 4 });
    // 0–40 m: the car at rank 1 (P 1, R 0.5), then a false positive: AP 0.5.
    expect(s.ap['0-40']).toBeCloseTo(0.5, 9);
    expect(s.ap['40-80']).toBeCloseTo(0.5, 9);
    expect(s.recall).toEqual({
      car: { tp: 1, gt: 1 },
      pedestrian: { tp: 0, gt: 1 },
      cyclist: { tp: 1, gt: 1 },
      other: { tp: 0, gt: 1 },
    });
  });

  it('applies a camera view per set and pools sets into one curve', () => {
    const gtA = boxesFromRows([box(0, 10, 0, 'Car'), box(0, -10, 0, 'Car')]); // the second behind the car
    const predA = boxesFromRows([box(0, 10, 0, '', 0.5), box(0, 0, -20, '', 0.9)]); // a side FP outside ±45°
    const a = scoreRangeClass([{ pred: predA, gt: gtA, halfFovDeg: 45 }]);
    expect(a.gt['0-40']).toBe(1);
    expect(a.predictions).toBe(1);
    expect(a.ap['0-40']).toBeCloseTo(1, 9);
    // Without the view, the side box is a top-ranked false positive and the box behind is a miss.
    const open = scoreRangeClass([{ pred: predA, gt: gtA, halfFovDeg: null }]);
    expect(open.ap['0-40']).toBeCloseTo(0.25, 9);
    // Pooled with a set holding one missed car: recall halves, frames do not collide.
    const gtB = boxesFromRows([box(0, 15, 3, 'REGULAR_VEHICLE')]);
    const pooled = scoreRangeClass([
      { pred: predA, gt: gtA, halfFovDeg: 45 },
      { pred: boxesFromRows([]), gt: gtB, halfFovDeg: null },
    ]);
    expect(pooled.frames).toBe(2);
    expect(pooled.recall.car).toEqual({ tp: 1, gt: 2 });
    expect(pooled.ap['0-40']).toBeCloseTo(0.5, 9);
  });
});
