// Intersection-over-union of oriented boxes: BEV IoU by exact convex polygon clipping, and 3D IoU
// as BEV intersection area × vertical overlap. Degenerate (zero-area) boxes have IoU 0.
import { type Box3, boxCornersBev } from './box.ts';
import { clipConvexPolygons, polygonArea } from './polygon.ts';

/** Area of the BEV intersection of two oriented boxes. */
export function bevIntersectionArea(a: Box3, b: Box3): number {
  if (a.length <= 0 || a.width <= 0 || b.length <= 0 || b.width <= 0) return 0;
  // Cheap reject on circumscribed circles before clipping.
  const ra = Math.hypot(a.length, a.width) / 2;
  const rb = Math.hypot(b.length, b.width) / 2;
  if (Math.hypot(a.cx - b.cx, a.cy - b.cy) >= ra + rb) return 0;
  const inter = clipConvexPolygons(boxCornersBev(a), boxCornersBev(b));
  return inter.length < 6 ? 0 : Math.abs(polygonArea(inter));
}

export function bevIou(a: Box3, b: Box3): number {
  const inter = bevIntersectionArea(a, b);
  if (inter <= 0) return 0;
  const union = a.length * a.width + b.length * b.width - inter;
  return union > 0 ? Math.min(1, inter / union) : 0;
}

export function iou3d(a: Box3, b: Box3): number {
  const zOverlap =
    Math.min(a.cz + a.height / 2, b.cz + b.height / 2) - Math.max(a.cz - a.height / 2, b.cz - b.height / 2);
  if (zOverlap <= 0) return 0;
  const inter = bevIntersectionArea(a, b) * zOverlap;
  if (inter <= 0) return 0;
  const union = a.length * a.width * a.height + b.length * b.width * b.height - inter;
  return union > 0 ? Math.min(1, inter / union) : 0;
}
