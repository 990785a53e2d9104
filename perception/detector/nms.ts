// Greedy non-maximum suppression of oriented boxes by exact BEV IoU (core/geometry bevIou): the standard
// post-processing of LiDAR detectors (PointPillars, CenterPoint's rotated NMS).
import type { Box3 } from '../../core/geometry/box.ts';
import { bevIou } from '../../core/geometry/iou.ts';

/**
 * Indices of the boxes kept, best score first: a box is dropped when its BEV IoU with an already kept box
 * exceeds `iouThreshold`. At most `maxKeep` are kept. Cost O(n·kept) IoUs, most rejected by a radius test.
 */
export function rotatedNms(
  boxes: readonly Box3[],
  scores: ArrayLike<number>,
  iouThreshold: number,
  maxKeep = Infinity,
): number[] {
  const order = Array.from({ length: boxes.length }, (_, i) => i).sort((a, b) => scores[b] - scores[a]);
  const kept: number[] = [];
  for (const i of order) {
    if (kept.length >= maxKeep) break;
    const b = boxes[i];
    let suppressed = false;
    for (const j of kept) {
      if (bevIou(b, boxes[j]) > iouThreshold) {
        suppressed = true;
        break;
      }
    }
    if (!suppressed) kept.push(i);
  }
  return kept;
}
