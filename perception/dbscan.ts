// Exact DBSCAN (Ester et al., KDD 1996) on 3D points, grid-accelerated: points sorted into cubic cells of
// edge eps, so every neighbour within eps lies in a point's own cell or one of the 26 around it.
import type { XYZ } from '../core/arrow/records.ts';
import type { ClusterResult } from './cluster.ts';
import { packVoxelKey, VOXEL_XY_OFF, VOXEL_Z_OFF, VoxelTable } from './voxelTable.ts';

export interface DbscanConfig {
  /** Neighbourhood radius (Euclidean, 3D). */
  epsM: number;
  /** A point is core when at least this many points, itself included, lie within eps (scikit-learn's min_samples). */
  minPoints: number;
}

export const DEFAULT_DBSCAN_CONFIG: DbscanConfig = {
  // The classical baseline's settings (issue 18): eps 0.5 m, 5 points.
  epsM: 0.5,
  minPoints: 5,
};

function findRoot(parent: Int32Array, a: number): number {
  while (parent[a] !== a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

/**
 * DBSCAN over the points with `mask[i] = 1` (all finite points when mask is null). Core points within
 * eps of each other share a cluster; a border point (not core, within eps of a core point) joins the
 * cluster of the first core point found; the rest are noise (−1). Labels follow the first point of each
 * cluster in cell order. Cost: a hash insert per point, then per point a scan of the 27 cells around it.
 */
export function dbscan(pts: XYZ, mask: Uint8Array | null, config: Partial<DbscanConfig> = {}): ClusterResult {
  const cfg: DbscanConfig = { ...DEFAULT_DBSCAN_CONFIG, ...config };
  if (!(cfg.epsM > 0)) throw new Error(`dbscan: epsM must be positive (got ${cfg.epsM})`);
  const n = pts.x.length;
  const labels = new Int32Array(n).fill(-1);
  const inv = 1 / cfg.epsM;
  const maxXY = (VOXEL_XY_OFF - 2) * cfg.epsM;
  const maxZ = (VOXEL_Z_OFF - 2) * cfg.epsM;
  // Cell of every candidate point.
  const table = new VoxelTable();
  const cellOf = new Int32Array(n).fill(-1);
  const cellCoords: number[] = [];
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (mask && !mask[i]) continue;
    const x = pts.x[i];
    const y = pts.y[i];
    const z = pts.z[i];
    // NaN fails every comparison, so non-finite points are skipped here.
    if (!(Math.abs(x) < maxXY && Math.abs(y) < maxXY && Math.abs(z) < maxZ)) continue;
    const ix = Math.floor(x * inv);
    const iy = Math.floor(y * inv);
    const iz = Math.floor(z * inv);
    const before = table.size;
    const id = table.insert(packVoxelKey(ix, iy, iz));
    if (id === before) cellCoords.push(ix, iy, iz);
    cellOf[i] = id;
    m++;
  }
  const C = table.size;
  // Counting sort of the points by cell; coordinates copied contiguously for the distance scans.
  const start = new Int32Array(C + 1);
  for (let i = 0; i < n; i++) if (cellOf[i] >= 0) start[cellOf[i] + 1]++;
  for (let c = 0; c < C; c++) start[c + 1] += start[c];
  const fill = start.slice(0, C);
  const idx = new Int32Array(m);
  const sx = new Float64Array(m);
  const sy = new Float64Array(m);
  const sz = new Float64Array(m);
  const cellOfSorted = new Int32Array(m);
  for (let i = 0; i < n; i++) {
    const c = cellOf[i];
    if (c < 0) continue;
    const k = fill[c]++;
    idx[k] = i;
    sx[k] = pts.x[i];
    sy[k] = pts.y[i];
    sz[k] = pts.z[i];
    cellOfSorted[k] = c;
  }
  // The occupied cells among each cell's 27 (−1 where empty).
  const nbr = new Int32Array(27 * C);
  for (let c = 0; c < C; c++) {
    let k = 27 * c;
    const ix = cellCoords[3 * c];
    const iy = cellCoords[3 * c + 1];
    const iz = cellCoords[3 * c + 2];
    for (let dz = -1; dz <= 1; dz++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) nbr[k++] = table.find(packVoxelKey(ix + dx, iy + dy, iz + dz));
  }
  const eps2 = cfg.epsM * cfg.epsM;
  // Core points: count neighbours within eps, stopping at minPoints.
  const core = new Uint8Array(m);
  for (let p = 0; p < m; p++) {
    const px = sx[p];
    const py = sy[p];
    const pz = sz[p];
    const c = cellOfSorted[p];
    let count = 0;
    for (let k = 27 * c, end = k + 27; k < end && count < cfg.minPoints; k++) {
      const u = nbr[k];
      if (u < 0) continue;
      for (let q = start[u], qe = start[u + 1]; q < qe; q++) {
        const dx = sx[q] - px;
        const dy = sy[q] - py;
        const dz = sz[q] - pz;
        if (dx * dx + dy * dy + dz * dz <= eps2 && ++count >= cfg.minPoints) break;
      }
    }
    if (count >= cfg.minPoints) core[p] = 1;
  }
  // Core points within eps of each other are joined (each pair once: q > p).
  const parent = new Int32Array(m);
  for (let p = 0; p < m; p++) parent[p] = p;
  for (let p = 0; p < m; p++) {
    if (!core[p]) continue;
    const px = sx[p];
    const py = sy[p];
    const pz = sz[p];
    const c = cellOfSorted[p];
    // p's root stays the root (other roots are attached under it): most neighbours of a dense object
    // already point straight at it after a few unions, so one read skips them.
    const rp = findRoot(parent, p);
    for (let k = 27 * c, end = k + 27; k < end; k++) {
      const u = nbr[k];
      if (u < c) continue; // −1, or a cell whose points come before p's (their pairs were seen from there)
      for (let q = u === c ? p + 1 : start[u], qe = start[u + 1]; q < qe; q++) {
        // Already in p's set: nothing to join, no distance needed.
        if (!core[q] || parent[q] === rp) continue;
        const dx = sx[q] - px;
        const dy = sy[q] - py;
        const dz = sz[q] - pz;
        if (dx * dx + dy * dy + dz * dz > eps2) continue;
        const rb = findRoot(parent, q);
        if (rb !== rp) parent[rb] = rp;
        parent[q] = rp;
      }
    }
  }
  // Labels: clusters numbered by their first core point; border points take their first core neighbour's.
  const rootLabel = new Int32Array(m).fill(-1);
  let count = 0;
  for (let p = 0; p < m; p++) {
    if (!core[p]) continue;
    const r = findRoot(parent, p);
    if (rootLabel[r] < 0) rootLabel[r] = count++;
    labels[idx[p]] = rootLabel[r];
  }
  for (let p = 0; p < m; p++) {
    if (core[p]) continue;
    const px = sx[p];
    const py = sy[p];
    const pz = sz[p];
    const c = cellOfSorted[p];
    let found = -1;
    for (let k = 27 * c, end = k + 27; k < end && found < 0; k++) {
      const u = nbr[k];
      if (u < 0) continue;
      for (let q = start[u], qe = start[u + 1]; q < qe; q++) {
        if (!core[q]) continue;
        const dx = sx[q] - px;
        const dy = sy[q] - py;
        const dz = sz[q] - pz;
        if (dx * dx + dy * dy + dz * dz <= eps2) {
          found = q;
          break;
        }
      }
    }
    if (found >= 0) labels[idx[p]] = rootLabel[findRoot(parent, found)];
  }
  return { labels, count };
}
