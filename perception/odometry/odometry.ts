// LiDAR odometry, one sweep at a time: range filter → de-skew → voxel downsampling → scan-to-map ICP from
// a constant-velocity prediction with an adaptive threshold → map update (KISS-ICP, Vizzo et al. 2023).
import { composePoses, identityPose, invertPose, type Pose } from '../../core/geometry/pose.ts';
import { AdaptiveThreshold, modelDeviation } from './adaptiveThreshold.ts';
import { deskewPoints } from './deskew.ts';
import { registerToMap } from './icp.ts';
import { orthonormalize } from './se3.ts';
import { Int3Table } from './int3Table.ts';
import { voxelDownsample } from './voxelDownsample.ts';
import { VoxelHashMap } from './voxelHashMap.ts';

export interface OdometryConfig {
  /** Points beyond this range (m) are dropped; also the local map's radius and the threshold's lever arm. */
  maxRangeM: number;
  /** Points nearer than this (m) are dropped: the vehicle's own body and mounts. */
  minRangeM: number;
  /** Map voxel edge (m); sweeps are downsampled at half of it for the map and 1.5× for registration. */
  voxelM: number;
  /** Points kept per map voxel. */
  maxPointsPerVoxel: number;
  /** Correspondence scale σ (m) before the prediction error has been measured. */
  initialThresholdM: number;
  /** Prediction errors below this (m) do not update σ. */
  minMotionM: number;
  /** Gauss-Newton iterations per sweep at most. */
  maxIterations: number;
  /** ICP stops when an update is smaller than this (rad and m). */
  convergence: number;
  /** Point-to-plane residuals where a map voxel is planar (else point-to-point, as KISS-ICP). */
  pointToPlane: boolean;
  /** A map voxel is a plane when its smallest covariance eigenvalue is at most this share of their sum. */
  planarity: number;
  /** Fewest points in a map voxel for a plane fit. */
  minPlanePoints: number;
  /** Pull towards the constant-velocity prediction, as a share of the points' total kernel weight. */
  motionPriorWeight: number;
  /**
   * A registration that moves a point at max range by more than this (m) from the prediction, or is not
   * finite, is rejected and the prediction kept: a lost track coasts instead of exploding.
   */
  maxCorrectionM: number;
  /**
   * Motion compensation: 'auto' de-skews by per-point t_offset when the log has it and its points are not
   * compensated already, and by azimuth for KITTI raw sweeps (no times stored); 'on' by t_offset;
   * 'azimuth' by azimuth (a clockwise spinning LiDAR timestamped facing forward); 'off'.
   */
  deskew: 'auto' | 'on' | 'azimuth' | 'off';
}

export const DEFAULT_ODOMETRY_CONFIG: OdometryConfig = {
  maxRangeM: 100,
  minRangeM: 3,
  // KISS-ICP's rule, voxel = maxRange / 100.
  voxelM: 1,
  maxPointsPerVoxel: 20,
  initialThresholdM: 2,
  minMotionM: 0.1,
  maxIterations: 50,
  convergence: 1e-4,
  pointToPlane: true,
  planarity: 0.02,
  // 3, not 6: a far ring crossing a voxel leaves 3–5 map points; fitted, they are a line and skipped,
  // unfitted they were point-to-point matches that pull towards standing still (synthetic hdl64 seed 11
  // stood still from the first sweep; with 3 it tracks at 0.08 %).
  minPlanePoints: 3,
  motionPriorWeight: 0.01,
  maxCorrectionM: 10,
  deskew: 'auto',
};

/** The part of a sweep odometry reads. */
export interface OdometrySweep {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  /** Seconds from the frame timestamp; used only when de-skewing. */
  tOffset?: Float32Array;
}

export interface OdometryStep {
  /** world_from_vehicle of this sweep. */
  pose: Pose;
  /** Points registered (after range filter and 1.5-voxel downsampling). */
  sourcePoints: number;
  inliers: number;
  planar: number;
  iterations: number;
  /** σ used for this sweep (m). */
  sigmaM: number;
}

/** Frame-by-frame odometry; the first sweep's pose is `anchor` (identity by default). */
export class LidarOdometry {
  readonly cfg: OdometryConfig;
  private readonly map: VoxelHashMap;
  private readonly threshold: AdaptiveThreshold;
  private readonly poses: Pose[] = [];
  private readonly table = new Int3Table(1 << 16);
  private xyz = new Float32Array(0);
  private tOff = new Float32Array(0);
  /** Sweeps whose registration was rejected (the prediction kept). */
  rejected = 0;

  constructor(
    config: Partial<OdometryConfig> = {},
    private readonly anchor: Pose = identityPose(),
  ) {
    this.cfg = { ...DEFAULT_ODOMETRY_CONFIG, ...config };
    const c = this.cfg;
    if (!(c.voxelM > 0) || !(c.maxRangeM > c.minRangeM) || !(c.maxPointsPerVoxel >= 1))
      throw new Error(`odometry config: voxelM > 0, maxRangeM > minRangeM, maxPointsPerVoxel ≥ 1 needed`);
    this.map = new VoxelHashMap({
      voxelM: c.voxelM,
      maxPointsPerVoxel: Math.min(255, c.maxPointsPerVoxel),
      planarity: c.planarity,
      minPlanePoints: c.minPlanePoints,
    });
    this.threshold = new AdaptiveThreshold({
      initialThresholdM: c.initialThresholdM,
      minMotionM: c.minMotionM,
      maxRangeM: c.maxRangeM,
    });
  }

  get trajectory(): readonly Pose[] {
    return this.poses;
  }

  get mapVoxels(): number {
    return this.map.voxelCount;
  }

  /** Constant-velocity prediction of the next frame's motion, `prev_from_next` (identity for < 2 poses). */
  private predictedMotion(): Pose {
    const n = this.poses.length;
    if (n < 2) return identityPose();
    return composePoses(invertPose(this.poses[n - 2]), this.poses[n - 1]);
  }

  /** Register one sweep; `deskewPeriodS` > 0 compensates motion over that frame period using t_offset. */
  register(sweep: OdometrySweep, deskewPeriodS = 0): OdometryStep {
    const c = this.cfg;
    const n = sweep.x.length;
    if (this.xyz.length < 3 * n) {
      this.xyz = new Float32Array(3 * n);
      this.tOff = new Float32Array(n);
    }
    const xyz = this.xyz;
    const minR2 = c.minRangeM * c.minRangeM;
    const maxR2 = c.maxRangeM * c.maxRangeM;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const x = sweep.x[i];
      const y = sweep.y[i];
      const z = sweep.z[i];
      const r2 = x * x + y * y + z * z;
      if (!(r2 >= minR2 && r2 <= maxR2)) continue; // NaN fails too
      xyz[3 * m] = x;
      xyz[3 * m + 1] = y;
      xyz[3 * m + 2] = z;
      if (sweep.tOffset) this.tOff[m] = sweep.tOffset[i];
      m++;
    }
    const motion = this.predictedMotion();
    if (deskewPeriodS > 0 && sweep.tOffset && this.poses.length >= 2)
      deskewPoints(xyz, this.tOff, m, motion, deskewPeriodS);
    const frame = voxelDownsample(xyz, m, 0.5 * c.voxelM, this.table);
    const source = voxelDownsample(frame, frame.length / 3, 1.5 * c.voxelM, this.table);
    const sigma = this.threshold.sigma();
    const last = this.poses.length ? this.poses[this.poses.length - 1] : this.anchor;
    const initial = composePoses(last, motion);
    let pose = initial;
    let iterations = 0;
    let inliers = 0;
    let planar = 0;
    if (!this.map.empty) {
      const r = registerToMap(source, this.map, initial, 3 * sigma, sigma / 3, c);
      const correction = composePoses(invertPose(initial), r.pose);
      iterations = r.iterations;
      inliers = r.inliers;
      planar = r.planar;
      if (r.pose.every(Number.isFinite) && modelDeviation(correction, c.maxRangeM) <= c.maxCorrectionM) {
        pose = r.pose;
        this.threshold.update(correction);
      } else this.rejected++;
    }
    // Kept on SO(3): the prediction below would otherwise amplify rounding into a non-rigid pose.
    pose = orthonormalize(Float64Array.from(pose));
    // The map gains the sweep at its registered pose, then forgets what is now out of range.
    const world = frame;
    const [r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz] = pose;
    for (let i = 0; i < world.length; i += 3) {
      const x = world[i];
      const y = world[i + 1];
      const z = world[i + 2];
      world[i] = r00 * x + r01 * y + r02 * z + tx;
      world[i + 1] = r10 * x + r11 * y + r12 * z + ty;
      world[i + 2] = r20 * x + r21 * y + r22 * z + tz;
    }
    this.map.addPoints(world);
    this.map.removeFar(tx, ty, tz, c.maxRangeM);
    this.poses.push(pose);
    return { pose, sourcePoints: source.length / 3, inliers, planar, iterations, sigmaM: sigma };
  }
}
