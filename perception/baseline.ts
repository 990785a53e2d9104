// The classical baseline every discovery and detector result is shown beside (issue 18): one RANSAC
// ground plane, DBSCAN (eps 0.5 m, 5 points) and a minimum-area rectangle per cluster, nothing learned or tuned.
import { type Boxes, concatBoxes, type XYZ } from '../core/arrow/records.ts';
import type { Progress } from '../core/progress.ts';
import type { LogReader } from '../datasets/logstore.ts';
import { fitBoxes, type BoxFitConfig } from './boxfit.ts';
import { dbscan, type DbscanConfig, DEFAULT_DBSCAN_CONFIG } from './dbscan.ts';
import { DEFAULT_GROUND_CONFIG } from './ground.ts';
import { fitNearPlane, type PlaneFitConfig } from './planeFit.ts';

export interface BaselineConfig {
  dbscan: DbscanConfig;
  /** Points within this BEV range of the vehicle origin are used (the scored ranges end at 80 m). */
  rangeM: number;
  /** The ground plane is fitted to points within this BEV range (one plane: a flat-world baseline). */
  planeRangeM: number;
  /** A point at most this high above the plane (or below it) is ground; also RANSAC's inlier tolerance. */
  groundTolM: number;
  /** RANSAC candidate planes (three random points each). */
  ransacIterations: number;
  /** Points used to fit the plane, evenly spaced over the sweep: caps the RANSAC cost. */
  planeSample: number;
  /** Steepest plane accepted, |dz/dx| and |dz/dy| combined (rejects walls). */
  maxSlope: number;
  /** Points higher than this above the plane are left out (canopies, overhangs), as in discovery. */
  maxHeightAboveGroundM: number;
  /** Points of the ego vehicle itself are skipped: x in [egoMinXM, egoMaxXM], |y| ≤ egoHalfWidthM. */
  egoMinXM: number;
  egoMaxXM: number;
  egoHalfWidthM: number;
  /** Score = n / (n + scoreHalfPoints) for a cluster of n points: larger clusters rank first. */
  scoreHalfPoints: number;
}

export const DEFAULT_BASELINE_CONFIG: BaselineConfig = {
  dbscan: DEFAULT_DBSCAN_CONFIG,
  rangeM: 80,
  planeRangeM: 30,
  groundTolM: 0.2,
  ransacIterations: 100,
  planeSample: 4000,
  maxSlope: 0.3,
  maxHeightAboveGroundM: 4,
  egoMinXM: -2.5,
  egoMaxXM: 2.5,
  egoHalfWidthM: 1.2,
  scoreHalfPoints: 30,
};

/** Box fitting with every filter off: the baseline keeps every cluster, boxed by its minimum-area rectangle. */
const PLAIN_BOXES: Partial<BoxFitConfig> = {
  method: 'minArea',
  trimBottomM: 0,
  minPoints: 1,
  minHeightM: 0,
  maxHeightM: Infinity,
  maxLengthM: Infinity,
  maxWidthM: Infinity,
  minVolumeM3: 0,
  maxVolumeM3: Infinity,
  maxBottomAboveGroundM: Infinity,
  extendToGround: false,
  minFootprintM: 0,
  minPointsRefRangeM: 0,
};

export interface BaselineResult {
  boxes: Boxes;
  /** The RANSAC plane z = a·x + b·y + c. */
  plane: [number, number, number];
  isGround: Uint8Array;
  clusterOf: Int32Array;
  clusters: number;
}

/** RANSAC ground plane of a sweep from an evenly spaced sample of its points within planeRangeM. */
export function ransacGroundPlane(pts: XYZ, cfg: BaselineConfig): [number, number, number] {
  const n = pts.x.length;
  const r2 = cfg.planeRangeM * cfg.planeRangeM;
  let inRange = 0;
  for (let i = 0; i < n; i++) if (pts.x[i] * pts.x[i] + pts.y[i] * pts.y[i] <= r2) inRange++;
  const stride = Math.max(1, Math.floor(inRange / cfg.planeSample));
  const zs: number[] = [];
  const xs: number[] = [];
  const ys: number[] = [];
  const rs: number[] = [];
  for (let i = 0, k = 0; i < n; i++) {
    const x = pts.x[i];
    const y = pts.y[i];
    const z = pts.z[i];
    const d2 = x * x + y * y;
    if (!(d2 <= r2) || !Number.isFinite(z) || k++ % stride !== 0) continue;
    xs.push(x);
    ys.push(y);
    zs.push(z);
    rs.push(Math.sqrt(d2));
  }
  // The sampled points stand in for ground.ts's cell prototypes; the fit is the same RANSAC + refit.
  const planeCfg: PlaneFitConfig = {
    planeRangeM: cfg.planeRangeM,
    maxSlope: cfg.maxSlope,
    planeInlierTolM: cfg.groundTolM,
    planeRansacIterations: cfg.ransacIterations,
    planeInlierSample: cfg.planeSample,
    planeMinPrototypes: DEFAULT_GROUND_CONFIG.planeMinPrototypes,
    planeFallbackQuantile: DEFAULT_GROUND_CONFIG.planeFallbackQuantile,
  };
  return fitNearPlane(
    Float32Array.from(zs),
    Float32Array.from(xs),
    Float32Array.from(ys),
    Float32Array.from(rs),
    planeCfg,
  );
}

/** RANSAC ground → DBSCAN → minimum-area rectangles on one sweep (vehicle frame). Boxes carry frameIndex. */
export function baselineSweep(
  pts: XYZ,
  config: Partial<BaselineConfig> = {},
  frameIndex = 0,
): BaselineResult {
  const cfg: BaselineConfig = { ...DEFAULT_BASELINE_CONFIG, ...config };
  const plane = ransacGroundPlane(pts, cfg);
  const [a, b, c] = plane;
  const n = pts.x.length;
  const isGround = new Uint8Array(n);
  const mask = new Uint8Array(n);
  const r2 = cfg.rangeM * cfg.rangeM;
  for (let i = 0; i < n; i++) {
    const x = pts.x[i];
    const y = pts.y[i];
    const h = pts.z[i] - (a * x + b * y + c);
    // NaN fails both comparisons: non-finite points are neither ground nor candidates.
    if (h <= cfg.groundTolM) {
      isGround[i] = 1;
      continue;
    }
    if (!(h <= cfg.maxHeightAboveGroundM) || !(x * x + y * y <= r2)) continue;
    if (x >= cfg.egoMinXM && x <= cfg.egoMaxXM && Math.abs(y) <= cfg.egoHalfWidthM) continue;
    mask[i] = 1;
  }
  const clusters = dbscan(pts, mask, cfg.dbscan);
  const fit = fitBoxes(
    pts,
    clusters,
    null,
    { ...PLAIN_BOXES, scoreHalfPoints: cfg.scoreHalfPoints },
    frameIndex,
  );
  return { boxes: fit.boxes, plane, isGround, clusterOf: clusters.labels, clusters: clusters.count };
}

/** The baseline on every sweep of a log: its boxes (no tracking; track ids −1). */
export async function baselineLog(
  log: LogReader,
  config: Partial<BaselineConfig> = {},
  progress?: Progress,
): Promise<Boxes> {
  const perFrame: Boxes[] = [];
  for await (const frame of log.iterFrames()) {
    const r = baselineSweep(frame.points, config, frame.frameIndex);
    perFrame.push(r.boxes);
    progress?.tick(1, `${r.boxes.cx.length} boxes`);
  }
  return concatBoxes(perFrame);
}
