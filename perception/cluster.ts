// DBSCAN-like clustering of non-ground points in linear time: points hashed into voxels, a voxel is
// "core" when its 3×3×3 neighbourhood holds ≥ minPoints points, core voxels joined by union-find.
import type { XYZ } from '../core/arrow/records.ts';
import {
  packVoxelKey as packKey,
  VOXEL_XY_OFF as XY_OFF,
  VOXEL_Z_OFF as Z_OFF,
  VoxelTable,
} from './voxelTable.ts';
import type { ConfigRanges } from '../core/configSchema.ts';

export interface ClusterConfig {
  /** Only points within this BEV distance of the vehicle origin are clustered (OYSTER's near range). */
  rangeM: number;
  /** Voxel edge in x and y: points in adjacent voxels are linked (DBSCAN's eps, roughly). */
  voxelM: number;
  /** Voxel edge in z; larger than voxelM so sparse far objects (0.3–0.4 m between rings) stay whole. */
  voxelZM: number;
  /** A voxel is core when its 27-voxel neighbourhood holds at least this many points (DBSCAN min samples). */
  minPoints: number;
  /**
   * Range-scaled density: beyond this BEV range a surface returns fewer points (∝ 1/r², both beam
   * spacings grow with r), so the core threshold falls as minPoints·(minPointsRefRangeM / r)², never below
   * minPointsFloor. 0: one threshold at every range.
   */
  minPointsRefRangeM: number;
  /** The lowest core threshold the range scaling reaches. */
  minPointsFloor: number;
  /** Points of the ego vehicle itself are skipped: |x| box [egoMinX, egoMaxX] × |y| ≤ egoHalfWidthM. */
  egoMinXM: number;
  egoMaxXM: number;
  egoHalfWidthM: number;
}

export const DEFAULT_CLUSTER_CONFIG: ClusterConfig = {
  rangeM: 40,
  // 0.3 m: 0.4 m scored a little higher on the sparse synthetic town (raw AP@0.3 0–30 m 36 → 42, refined
  // 89 → 90) but merged neighbours in the dense real AV2 sweeps (3D AP@0.3 0–30 m 18 → 8).
  voxelM: 0.3,
  voxelZM: 0.5,
  // 6 (was 10): chosen over data sets by cross-validation on synthetic VLP-32C / HDL-64E / OS1-128 sweeps
  // (tools/report/discoveryCv.ts, docs/discovery.md); keeps small and far objects (pedestrians, cyclists).
  minPoints: 6,
  // Range scaling changed nothing on those sweeps beyond the lower minimum: off.
  minPointsRefRangeM: 0,
  minPointsFloor: 4,
  egoMinXM: -2.5,
  egoMaxXM: 2.5,
  egoHalfWidthM: 1.2,
};

/** Allowed values of each field (core/configSchema.ts checks user overrides against them). */
export const CLUSTER_CONFIG_RANGES: ConfigRanges<ClusterConfig> = {
  rangeM: { above: 0 },
  voxelM: { above: 0 },
  voxelZM: { above: 0 },
  minPoints: { integer: true, min: 1 },
  minPointsRefRangeM: { min: 0 },
  minPointsFloor: { min: 1 },
  egoHalfWidthM: { min: 0 },
};

export interface ClusterResult {
  /** Cluster index per point, −1 for noise, ground, out of range or non-finite. */
  labels: Int32Array;
  count: number;
}

function findRoot(parent: Int32Array, a: number): number {
  while (parent[a] !== a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

/**
 * Cluster the points with `mask[i] = 1` (all finite points when mask is null). Cost is linear in the
 * number of points: one hash insert per point and 27 lookups per occupied voxel.
 */
export function clusterPoints(
  pts: XYZ,
  mask: Uint8Array | null,
  config: Partial<ClusterConfig> = {},
): ClusterResult {
  const cfg: ClusterConfig = { ...DEFAULT_CLUSTER_CONFIG, ...config };
  const n = pts.x.length;
  const labels = new Int32Array(n).fill(-1);
  const r2 = cfg.rangeM * cfg.rangeM;
  const inv = 1 / cfg.voxelM;
  const invZ = 1 / cfg.voxelZM;
  const maxXY = (XY_OFF - 2) * cfg.voxelM;
  const maxZ = (Z_OFF - 2) * cfg.voxelZM;
  let candidates = 0;
  for (let i = 0; i < n; i++) if (!mask || mask[i]) candidates++;
  const table = new VoxelTable();
  const voxelOf = new Int32Array(n).fill(-1);
  // At most one voxel per candidate point, so these never need to grow.
  const counts = new Int32Array(Math.max(1, candidates));
  const coords = new Int32Array(3 * Math.max(1, candidates));
  let lastKey = 0;
  let lastId = -1;
  for (let i = 0; i < n; i++) {
    if (mask && !mask[i]) continue;
    const x = pts.x[i];
    const y = pts.y[i];
    const z = pts.z[i];
    const d2 = x * x + y * y;
    // NaN fails `d2 <= r2`; z is checked explicitly.
    if (!(d2 <= r2) || !(z > -maxZ && z < maxZ) || Math.abs(x) > maxXY || Math.abs(y) > maxXY) continue;
    if (x >= cfg.egoMinXM && x <= cfg.egoMaxXM && Math.abs(y) <= cfg.egoHalfWidthM) continue;
    const ix = Math.floor(x * inv);
    const iy = Math.floor(y * inv);
    const iz = Math.floor(z * invZ);
    const key = packKey(ix, iy, iz);
    // Consecutive points of a scan line often share a voxel: skip the lookup then.
    if (lastId >= 0 && key === lastKey) {
      counts[lastId]++;
      voxelOf[i] = lastId;
      continue;
    }
    const before = table.size;
    const id = table.insert(key);
    lastKey = key;
    lastId = id;
    if (id === before) {
      coords[3 * id] = ix;
      coords[3 * id + 1] = iy;
      coords[3 * id + 2] = iz;
    }
    counts[id]++;
    voxelOf[i] = id;
  }
  const V = table.size;
  const ref2 = cfg.minPointsRefRangeM * cfg.minPointsRefRangeM;
  const minPointsAt = (ix: number, iy: number): number => {
    if (ref2 === 0) return cfg.minPoints;
    const x = (ix + 0.5) * cfg.voxelM;
    const y = (iy + 0.5) * cfg.voxelM;
    const d2 = x * x + y * y;
    return d2 <= ref2 ? cfg.minPoints : Math.max(cfg.minPointsFloor, (cfg.minPoints * ref2) / d2);
  };
  // Neighbour ids per voxel (−1 where empty), found once and used twice.
  const nbr = new Int32Array(27 * V);
  const core = new Uint8Array(V);
  for (let v = 0; v < V; v++) {
    const ix = coords[3 * v];
    const iy = coords[3 * v + 1];
    const iz = coords[3 * v + 2];
    let total = 0;
    let k = 27 * v;
    for (let dz = -1; dz <= 1; dz++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const id = table.find(packKey(ix + dx, iy + dy, iz + dz));
          nbr[k++] = id;
          if (id >= 0) total += counts[id];
        }
      }
    }
    if (total >= minPointsAt(ix, iy)) core[v] = 1;
  }
  const parent = new Int32Array(V);
  for (let v = 0; v < V; v++) parent[v] = v;
  for (let v = 0; v < V; v++) {
    if (!core[v]) continue;
    for (let k = 27 * v, end = k + 27; k < end; k++) {
      const u = nbr[k];
      if (u > v && core[u]) {
        const ra = findRoot(parent, v);
        const rb = findRoot(parent, u);
        if (ra !== rb) parent[rb] = ra;
      }
    }
  }
  // Border voxels (not core, next to a core voxel) join the first core neighbour's cluster, as in DBSCAN.
  const voxelLabel = new Int32Array(V).fill(-1);
  const rootLabel = new Int32Array(V).fill(-1);
  let count = 0;
  for (let v = 0; v < V; v++) {
    let anchor = -1;
    if (core[v]) anchor = v;
    else {
      for (let k = 27 * v, end = k + 27; k < end; k++) {
        const u = nbr[k];
        if (u >= 0 && core[u]) {
          anchor = u;
          break;
        }
      }
    }
    if (anchor < 0) continue;
    const root = findRoot(parent, anchor);
    if (rootLabel[root] < 0) rootLabel[root] = count++;
    voxelLabel[v] = rootLabel[root];
  }
  for (let i = 0; i < n; i++) {
    const v = voxelOf[i];
    if (v >= 0) labels[i] = voxelLabel[v];
  }
  return { labels, count };
}
