// Distance-to-collision (DTC), OYSTER's planning metric as docs/architecture.md defines it: the ego box
// swept along its own logged future path (next 5 s), objects frozen; compared between detections and truth.
import { type Boxes, boxAt, rowsByFrame } from '../../core/arrow/records.ts';
import { type Box3, boxCornersBev } from '../../core/geometry/box.ts';
import { wrapAngle } from '../../core/geometry/pose.ts';
import { nearestRankOfSorted } from '../../core/stats.ts';

export interface DtcConfig {
  /** Future horizon of the ego path (seconds). */
  horizonS: number;
  /** Ego footprint (metres) and the offset of its centre ahead of the vehicle-frame origin. */
  egoLengthM: number;
  egoWidthM: number;
  egoCentreOffsetXM: number;
  /** Arc-length step of the sweep along the path. */
  stepM: number;
  /** |DTC(det) − DTC(gt)| beyond this is a phantom-braking or missed-obstacle frame. */
  thresholdM: number;
  /**
   * Score only frames whose logged future covers the whole horizon; when no frame does (a short log),
   * every frame with any future is scored and the result says which horizon was used.
   */
  requireFullHorizon: boolean;
}

export const DEFAULT_DTC_CONFIG: DtcConfig = {
  horizonS: 5,
  egoLengthM: 4.5,
  egoWidthM: 1.9,
  egoCentreOffsetXM: 0,
  stepM: 0.1,
  thresholdM: 2,
  requireFullHorizon: true,
};

export interface DtcResult {
  mean_abs_err_m: number | null;
  p95_abs_err_m: number | null;
  phantom_rate: number | null;
  missed_rate: number | null;
  frames: number;
  /** Horizon actually covered: horizonS, or less when the log is shorter. */
  horizon_s: number;
  /** Per scored frame: frame index, DTC of the truth and of the detections. */
  perFrame: { frame: number; gt: number; det: number; pathM: number }[];
}

/** The ego's future path in the vehicle frame of `frame`: positions, headings and arc length. */
export interface EgoPath {
  x: Float64Array;
  y: Float64Array;
  yaw: Float64Array;
  s: Float64Array;
}

export function egoPath(poses: Float64Array, timesS: Float64Array, frame: number, horizonS: number): EgoPath {
  const p0 = poses.subarray(16 * frame, 16 * frame + 16);
  const yaw0 = Math.atan2(p0[4], p0[0]);
  const xs: number[] = [];
  const ys: number[] = [];
  const yaws: number[] = [];
  for (let k = frame; k < timesS.length && timesS[k] - timesS[frame] <= horizonS + 1e-6; k++) {
    const p = poses.subarray(16 * k, 16 * k + 16);
    const dx = p[3] - p0[3];
    const dy = p[7] - p0[7];
    const dz = p[11] - p0[11];
    xs.push(p0[0] * dx + p0[4] * dy + p0[8] * dz);
    ys.push(p0[1] * dx + p0[5] * dy + p0[9] * dz);
    yaws.push(wrapAngle(Math.atan2(p[4], p[0]) - yaw0));
  }
  const s = new Float64Array(xs.length);
  for (let i = 1; i < xs.length; i++) s[i] = s[i - 1] + Math.hypot(xs[i] - xs[i - 1], ys[i] - ys[i - 1]);
  return { x: Float64Array.from(xs), y: Float64Array.from(ys), yaw: Float64Array.from(yaws), s };
}

/** Separating-axis test of two BEV rectangles given as corner arrays [x0, y0, …, x3, y3]. */
export function rectanglesOverlap(a: Float64Array, b: Float64Array): boolean {
  for (const poly of [a, b]) {
    for (let e = 0; e < 2; e++) {
      // Two edge normals per rectangle suffice.
      const nx = -(poly[2 * e + 3] - poly[2 * e + 1]);
      const ny = poly[2 * e + 2] - poly[2 * e];
      let minA = Infinity;
      let maxA = -Infinity;
      let minB = Infinity;
      let maxB = -Infinity;
      for (let i = 0; i < 4; i++) {
        const pa = a[2 * i] * nx + a[2 * i + 1] * ny;
        const pb = b[2 * i] * nx + b[2 * i + 1] * ny;
        if (pa < minA) minA = pa;
        if (pa > maxA) maxA = pa;
        if (pb < minB) minB = pb;
        if (pb > maxB) maxB = pb;
      }
      if (maxA < minB || maxB < minA) return false;
    }
  }
  return true;
}

function egoBoxAt(path: EgoPath, s: number, cfg: DtcConfig): Box3 {
  let i = 0;
  while (i + 1 < path.s.length - 1 && path.s[i + 1] < s) i++;
  const j = Math.min(i + 1, path.s.length - 1);
  const seg = path.s[j] - path.s[i];
  const t = seg > 0 ? Math.min(1, Math.max(0, (s - path.s[i]) / seg)) : 0;
  const x = path.x[i] + t * (path.x[j] - path.x[i]);
  const y = path.y[i] + t * (path.y[j] - path.y[i]);
  const yaw = path.yaw[i] + t * wrapAngle(path.yaw[j] - path.yaw[i]);
  return {
    cx: x + Math.cos(yaw) * cfg.egoCentreOffsetXM,
    cy: y + Math.sin(yaw) * cfg.egoCentreOffsetXM,
    cz: 0,
    length: cfg.egoLengthM,
    width: cfg.egoWidthM,
    height: 1,
    yaw,
  };
}

/**
 * DTC of one frame: arc length the ego travels along its path before its box first overlaps an object
 * (objects frozen), capped at the path length. Objects already overlapping the ego's box at the start
 * are left out: they are the ego itself or sensor artefacts, not something to brake for.
 */
export function distanceToCollision(
  objects: readonly Box3[],
  path: EgoPath,
  cfg: DtcConfig = DEFAULT_DTC_CONFIG,
): number {
  const total = path.s.length ? path.s[path.s.length - 1] : 0;
  const start = boxCornersBev(egoBoxAt(path, 0, cfg));
  const egoReach = Math.hypot(cfg.egoLengthM, cfg.egoWidthM) / 2 + Math.abs(cfg.egoCentreOffsetXM);
  // Objects near enough to the path to matter, with their corners.
  const near: Float64Array[] = [];
  for (const o of objects) {
    const reach = Math.hypot(o.length, o.width) / 2 + egoReach;
    let close = false;
    for (let i = 0; i < path.x.length && !close; i++)
      close = Math.hypot(o.cx - path.x[i], o.cy - path.y[i]) <= reach + 5;
    if (!close) continue;
    const c = boxCornersBev(o);
    if (rectanglesOverlap(start, c)) continue;
    near.push(c);
  }
  if (near.length === 0 || total === 0) return total;
  const hits = (at: number) => {
    const ego = boxCornersBev(egoBoxAt(path, at, cfg));
    for (const c of near) if (rectanglesOverlap(ego, c)) return true;
    return false;
  };
  let free = 0;
  for (let s = cfg.stepM; s < total + cfg.stepM; s += cfg.stepM) {
    const at = Math.min(s, total);
    if (hits(at)) {
      // Bisect between the last free sample and this one: DTC to a millimetre, not to a step.
      let lo = free;
      let hi = at;
      while (hi - lo > 1e-3) {
        const mid = (lo + hi) / 2;
        if (hits(mid)) hi = mid;
        else lo = mid;
      }
      return hi;
    }
    free = at;
  }
  return total;
}

/**
 * DTC error of detections against ground truth over a sequence: frames with the whole horizon of logged
 * future (or, for a short log, every frame with some future).
 */
export function evaluateDtc(
  det: Boxes,
  gt: Boxes,
  poses: Float64Array,
  timesS: Float64Array,
  config: Partial<DtcConfig> = {},
): DtcResult {
  const cfg: DtcConfig = { ...DEFAULT_DTC_CONFIG, ...config };
  const F = timesS.length;
  const last = F ? timesS[F - 1] : 0;
  const dt = F > 1 ? (last - timesS[0]) / (F - 1) : 0;
  let frames: number[] = [];
  let horizon = cfg.horizonS;
  for (let f = 0; f < F; f++) if (last - timesS[f] >= cfg.horizonS - dt / 2) frames.push(f);
  if (frames.length === 0 || !cfg.requireFullHorizon) {
    frames = [];
    for (let f = 0; f + 1 < F; f++) frames.push(f);
    horizon = F > 1 ? Math.min(cfg.horizonS, last - timesS[0]) : 0;
  }
  const detBy = rowsByFrame(det);
  const gtBy = rowsByFrame(gt);
  const perFrame: DtcResult['perFrame'] = [];
  for (const f of frames) {
    const path = egoPath(poses, timesS, f, cfg.horizonS);
    const g = (gtBy.get(f) ?? []).map((r) => boxAt(gt, r));
    const d = (detBy.get(f) ?? []).map((r) => boxAt(det, r));
    perFrame.push({
      frame: f,
      gt: distanceToCollision(g, path, cfg),
      det: distanceToCollision(d, path, cfg),
      pathM: path.s.length ? path.s[path.s.length - 1] : 0,
    });
  }
  if (perFrame.length === 0) {
    return {
      mean_abs_err_m: null,
      p95_abs_err_m: null,
      phantom_rate: null,
      missed_rate: null,
      frames: 0,
      horizon_s: horizon,
      perFrame,
    };
  }
  const errs = perFrame.map((p) => Math.abs(p.det - p.gt)).sort((a, b) => a - b);
  const n = perFrame.length;
  return {
    mean_abs_err_m: errs.reduce((a, b) => a + b, 0) / n,
    p95_abs_err_m: nearestRankOfSorted(errs, 0.95),
    phantom_rate: perFrame.filter((p) => p.det < p.gt - cfg.thresholdM).length / n,
    missed_rate: perFrame.filter((p) => p.gt < p.det - cfg.thresholdM).length / n,
    frames: n,
    horizon_s: horizon,
    perFrame,
  };
}
