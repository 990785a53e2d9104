// Merging clusters that are parts of one object split along the line of sight: a car seen from behind
// shows its bumper and its rear window, with the nearly horizontal trunk between them barely hit by beams.
import type { ClusterResult } from './cluster.ts';
import type { XYZ } from '../core/arrow/records.ts';
import type { ConfigRanges } from '../core/configSchema.ts';

export interface FragmentConfig {
  /** Off: clusters pass unchanged. */
  enabled: boolean;
  /** Largest range gap between the near fragment's far edge and the far fragment's near edge. */
  maxRangeGapM: number;
  /** Share of the narrower fragment's azimuth interval the two must share. */
  minAngularOverlap: number;
  /** The merged extent, along the line of sight and across it, stays within a vehicle's size. */
  maxUnionSizeM: number;
  /**
   * Both fragments must span at least this across the line of sight: a car's bumper and rear window
   * are a car wide, while people, bicycles and bollards one behind the other on a sidewalk are narrow
   * and stay apart. 0: any width.
   */
  minAcrossM: number;
}

export const DEFAULT_FRAGMENT_CONFIG: FragmentConfig = {
  enabled: true,
  maxRangeGapM: 1.2,
  minAngularOverlap: 0.5,
  maxUnionSizeM: 6,
  // 1.2 m (was any width): chosen by cross-validation on synthetic 32/64/128-beam sweeps (docs/discovery.md);
  // merging narrow fragments joined pedestrians and bollards on crowded sidewalks.
  minAcrossM: 1.2,
};

/** Allowed values of each field (core/configSchema.ts checks user overrides against them). */
export const FRAGMENT_CONFIG_RANGES: ConfigRanges<FragmentConfig> = {
  maxRangeGapM: { min: 0 },
  minAngularOverlap: { min: 0, max: 1 },
  maxUnionSizeM: { above: 0 },
  minAcrossM: { min: 0 },
};

/**
 * A number that grows with the angle atan2(side, along) ∈ (−π, π], in (−2, 2]: cheaper than the angle
 * and enough to find the extremes.
 */
function pseudoAngle(along: number, side: number): number {
  const as = Math.abs(side);
  if (along >= 0) return as + along === 0 ? 0 : side / (as + along);
  const t = side / (as - along); // in [−1, 1): 0 at ±π, ±1 at ±π/2
  return side >= 0 ? 2 - t : -2 - t;
}

/** Angle from direction (rx, ry) to (x, y), in (−π, π]. */
function relativeAngle(rx: number, ry: number, x: number, y: number): number {
  return Math.atan2(rx * y - ry * x, x * rx + y * ry);
}

/**
 * Relabel clusters so that fragments of one object seen one behind the other share a label. Cost:
 * one pass over the clustered points plus O(clusters²) pair tests. The new labels go to `out` (one slot
 * per point; it may be `clusters.labels` itself) when given, else to a new array; clusters come back
 * unchanged when nothing merges.
 */
export function mergeLineOfSightFragments(
  pts: XYZ,
  clusters: ClusterResult,
  config: Partial<FragmentConfig> = {},
  out?: Int32Array,
): ClusterResult {
  const cfg: FragmentConfig = { ...DEFAULT_FRAGMENT_CONFIG, ...config };
  const K = clusters.count;
  if (!cfg.enabled || K < 2) return clusters;
  const { labels } = clusters;
  // Per cluster: azimuth interval relative to its first point (no wrap at ±π inside one cluster),
  // that reference azimuth, and the range interval. The extremes are found on a pseudo-angle (monotone
  // in the angle, no arctangent per point); only the two extreme points of a cluster get an atan2.
  const refX = new Float64Array(K);
  const refY = new Float64Array(K);
  const hasRef = new Uint8Array(K);
  const pMin = new Float64Array(K).fill(Infinity);
  const pMax = new Float64Array(K).fill(-Infinity);
  const iMin = new Int32Array(K);
  const iMax = new Int32Array(K);
  const rMin = new Float64Array(K).fill(Infinity);
  const rMax = new Float64Array(K).fill(-Infinity);
  const px = pts.x;
  const py = pts.y;
  for (let i = 0; i < labels.length; i++) {
    const c = labels[i];
    if (c < 0) continue;
    const x = px[i];
    const y = py[i];
    const r = Math.sqrt(x * x + y * y);
    if (r < rMin[c]) rMin[c] = r;
    if (r > rMax[c]) rMax[c] = r;
    if (!hasRef[c]) {
      // A point at the sensor's origin has no azimuth: it cannot be the reference.
      if (r === 0) continue;
      hasRef[c] = 1;
      refX[c] = x;
      refY[c] = y;
    }
    // The point's direction in the frame of the reference direction (unnormalised: the angle is the same).
    const along = x * refX[c] + y * refY[c];
    const side = refX[c] * y - refY[c] * x;
    const p = pseudoAngle(along, side);
    if (p < pMin[c]) {
      pMin[c] = p;
      iMin[c] = i;
    }
    if (p > pMax[c]) {
      pMax[c] = p;
      iMax[c] = i;
    }
  }
  const ref = new Float64Array(K);
  const aMin = new Float64Array(K);
  const aMax = new Float64Array(K);
  for (let c = 0; c < K; c++) {
    if (!hasRef[c]) continue;
    ref[c] = Math.atan2(refY[c], refX[c]);
    aMin[c] = relativeAngle(refX[c], refY[c], px[iMin[c]], py[iMin[c]]);
    aMax[c] = relativeAngle(refX[c], refY[c], px[iMax[c]], py[iMax[c]]);
  }
  const parent = Int32Array.from({ length: K }, (_, i) => i);
  const find = (a: number) => {
    while (parent[a] !== a) a = parent[a] = parent[parent[a]];
    return a;
  };
  for (let a = 0; a < K; a++) {
    for (let b = a + 1; b < K; b++) {
      if (cfg.minAcrossM > 0) {
        // Width across the line of sight, at each fragment's near edge.
        if ((aMax[a] - aMin[a]) * rMin[a] < cfg.minAcrossM || (aMax[b] - aMin[b]) * rMin[b] < cfg.minAcrossM)
          continue;
      }
      const [near, far] = rMin[a] <= rMin[b] ? [a, b] : [b, a];
      if (rMin[far] - rMax[near] > cfg.maxRangeGapM) continue;
      const along = Math.max(rMax[a], rMax[b]) - rMin[near];
      if (along > cfg.maxUnionSizeM) continue;
      // Azimuth intervals in a common frame (b's relative to a's reference).
      let shift = ref[b] - ref[a];
      if (shift > Math.PI) shift -= 2 * Math.PI;
      else if (shift < -Math.PI) shift += 2 * Math.PI;
      const bLo = aMin[b] + shift;
      const bHi = aMax[b] + shift;
      const overlap = Math.min(aMax[a], bHi) - Math.max(aMin[a], bLo);
      const narrower = Math.min(aMax[a] - aMin[a], bHi - bLo);
      if (overlap < cfg.minAngularOverlap * narrower) continue;
      const across = (Math.max(aMax[a], bHi) - Math.min(aMin[a], bLo)) * rMax[far];
      if (across > cfg.maxUnionSizeM) continue;
      const ra = find(a);
      const rb = find(b);
      if (ra !== rb) parent[rb] = ra;
    }
  }
  const newLabel = new Int32Array(K).fill(-1);
  let count = 0;
  for (let c = 0; c < K; c++) {
    const r = find(c);
    if (newLabel[r] < 0) newLabel[r] = count++;
    newLabel[c] = newLabel[r];
  }
  if (count === K) return clusters;
  if (out && out.length !== labels.length)
    throw new RangeError(`mergeLineOfSightFragments: the label array must hold ${labels.length} points`);
  const merged = out ?? new Int32Array(labels.length);
  for (let i = 0; i < labels.length; i++) merged[i] = labels[i] < 0 ? -1 : newLabel[labels[i]];
  return { labels: merged, count };
}
