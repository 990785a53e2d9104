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
 * Union-find over the core voxels: each pair of adjacent core voxels joins one tree. Each pair is
 * visited once, from the voxel whose neighbour lies in the forward half (slots 14–26 of its 27, after
 * the centre 13 in dz, dy, dx order).
 */
function joinCoreNeighbours(nbr: Int32Array, core: Uint8Array, V: number, parent: Int32Array): void {
  for (let v = 0; v < V; v++) parent[v] = v;
  for (let v = 0; v < V; v++) {
    if (!core[v]) continue;
    // v's root stays the root: each union below hangs the other tree under it.
    const ra = findRoot(parent, v);
    for (let k = 27 * v + 14, end = 27 * v + 27; k < end; k++) {
      const u = nbr[k];
      if (u >= 0 && core[u]) {
        const rb = findRoot(parent, u);
        if (ra !== rb) parent[rb] = ra;
      }
    }
  }
}

/** Largest dense voxel grid (cells) clustering uses; a wider spread of points falls back to the hash table. */
const MAX_DENSE_CELLS = 1 << 23;
/** The dense grid, kept between calls (−1 everywhere between calls: only the cells used are reset). */
let dense = new Int32Array(0);

/**
 * Working arrays kept between calls and grown when a sweep needs more: a fresh half-megabyte typed
 * array per call costs page faults and collection work on every sweep.
 */
const work = {
  voxelOf: new Int32Array(0),
  counts: new Int32Array(0),
  coords: new Int32Array(0),
  nbr: new Int32Array(0),
  core: new Uint8Array(0),
  parent: new Int32Array(0),
  voxelLabel: new Int32Array(0),
  rootLabel: new Int32Array(0),
};

function atLeastInt32(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  return a.length >= n ? a : new Int32Array(Math.ceil(n * 1.25));
}

/** Pass 1's result: clustered points and the extent of their voxels (meaningless when none). */
interface CandidateExtent {
  candidates: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  z0: number;
  z1: number;
}

/**
 * Pass 1 of clusterPoints: write in `voxelOf` the packed voxel key (packVoxelKey, never −1) of the points
 * in the mask, in range and off the ego vehicle, −1 for the others, and find the extent of their voxels.
 * A function of its own: inside clusterPoints the loop's code, compiled on the stack, ran twice as slow
 * after sweeps of another size.
 */
function markCandidates(
  pts: XYZ,
  mask: Uint8Array | null,
  cfg: ClusterConfig,
  voxelOf: Int32Array,
): CandidateExtent {
  const n = pts.x.length;
  const px = pts.x;
  const py = pts.y;
  const pz = pts.z;
  const r2 = cfg.rangeM * cfg.rangeM;
  const inv = 1 / cfg.voxelM;
  const invZ = 1 / cfg.voxelZM;
  const maxXY = (XY_OFF - 2) * cfg.voxelM;
  const maxZ = (Z_OFF - 2) * cfg.voxelZM;
  const { egoMinXM, egoMaxXM, egoHalfWidthM } = cfg;
  voxelOf.fill(-1, 0, n);
  let candidates = 0;
  // Integer sentinels and `Math.floor(…) | 0` (in range by the checks, never −0) keep the voxel
  // coordinates small integers in the optimised code.
  let x0 = 0x3fffffff;
  let x1 = -0x3fffffff;
  let y0 = 0x3fffffff;
  let y1 = -0x3fffffff;
  let z0 = 0x3fffffff;
  let z1 = -0x3fffffff;
  for (let i = 0; i < n; i++) {
    if (mask && !mask[i]) continue;
    const x = px[i];
    const y = py[i];
    const z = pz[i];
    const d2 = x * x + y * y;
    // NaN fails `d2 <= r2`; z is checked explicitly.
    if (!(d2 <= r2) || !(z > -maxZ && z < maxZ) || Math.abs(x) > maxXY || Math.abs(y) > maxXY) continue;
    if (x >= egoMinXM && x <= egoMaxXM && Math.abs(y) <= egoHalfWidthM) continue;
    candidates++;
    const ix = Math.floor(x * inv) | 0;
    const iy = Math.floor(y * inv) | 0;
    const iz = Math.floor(z * invZ) | 0;
    // Pass 2 reads the voxel back from the key instead of the point (its id replaces the key there).
    voxelOf[i] = packKey(ix, iy, iz);
    if (ix < x0) x0 = ix;
    if (ix > x1) x1 = ix;
    if (iy < y0) y0 = iy;
    if (iy > y1) y1 = iy;
    if (iz < z0) z0 = iz;
    if (iz > z1) z1 = iz;
  }
  return { candidates, x0, x1, y0, y1, z0, z1 };
}

/** Where pass 2 finds a voxel's id: the dense grid, with its origin and strides (x stride 1). */
interface DenseIndex {
  grid: Int32Array;
  ox: number;
  oy: number;
  oz: number;
  sy: number;
  sz: number;
}

/**
 * Voxel ids in order of first appearance for the points with a voxel key in `voxelOf` (written in its
 * place), their voxel coordinates in `coords` and point counts at id + 1 in `counts`, from the dense grid
 * or else the hash table. Returns the number of voxels. A function of its own: inside clusterPoints the loop's
 * code, compiled on the stack, deoptimised over and over once sweeps of another size had run.
 */
function indexVoxels(
  n: number,
  voxelOf: Int32Array,
  counts: Int32Array,
  coords: Int32Array,
  dense: DenseIndex | null,
  table: VoxelTable | null,
): number {
  let V = 0;
  let lastKey = 0;
  let lastId = -1;
  for (let i = 0; i < n; i++) {
    const key = voxelOf[i];
    if (key === -1) continue;
    // Consecutive points of a scan line often share a voxel: skip the lookup then.
    if (lastId >= 0 && key === lastKey) {
      counts[lastId + 1]++;
      voxelOf[i] = lastId;
      continue;
    }
    const ix = (key & 0xfff) - XY_OFF;
    const iy = ((key >>> 12) & 0xfff) - XY_OFF;
    const iz = (key >>> 24) - Z_OFF;
    let id: number;
    let fresh: boolean;
    if (dense) {
      const cell = (iz - dense.oz) * dense.sz + (iy - dense.oy) * dense.sy + (ix - dense.ox);
      id = dense.grid[cell];
      fresh = id < 0;
      if (fresh) id = dense.grid[cell] = V++;
    } else {
      const before = table!.size;
      id = table!.insert(key);
      fresh = id === before;
    }
    lastKey = key;
    lastId = id;
    if (fresh) {
      coords[3 * id] = ix;
      coords[3 * id + 1] = iy;
      coords[3 * id + 2] = iz;
      counts[id + 1] = 0;
    }
    counts[id + 1]++;
    voxelOf[i] = id;
  }
  return dense ? V : table!.size;
}

/**
 * Cluster the points with `mask[i] = 1` (all finite points when mask is null). Cost is linear in the
 * number of points: one voxel lookup per point and 27 per occupied voxel. The voxels are indexed in a
 * dense grid over the points' extent (array indexing, no hashing) when it has at most MAX_DENSE_CELLS
 * cells, else in a hash table (`index: 'hash'` forces that); both give the same ids, so the same result.
 * The labels go to `out` (one slot per point) when given, else to a new array.
 */
export function clusterPoints(
  pts: XYZ,
  mask: Uint8Array | null,
  config: Partial<ClusterConfig> = {},
  index: 'auto' | 'hash' = 'auto',
  out?: Int32Array,
): ClusterResult {
  const cfg: ClusterConfig = { ...DEFAULT_CLUSTER_CONFIG, ...config };
  const n = pts.x.length;
  if (out && out.length !== n) throw new RangeError(`clusterPoints: the label array must hold ${n} points`);
  // Every slot is written by the last pass.
  const labels = out ?? new Int32Array(n);
  // Pass 1: which points are clustered, and the extent of their voxels.
  const voxelOf = (work.voxelOf = atLeastInt32(work.voxelOf, n));
  const { candidates, x0, x1, y0, y1, z0, z1 } = markCandidates(pts, mask, cfg, voxelOf);
  // Sized for one voxel per candidate point, the most there can be. Points per voxel at id + 1;
  // counts[0] = 0 stands for "no voxel", so neighbour sums need no branch.
  const counts = (work.counts = atLeastInt32(work.counts, candidates + 1));
  counts[0] = 0;
  const coords = (work.coords = atLeastInt32(work.coords, 3 * Math.max(1, candidates)));
  // The dense grid spans the extent with one empty cell around it, so every 27-neighbour lookup is in range.
  const nx = candidates > 0 ? x1 - x0 + 3 : 0;
  const ny = candidates > 0 ? y1 - y0 + 3 : 0;
  const nz = candidates > 0 ? z1 - z0 + 3 : 0;
  const useDense = index === 'auto' && candidates > 0 && nx * ny * nz <= MAX_DENSE_CELLS;
  const table = useDense ? null : new VoxelTable();
  const ox = x0 - 1;
  const oy = y0 - 1;
  const oz = z0 - 1;
  const sy = nx;
  const sz = nx * ny;
  if (useDense && dense.length < nx * ny * nz) dense = new Int32Array(nx * ny * nz).fill(-1);
  const grid = dense;
  // Pass 2: voxel ids in order of first appearance.
  const V = indexVoxels(n, voxelOf, counts, coords, useDense ? { grid, ox, oy, oz, sy, sz } : null, table);
  const ref2 = cfg.minPointsRefRangeM * cfg.minPointsRefRangeM;
  const minPointsAt = (ix: number, iy: number): number => {
    if (ref2 === 0) return cfg.minPoints;
    const x = (ix + 0.5) * cfg.voxelM;
    const y = (iy + 0.5) * cfg.voxelM;
    const d2 = x * x + y * y;
    return d2 <= ref2 ? cfg.minPoints : Math.max(cfg.minPointsFloor, (cfg.minPoints * ref2) / d2);
  };
  // Neighbour ids per voxel (−1 where empty), found once and used twice.
  const nbr = (work.nbr = atLeastInt32(work.nbr, 27 * V));
  if (work.core.length < V) work.core = new Uint8Array(Math.ceil(V * 1.25));
  const core = work.core;
  core.fill(0, 0, V);
  for (let v = 0; v < V; v++) {
    const ix = coords[3 * v];
    const iy = coords[3 * v + 1];
    const iz = coords[3 * v + 2];
    let total = 0;
    let k = 27 * v;
    if (useDense) {
      const c = (iz - oz) * sz + (iy - oy) * sy + (ix - ox);
      for (let dz = -sz; dz <= sz; dz += sz) {
        for (let dy = -sy; dy <= sy; dy += sy) {
          for (let dx = -1; dx <= 1; dx++) {
            const id = grid[c + dz + dy + dx];
            nbr[k++] = id;
            total += counts[id + 1];
          }
        }
      }
    } else {
      for (let dz = -1; dz <= 1; dz++) {
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const id = table!.find(packKey(ix + dx, iy + dy, iz + dz));
            nbr[k++] = id;
            total += counts[id + 1];
          }
        }
      }
    }
    if (total >= minPointsAt(ix, iy)) core[v] = 1;
  }
  const parent = (work.parent = atLeastInt32(work.parent, V));
  joinCoreNeighbours(nbr, core, V, parent);
  // Border voxels (not core, next to a core voxel) join the first core neighbour's cluster, as in DBSCAN.
  const voxelLabel = (work.voxelLabel = atLeastInt32(work.voxelLabel, V));
  const rootLabel = (work.rootLabel = atLeastInt32(work.rootLabel, V));
  voxelLabel.fill(-1, 0, V);
  rootLabel.fill(-1, 0, V);
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
    labels[i] = v >= 0 ? voxelLabel[v] : -1;
  }
  // Leave the dense grid empty for the next call: only the cells of this call's voxels were set.
  if (useDense)
    for (let v = 0; v < V; v++)
      grid[(coords[3 * v + 2] - oz) * sz + (coords[3 * v + 1] - oy) * sy + (coords[3 * v] - ox)] = -1;
  return { labels, count };
}
