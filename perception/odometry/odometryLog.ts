// Odometry over a whole log: every sweep in order through LidarOdometry, de-skew decided from the log
// (per-point t_offset present and points not already compensated), poses anchored at the source's first.
import type { Progress } from '../../core/progress.ts';
import { InputError } from '../../core/errors.ts';
import { identityPose } from '../../core/geometry/pose.ts';
import type { LogReader } from '../../datasets/logstore.ts';
import { azimuthTimes } from './deskew.ts';
import { DEFAULT_ODOMETRY_CONFIG, LidarOdometry, type OdometryConfig } from './odometry.ts';

export interface OdometryLogResult {
  /** world_from_vehicle per frame, 16 numbers each. */
  poses: Float64Array;
  deskewed: boolean;
  /** Why de-skew was on or off. */
  deskewReason: string;
  /** Per-frame medians and totals for the summary. */
  meanIterations: number;
  meanInlierShare: number;
  meanPlanarShare: number;
  finalSigmaM: number;
  pathLengthM: number;
  /** Sweeps whose registration was rejected (lost track: the prediction was kept). */
  rejectedSweeps: number;
  /** Registration time per sweep (ms), reading excluded. */
  msPerSweep: number;
}

/** Sources whose points are written at their true position in the frame's vehicle frame. */
const COMPENSATED_SOURCES = new Set(['synthetic']);

/** Sources of raw spinning-LiDAR sweeps stored without per-point times, de-skewed by azimuth in 'auto'. */
const AZIMUTH_TIMED_SOURCES = new Set(['kitti']);

/** Whether to de-skew, and why: per-point times must exist and the points must not be compensated already. */
export function decideDeskew(
  mode: OdometryConfig['deskew'],
  source: string,
  extra: Record<string, unknown>,
  tOffset: Float32Array,
): { on: boolean; azimuth?: boolean; reason: string } {
  if (mode === 'off') return { on: false, reason: 'off (config)' };
  if (mode === 'azimuth') return { on: true, azimuth: true, reason: 'times from azimuth (config)' };
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < tOffset.length; i++) {
    if (tOffset[i] < lo) lo = tOffset[i];
    if (tOffset[i] > hi) hi = tOffset[i];
  }
  const hasTimes = hi - lo > 1e-6;
  if (mode === 'on')
    return hasTimes ? { on: true, reason: 'on (config)' } : { on: false, reason: 'no per-point t_offset' };
  if (!hasTimes && AZIMUTH_TIMED_SOURCES.has(source))
    return { on: true, azimuth: true, reason: `'${source}' sweeps: times from azimuth (no t_offset stored)` };
  if (!hasTimes) return { on: false, reason: 'no per-point t_offset' };
  if (COMPENSATED_SOURCES.has(source) || extra.motionCompensated === true)
    return { on: false, reason: `points of '${source}' are already motion-compensated` };
  return { on: true, reason: 'per-point t_offset present' };
}

/** Estimate poses for every frame of the log; the first pose is the log's own first pose. */
export async function odometryForLog(
  log: LogReader,
  config: Partial<OdometryConfig> = {},
  progress?: Progress,
): Promise<OdometryLogResult> {
  const cfg = { ...DEFAULT_ODOMETRY_CONFIG, ...config };
  if (log.frameCount === 0)
    throw new InputError(log.dir, 'the log has no frames: nothing to estimate poses from');
  const anchor = log.frameCount ? Float64Array.from(log.pose(0)) : identityPose();
  const odo = new LidarOdometry(cfg, anchor);
  const poses = new Float64Array(16 * log.frameCount);
  let deskew: ReturnType<typeof decideDeskew> | null = null;
  let iters = 0;
  let inl = 0;
  let pla = 0;
  let ms = 0;
  let sigma = cfg.initialThresholdM;
  let pathLengthM = 0;
  for (let f = 0; f < log.frameCount; f++) {
    const frame = await log.readFrame(f);
    const p = frame.points;
    deskew ??= decideDeskew(cfg.deskew, log.meta.source, log.meta.extra, p.tOffset);
    const periodS =
      f > 0
        ? Number(log.timestampsNs[f] - log.timestampsNs[f - 1]) / 1e9 || 1 / log.meta.rateHz
        : 1 / log.meta.rateHz;
    const t0 = performance.now();
    const sweep = deskew.azimuth ? { ...p, tOffset: azimuthTimes(p.x, p.y, periodS) } : p;
    const step = odo.register(sweep, deskew.on ? periodS : 0);
    ms += performance.now() - t0;
    poses.set(step.pose, 16 * f);
    if (f > 0) {
      iters += step.iterations;
      inl += step.inliers / Math.max(1, step.sourcePoints);
      pla += step.planar / Math.max(1, step.inliers);
      const a = poses.subarray(16 * (f - 1), 16 * f);
      pathLengthM += Math.hypot(step.pose[3] - a[3], step.pose[7] - a[7], step.pose[11] - a[11]);
    }
    sigma = step.sigmaM;
    progress?.tick(1, `σ ${sigma.toFixed(2)} m`);
  }
  const k = Math.max(1, log.frameCount - 1);
  return {
    poses,
    deskewed: deskew!.on,
    deskewReason: deskew!.reason,
    meanIterations: iters / k,
    meanInlierShare: inl / k,
    meanPlanarShare: pla / k,
    finalSigmaM: sigma,
    pathLengthM,
    rejectedSweeps: odo.rejected,
    msPerSweep: ms / log.frameCount,
  };
}
