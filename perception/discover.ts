// Object discovery on one sweep (OYSTER's seed labels): ground removal → near-range clustering → merging
// of line-of-sight fragments → box fitting, with one typed config that gathers the modules' configs.
import type { Boxes, XYZ } from '../core/arrow/records.ts';
import {
  BOXFIT_CONFIG_RANGES,
  fitBoxes,
  type BoxFitConfig,
  type BoxFitStats,
  DEFAULT_BOXFIT_CONFIG,
} from './boxfit.ts';
import {
  CLUSTER_CONFIG_RANGES,
  clusterPoints,
  type ClusterConfig,
  DEFAULT_CLUSTER_CONFIG,
} from './cluster.ts';
import {
  DEFAULT_FRAGMENT_CONFIG,
  FRAGMENT_CONFIG_RANGES,
  type FragmentConfig,
  mergeLineOfSightFragments,
} from './fragments.ts';
import {
  DEFAULT_GROUND_CONFIG,
  flatGroundModel,
  GROUND_CONFIG_RANGES,
  type GroundConfig,
  type GroundModel,
  segmentGround,
} from './ground.ts';
import type { ConfigRanges } from '../core/configSchema.ts';

export interface DiscoverConfig {
  ground: GroundConfig;
  cluster: ClusterConfig;
  fragments: FragmentConfig;
  boxfit: BoxFitConfig;
  /** Sweeps with fewer finite points than this yield no boxes (nothing to fit a ground to). */
  minSweepPoints: number;
  /** Points higher than this above the ground are left out of clustering (canopies, overhangs). */
  maxHeightAboveGroundM: number;
}

export const DEFAULT_DISCOVER_CONFIG: DiscoverConfig = {
  ground: DEFAULT_GROUND_CONFIG,
  cluster: DEFAULT_CLUSTER_CONFIG,
  fragments: DEFAULT_FRAGMENT_CONFIG,
  boxfit: DEFAULT_BOXFIT_CONFIG,
  minSweepPoints: 50,
  maxHeightAboveGroundM: 4,
};

/** Allowed values of each field (core/configSchema.ts checks user overrides against them). */
export const DISCOVER_CONFIG_RANGES: ConfigRanges<DiscoverConfig> = {
  ground: GROUND_CONFIG_RANGES,
  cluster: CLUSTER_CONFIG_RANGES,
  fragments: FRAGMENT_CONFIG_RANGES,
  boxfit: BOXFIT_CONFIG_RANGES,
  minSweepPoints: { integer: true, min: 0 },
  maxHeightAboveGroundM: { above: 0 },
};

/** Partial configs merged over the defaults, one level deep. */
export interface DiscoverConfigInput {
  ground?: Partial<GroundConfig>;
  cluster?: Partial<ClusterConfig>;
  fragments?: Partial<FragmentConfig>;
  boxfit?: Partial<BoxFitConfig>;
  minSweepPoints?: number;
  maxHeightAboveGroundM?: number;
}

export function resolveDiscoverConfig(input: DiscoverConfigInput = {}): DiscoverConfig {
  return {
    ground: { ...DEFAULT_GROUND_CONFIG, ...input.ground },
    cluster: { ...DEFAULT_CLUSTER_CONFIG, ...input.cluster },
    fragments: { ...DEFAULT_FRAGMENT_CONFIG, ...input.fragments },
    boxfit: { ...DEFAULT_BOXFIT_CONFIG, ...input.boxfit },
    minSweepPoints: input.minSweepPoints ?? DEFAULT_DISCOVER_CONFIG.minSweepPoints,
    maxHeightAboveGroundM: input.maxHeightAboveGroundM ?? DEFAULT_DISCOVER_CONFIG.maxHeightAboveGroundM,
  };
}

export interface SweepStats {
  points: number;
  /** Points with a non-finite coordinate, skipped. */
  nonFinite: number;
  ground: number;
  clustered: number;
  clusters: number;
  boxes: number;
  rejected: BoxFitStats['rejected'];
}

export interface SweepResult {
  boxes: Boxes;
  /** 1 for ground points. */
  isGround: Uint8Array;
  /** Cluster per point (−1: none). */
  clusterOf: Int32Array;
  ground: GroundModel;
  stats: SweepStats;
}

/**
 * Per-point arrays that discoverSweep fills instead of allocating them, for a loop over sweeps: grown to
 * the largest sweep, reused by every call: a fresh 120k-slot array costs page faults and zeroing on every
 * sweep (~0.2 ms for 480 kB in a microbenchmark; 1–2 % of a sweep together, docs/discovery.md).
 */
export interface SweepBuffers {
  isGround: Uint8Array;
  heightAboveGround: Float32Array;
  mask: Uint8Array;
  labels: Int32Array;
}

/** Empty buffers for discoverSweep (they grow on first use). */
export function sweepBuffers(): SweepBuffers {
  return {
    isGround: new Uint8Array(0),
    heightAboveGround: new Float32Array(0),
    mask: new Uint8Array(0),
    labels: new Int32Array(0),
  };
}

function growBuffers(b: SweepBuffers, n: number): void {
  if (b.labels.length >= n) return;
  const size = Math.ceil(n * 1.25);
  b.isGround = new Uint8Array(size);
  b.heightAboveGround = new Float32Array(size);
  b.mask = new Uint8Array(size);
  b.labels = new Int32Array(size);
}

/**
 * Ground → cluster → boxes on one sweep (vehicle frame). Boxes carry `frameIndex`. With `buffers`, the
 * result's per-point arrays (isGround, clusterOf) are views of them, valid until their next use.
 */
export function discoverSweep(
  pts: XYZ,
  cfg: DiscoverConfig = DEFAULT_DISCOVER_CONFIG,
  frameIndex = 0,
  buffers?: SweepBuffers,
): SweepResult {
  const n = pts.x.length;
  if (buffers) growBuffers(buffers, n);
  // Candidates: finite, not ground, below the height cut (flagged by the ground pass itself).
  const mask = buffers ? buffers.mask.subarray(0, n) : new Uint8Array(n);
  const g = segmentGround(pts, cfg.ground, {
    isGround: buffers ? buffers.isGround.subarray(0, n) : new Uint8Array(n),
    heightAboveGround: buffers ? buffers.heightAboveGround.subarray(0, n) : new Float32Array(n),
    aboveGround: { mask, maxHeightM: cfg.maxHeightAboveGroundM },
  });
  const finite = n - g.invalidCount;
  const model = finite >= cfg.minSweepPoints ? g.model : flatGroundModel(g.model.levelZ, cfg.ground);
  // Too few points for a ground: nothing to cluster.
  if (finite < cfg.minSweepPoints) mask.fill(0);
  // With buffers, the fragments are merged in place in the clustering's labels.
  const labels = buffers?.labels.subarray(0, n);
  const clusters = mergeLineOfSightFragments(
    pts,
    clusterPoints(pts, mask, cfg.cluster, 'auto', labels),
    cfg.fragments,
    labels,
  );
  const fit = fitBoxes(pts, clusters, model, cfg.boxfit, frameIndex);
  let clustered = 0;
  for (let i = 0; i < n; i++) if (clusters.labels[i] >= 0) clustered++;
  return {
    boxes: fit.boxes,
    isGround: g.isGround,
    clusterOf: clusters.labels,
    ground: model,
    stats: {
      points: n,
      nonFinite: g.invalidCount,
      ground: g.groundCount,
      clustered,
      clusters: clusters.count,
      boxes: fit.stats.kept,
      rejected: fit.stats.rejected,
    },
  };
}
