// The whole evaluation of a set of boxes against ground truth: AP by range (ap.ts) and DTC (dtc.ts), in
// the JSON shape `drivekit eval --json` prints, plus a text table for people.
import { type Boxes, concatBoxes, selectBoxes } from '../../core/arrow/records.ts';
import { type ApConfig, type ApResult, DEFAULT_AP_CONFIG, evaluateAp, bucketLabel } from './ap.ts';
import { DEFAULT_DTC_CONFIG, type DtcConfig, evaluateDtc } from './dtc.ts';
import { nearestRankOfSorted } from '../../core/stats.ts';

export interface EvalConfig {
  ap: ApConfig;
  dtc: DtcConfig;
  /**
   * Detections with a lower score are left out of DTC. null: the best-F1 threshold at the first BEV IoU
   * threshold (0.3), i.e. the operating point a planner would be given.
   */
  dtcScoreThreshold: number | null;
}

export const DEFAULT_EVAL_CONFIG: EvalConfig = {
  ap: DEFAULT_AP_CONFIG,
  dtc: DEFAULT_DTC_CONFIG,
  dtcScoreThreshold: null,
};

/** Ego motion the DTC needs: world_from_vehicle per frame and frame times. */
export interface EgoMotion {
  poses: Float64Array;
  timesS: Float64Array;
}

export interface EvalReport {
  ap: Record<'bev' | '3d', Record<string, Record<string, number | null>>>;
  best_f1: Record<
    'bev' | '3d',
    Record<string, { precision: number; recall: number; f1: number; score_threshold: number | null }>
  >;
  dtc: {
    mean_abs_err_m: number | null;
    p95_abs_err_m: number | null;
    phantom_rate: number | null;
    missed_rate: number | null;
    frames: number;
    horizon_s: number;
    score_threshold: number | null;
    /** Why DTC could not be computed, when it could not. */
    note?: string;
  };
  counts: {
    frames: number;
    gt_boxes: number;
    gt_ignored: number;
    pred_boxes: number;
    /** kind → threshold → bucket → [true positives, ground truth]. */
    tp_gt: Record<'bev' | '3d', Record<string, Record<string, [number, number]>>>;
  };
}

function resolve(config: EvalConfigInput): EvalConfig {
  return {
    ap: { ...DEFAULT_AP_CONFIG, ...config.ap },
    dtc: { ...DEFAULT_DTC_CONFIG, ...config.dtc },
    dtcScoreThreshold: config.dtcScoreThreshold ?? null,
  };
}

export type EvalConfigInput = {
  ap?: Partial<ApConfig>;
  dtc?: Partial<DtcConfig>;
  dtcScoreThreshold?: number | null;
};

/** One scored sequence: predictions, ground truth and the ego motion DTC needs (null: no DTC). */
export interface EvalSet {
  pred: Boxes;
  gt: Boxes;
  ego: EgoMotion | null;
  /** Ground-truth rows to treat as ignore boxes in AP (still obstacles for DTC). */
  gtIgnore?: Uint8Array | null;
}

export function evaluateBoxes(
  pred: Boxes,
  gt: Boxes,
  ego: EgoMotion | null,
  config: EvalConfigInput = {},
  gtIgnore: Uint8Array | null = null,
): EvalReport {
  return evaluateSets([{ pred, gt, ego, gtIgnore }], config);
}

/** Frame indices shifted so that several sequences can be pooled without their frames colliding. */
function shiftFrames(b: Boxes, offset: number): Boxes {
  return offset === 0 ? b : { ...b, frameIndex: Int32Array.from(b.frameIndex, (f) => f + offset) };
}

/**
 * Evaluate one or several sequences pooled: AP over all their frames together (one precision/recall
 * curve), DTC over all their scored frames, at one score threshold.
 */
export function evaluateSets(sets: readonly EvalSet[], config: EvalConfigInput = {}): EvalReport {
  const cfg = resolve(config);
  // Pool AP: frames of later sets follow those of earlier ones.
  const preds: Boxes[] = [];
  const gts: Boxes[] = [];
  const ignores: Uint8Array[] = [];
  let offset = 0;
  for (const s of sets) {
    preds.push(shiftFrames(s.pred, offset));
    gts.push(shiftFrames(s.gt, offset));
    ignores.push(s.gtIgnore ?? new Uint8Array(s.gt.cx.length));
    let maxFrame = -1;
    for (const f of s.pred.frameIndex) maxFrame = Math.max(maxFrame, f);
    for (const f of s.gt.frameIndex) maxFrame = Math.max(maxFrame, f);
    if (s.ego) maxFrame = Math.max(maxFrame, s.ego.timesS.length - 1);
    offset += maxFrame + 1;
  }
  const pred = sets.length === 1 ? preds[0] : concatBoxes(preds);
  const gt = sets.length === 1 ? gts[0] : concatBoxes(gts);
  const ignore = new Uint8Array(gt.cx.length);
  let k = 0;
  for (const ig of ignores) {
    ignore.set(ig, k);
    k += ig.length;
  }
  const apRes: ApResult = evaluateAp(pred, gt, cfg.ap, ignore);
  const report: EvalReport = {
    ap: { bev: {}, '3d': {} },
    best_f1: { bev: {}, '3d': {} },
    dtc: {
      mean_abs_err_m: null,
      p95_abs_err_m: null,
      phantom_rate: null,
      missed_rate: null,
      frames: 0,
      horizon_s: 0,
      score_threshold: null,
    },
    counts: {
      frames: apRes.frames,
      gt_boxes: apRes.gtBoxes,
      gt_ignored: apRes.gtIgnored,
      pred_boxes: apRes.predBoxes,
      tp_gt: { bev: {}, '3d': {} },
    },
  };
  for (const kind of ['bev', '3d'] as const) {
    for (const [thr, table] of Object.entries(apRes.ap[kind])) {
      report.ap[kind][thr] = Object.fromEntries(Object.entries(table).map(([b, e]) => [b, e.ap]));
      report.counts.tp_gt[kind][thr] = Object.fromEntries(
        Object.entries(table).map(([b, e]) => [b, [e.tp, e.gt]]),
      );
      const best = apRes.bestF1[kind][thr];
      report.best_f1[kind][thr] = {
        precision: best.precision,
        recall: best.recall,
        f1: best.f1,
        score_threshold: Number.isFinite(best.scoreThreshold) ? best.scoreThreshold : null,
      };
    }
  }
  const firstBev = String(cfg.ap.bevThresholds[0]);
  const thr = cfg.dtcScoreThreshold ?? report.best_f1.bev[firstBev]?.score_threshold ?? null;
  report.dtc.score_threshold = thr;
  const withEgo = sets.filter((s) => s.ego);
  if (withEgo.length === 0) {
    report.dtc.note = 'ground truth has no ego poses (not a log): DTC needs the logged future path';
    return report;
  }
  const perFrame: { gt: number; det: number }[] = [];
  let horizon = Infinity;
  for (const s of withEgo) {
    const keepDet: number[] = [];
    for (let i = 0; i < s.pred.cx.length; i++) if (thr !== null && s.pred.score[i] >= thr) keepDet.push(i);
    // The same ground truth AP scores: boxes with too few points cannot be seen and are left out.
    const keepGt: number[] = [];
    for (let i = 0; i < s.gt.cx.length; i++)
      if (!(s.gt.numPoints[i] >= 0 && s.gt.numPoints[i] < cfg.ap.minGtPoints)) keepGt.push(i);
    const d = evaluateDtc(
      selectBoxes(s.pred, keepDet),
      selectBoxes(s.gt, keepGt),
      s.ego!.poses,
      s.ego!.timesS,
      cfg.dtc,
    );
    perFrame.push(...d.perFrame);
    if (d.frames > 0) horizon = Math.min(horizon, d.horizon_s);
  }
  report.dtc.frames = perFrame.length;
  if (perFrame.length === 0) {
    report.dtc.note = 'no frame has a logged future';
    return report;
  }
  const errs = perFrame.map((p) => Math.abs(p.det - p.gt)).sort((a, b) => a - b);
  const n = perFrame.length;
  Object.assign(report.dtc, {
    mean_abs_err_m: errs.reduce((a, b) => a + b, 0) / n,
    p95_abs_err_m: nearestRankOfSorted(errs, 0.95),
    phantom_rate: perFrame.filter((p) => p.det < p.gt - cfg.dtc.thresholdM).length / n,
    missed_rate: perFrame.filter((p) => p.gt < p.det - cfg.dtc.thresholdM).length / n,
    horizon_s: horizon,
  });
  return report;
}

/** A fraction as percent with one decimal: every human-readable AP, F1, precision and recall (docs/cli.md). */
const pct = (v: number | null) => (v === null ? '   –  ' : (100 * v).toFixed(1).padStart(6));

/**
 * The report as aligned text: one AP row per kind and threshold, then best-F1 and DTC. Shares print in
 * percent here; the report object (and --json) holds fractions.
 */
export function formatEvalReport(
  r: EvalReport,
  buckets: [number, number][] = DEFAULT_AP_CONFIG.bucketsM,
): string {
  const cols = [...buckets.map(bucketLabel), 'all'];
  const lines = [`AP % (class-agnostic)${cols.map((c) => c.padStart(8)).join('')}`];
  for (const kind of ['bev', '3d'] as const) {
    for (const [thr, table] of Object.entries(r.ap[kind])) {
      const name = `${kind === 'bev' ? 'BEV' : '3D'} IoU ${thr}`.padEnd(21);
      lines.push(name + cols.map((c) => pct(table[c] ?? null).padStart(8)).join(''));
    }
  }
  lines.push(
    `ground truth: ${r.counts.gt_boxes} boxes (${r.counts.gt_ignored} ignored: too few points / outside view), predictions: ${r.counts.pred_boxes}, frames: ${r.counts.frames}`,
  );
  for (const kind of ['bev', '3d'] as const) {
    for (const [thr, b] of Object.entries(r.best_f1[kind])) {
      lines.push(
        `best F1 ${kind === 'bev' ? 'BEV' : '3D'} ${thr}: F1 ${(100 * b.f1).toFixed(1)}%  precision ${(100 * b.precision).toFixed(1)}%  recall ${(100 * b.recall).toFixed(1)}%  at score ≥ ${b.score_threshold === null ? '–' : b.score_threshold.toFixed(3)}`,
      );
    }
  }
  const d = r.dtc;
  if (d.mean_abs_err_m === null) lines.push(`DTC: n/a${d.note ? ` (${d.note})` : ''}`);
  else
    lines.push(
      `DTC over ${d.frames} frames (${d.horizon_s.toFixed(1)} s horizon, score ≥ ${d.score_threshold?.toFixed(3) ?? '–'}): |err| mean ${d.mean_abs_err_m.toFixed(2)} m, p95 ${d.p95_abs_err_m!.toFixed(2)} m, phantom ${(100 * d.phantom_rate!).toFixed(1)}%, missed ${(100 * d.missed_rate!).toFixed(1)}%`,
    );
  return lines.join('\n');
}
