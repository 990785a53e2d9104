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
  // Circumscribed radii: boxes whose circles do not meet cannot overlap (most pairs), no clipping needed.
  const radius = boxes.map((b) => Math.sqrt(b.length * b.length + b.width * b.width) / 2);
  const kept: number[] = [];
  for (const i of order) {
    if (kept.length >= maxKeep) break;
    const b = boxes[i];
    let suppressed = false;
    for (const j of kept) {
      const o = boxes[j];
      const dx = b.cx - o.cx;
      const dy = b.cy - o.cy;
      const reach = radius[i] + radius[j];
      if (dx * dx + dy * dy >= reach * reach) continue;
      if (bevIou(b, o) > iouThreshold) {
        suppressed = true;
        break;
      }
    }
    if (!suppressed) kept.push(i);
  }
  return kept;
}
