// Rotated-box NMS: overlapping boxes keep only the best-scored one, separate and barely touching ones stay.
import { describe, expect, it } from 'vitest';
import type { Box3 } from '../../../core/geometry/box.ts';
import { rotatedNms } from '../../../perception/detector/nms.ts';

const car = (cx: number, cy: number, yaw = 0): Box3 => ({
  cx,
  cy,
  cz: 0,
  length: 4,
  width: 2,
  height: 1.5,
  yaw,
});

describe('rotatedNms', () => {
  it('suppresses overlaps by BEV IoU, best score first', () => {
    const boxes = [car(0, 0), car(0.3, 0.1, 0.1), car(10, 0), car(0, 0, Math.PI / 2), car(10.2, 0)];
    const scores = [0.6, 0.9, 0.5, 0.4, 0.7];
    // IoU(0,1) ≈ 0.8; IoU(0,3) = 4/(16−4) = 0.33 (crossed); IoU(2,4) ≈ 0.95.
    expect(rotatedNms(boxes, scores, 0.5)).toEqual([1, 4, 3]);
    // A lower threshold also removes the crossed box.
    expect(rotatedNms(boxes, scores, 0.2)).toEqual([1, 4]);
    // A threshold of 1 keeps everything, ordered by score.
    expect(rotatedNms(boxes, scores, 1)).toEqual([1, 4, 0, 2, 3]);
  });

  it('keeps at most maxKeep and handles empty input', () => {
    const boxes = [car(0, 0), car(20, 0), car(40, 0)];
    expect(rotatedNms(boxes, [0.1, 0.3, 0.2], 0.1, 2)).toEqual([1, 2]);
    expect(rotatedNms([], [], 0.1)).toEqual([]);
  });
});
