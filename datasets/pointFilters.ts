// Point filters readers apply before import: points exactly at the sensor origin are padding or
// "no return" markers, not measurements (a zero range also breaks range-based metrics such as AbsRel).
import { truncatePointCloud, type PointCloud } from '../core/arrow/records.ts';

/** Drop points at exactly (0, 0, 0), compacting in place; returns the cloud and how many went. */
export function dropOriginPoints(p: PointCloud): { points: PointCloud; dropped: number } {
  const { x, y, z, intensity, ring, tOffset } = p;
  const n = x.length;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (x[i] === 0 && y[i] === 0 && z[i] === 0) continue;
    if (k !== i) {
      x[k] = x[i];
      y[k] = y[i];
      z[k] = z[i];
      intensity[k] = intensity[i];
      ring[k] = ring[i];
      tOffset[k] = tOffset[i];
    }
    k++;
  }
  return { points: k === n ? p : truncatePointCloud(p, k), dropped: n - k };
}
