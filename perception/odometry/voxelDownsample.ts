// Voxel-grid downsampling of packed xyz points keeping the first point of each voxel, as KISS-ICP does
// (Vizzo et al. 2023, §III-B): a real measured point, not a centroid, so no smoothing across surfaces.
import { Int3Table } from './int3Table.ts';

/** Packed xyz (3 floats per point) of the first point seen in each occupied voxel of edge `voxelM`. */
export function voxelDownsample(
  xyz: Float32Array,
  count: number,
  voxelM: number,
  table = new Int3Table(count),
): Float32Array {
  table.clear();
  const inv = 1 / voxelM;
  const out = new Float32Array(3 * count);
  let m = 0;
  for (let i = 0; i < count; i++) {
    const x = xyz[3 * i];
    const y = xyz[3 * i + 1];
    const z = xyz[3 * i + 2];
    if (table.getOrInsert(Math.floor(x * inv), Math.floor(y * inv), Math.floor(z * inv), m) >= 0) continue;
    out[3 * m] = x;
    out[3 * m + 1] = y;
    out[3 * m + 2] = z;
    m++;
  }
  return out.slice(0, 3 * m);
}
