// Odometry error metrics: KITTI odometry drift (Geiger et al. 2012, devkit evaluate_odometry: translation %
// and rotation °/100 m over 100–800 m segments) and the relative pose error between nearby frames.
import { composePoses, invertPose, type Pose } from '../../core/geometry/pose.ts';
import { rotationAngle, translationNorm } from './se3.ts';

export interface DriftConfig {
  /** Segment lengths (m) along the ground-truth path, as the KITTI devkit. */
  lengthsM: number[];
  /** First frames of segments are taken every this many frames (the devkit's step_size). */
  stepFrames: number;
}

export const DEFAULT_DRIFT_CONFIG: DriftConfig = {
  lengthsM: [100, 200, 300, 400, 500, 600, 700, 800],
  stepFrames: 10,
};

export interface DriftResult {
  /** Mean translational error over the segments, % of segment length. */
  translationPct: number;
  /** Mean rotational error over the segments, degrees per 100 m. */
  rotationDegPer100m: number;
  /** Segments averaged. */
  segments: number;
  /** 'segments': KITTI's 100–800 m; 'whole-log': the path was shorter than 100 m, one segment frame 0 → last. */
  mode: 'segments' | 'whole-log';
  /** Ground-truth path length of the log (m). */
  pathLengthM: number;
}

const poseAt = (poses: Float64Array | readonly Pose[], i: number): Pose =>
  Array.isArray(poses) ? (poses as Pose[])[i] : (poses as Float64Array).subarray(16 * i, 16 * i + 16);

const countOf = (poses: Float64Array | readonly Pose[]): number =>
  Array.isArray(poses) ? poses.length : (poses as Float64Array).length / 16;

/** Cumulative path length at each frame (m), from the translations of the poses. */
export function pathDistances(poses: Float64Array | readonly Pose[]): Float64Array {
  const n = countOf(poses);
  const d = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    const a = poseAt(poses, i - 1);
    const b = poseAt(poses, i);
    d[i] = d[i - 1] + Math.hypot(b[3] - a[3], b[7] - a[7], b[11] - a[11]);
  }
  return d;
}

/** The pose error of one segment: (est_first⁻¹ est_last)⁻¹ (gt_first⁻¹ gt_last). */
function segmentError(
  gt: Float64Array | readonly Pose[],
  est: Float64Array | readonly Pose[],
  i: number,
  j: number,
): Pose {
  const dGt = composePoses(invertPose(poseAt(gt, i)), poseAt(gt, j));
  const dEst = composePoses(invertPose(poseAt(est, i)), poseAt(est, j));
  return composePoses(invertPose(dEst), dGt);
}

/**
 * KITTI odometry drift of `est` against `gt` (both world_from_vehicle per frame; their world frames need
 * not agree, only relative motion is compared). Segments of each length start every `stepFrames` frames and
 * end at the first frame whose path distance reaches the length; errors are divided by the nominal length.
 * When no segment fits (a log shorter than the shortest length), the whole log is one segment whose
 * length is its path length.
 */
export function kittiDrift(
  gt: Float64Array | readonly Pose[],
  est: Float64Array | readonly Pose[],
  config: Partial<DriftConfig> = {},
): DriftResult {
  const cfg = { ...DEFAULT_DRIFT_CONFIG, ...config };
  const n = countOf(gt);
  if (countOf(est) !== n)
    throw new Error(`kittiDrift: ${n} ground-truth poses but ${countOf(est)} estimates`);
  const dist = pathDistances(gt);
  const pathLengthM = n ? dist[n - 1] : 0;
  let t = 0;
  let r = 0;
  let segments = 0;
  for (let first = 0; first < n; first += cfg.stepFrames) {
    for (const len of cfg.lengthsM) {
      let last = -1;
      for (let k = first; k < n; k++) {
        if (dist[k] > dist[first] + len) {
          last = k;
          break;
        }
      }
      if (last < 0) continue;
      const e = segmentError(gt, est, first, last);
      t += translationNorm(e) / len;
      r += rotationAngle(e) / len;
      segments++;
    }
  }
  if (segments > 0)
    return {
      translationPct: (100 * t) / segments,
      rotationDegPer100m: ((100 * r) / segments) * (180 / Math.PI),
      segments,
      mode: 'segments',
      pathLengthM,
    };
  if (n < 2 || !(pathLengthM > 0))
    return { translationPct: NaN, rotationDegPer100m: NaN, segments: 0, mode: 'whole-log', pathLengthM };
  const e = segmentError(gt, est, 0, n - 1);
  return {
    translationPct: (100 * translationNorm(e)) / pathLengthM,
    rotationDegPer100m: ((100 * rotationAngle(e)) / pathLengthM) * (180 / Math.PI),
    segments: 1,
    mode: 'whole-log',
    pathLengthM,
  };
}

export interface RelativePoseError {
  /** Frame pairs compared. */
  pairs: number;
  /** Mean and RMS translation error of the relative motion (m). */
  translationMeanM: number;
  translationRmseM: number;
  /** Mean rotation error of the relative motion (degrees). */
  rotationMeanDeg: number;
  /** Mean ground-truth motion per pair (m), for scale. */
  motionMeanM: number;
}

/** Relative pose error between frames `delta` apart (Sturm et al. 2012, TUM RGB-D RPE). */
export function relativePoseError(
  gt: Float64Array | readonly Pose[],
  est: Float64Array | readonly Pose[],
  delta = 1,
): RelativePoseError {
  const n = countOf(gt);
  if (countOf(est) !== n)
    throw new Error(`relativePoseError: ${n} ground-truth poses but ${countOf(est)} estimates`);
  let pairs = 0;
  let tSum = 0;
  let tSq = 0;
  let rSum = 0;
  let mSum = 0;
  for (let i = 0; i + delta < n; i++) {
    const e = segmentError(gt, est, i, i + delta);
    const te = translationNorm(e);
    tSum += te;
    tSq += te * te;
    rSum += rotationAngle(e);
    mSum += translationNorm(composePoses(invertPose(poseAt(gt, i)), poseAt(gt, i + delta)));
    pairs++;
  }
  const d = Math.max(1, pairs);
  return {
    pairs,
    translationMeanM: pairs ? tSum / d : NaN,
    translationRmseM: pairs ? Math.sqrt(tSq / d) : NaN,
    rotationMeanDeg: pairs ? ((rSum / d) * 180) / Math.PI : NaN,
    motionMeanM: pairs ? mSum / d : NaN,
  };
}
