// The whole evaluation of a set of boxes against ground truth: AP by range (ap.ts) and DTC (dtc.ts), in
// the JSON shape `drivekit eval --json` prints, plus a text table for people.
import { type Boxes, selectBoxes } from '../../core/arrow/records.ts';
import { type ApConfig, type ApResult, DEFAULT_AP_CONFIG, evaluateAp, bucketLabel } from './ap.ts';
import { DEFAULT_DTC_CONFIG, type DtcConfig, evaluateDtc } from './dtc.ts';

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

function resolve(config: {
  ap?: Partial<ApConfig>;
  dtc?: Partial<DtcConfig>;
  dtcScoreThreshold?: number | null;
}): EvalConfig {
  return {
    ap: { ...DEFAULT_AP_CONFIG, ...config.ap },
    dtc: { ...DEFAULT_DTC_CONFIG, ...config.dtc },
    dtcScoreThreshold: config.dtcScoreThreshold ?? null,
  };
}

export function evaluateBoxes(
  pred: Boxes,
  gt: Boxes,
  ego: EgoMotion | null,
  config: { ap?: Partial<ApConfig>; dtc?: Partial<DtcConfig>; dtcScoreThreshold?: number | null } = {},
  /** Ground-truth rows to treat as ignore boxes in AP (still obstacles for DTC). */
  gtIgnore: Uint8Array | null = null,
): EvalReport {
  const cfg = resolve(config);
  const apRes: ApResult = evaluateAp(pred, gt, cfg.ap, gtIgnore);
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
  if (!ego) {
    report.dtc.note = 'ground truth has no ego poses (not a log): DTC needs the logged future path';
    return report;
  }
  const keepDet: number[] = [];
  for (let i = 0; i < pred.cx.length; i++) if (thr === null ? false : pred.score[i] >= thr) keepDet.push(i);
  // The same ground truth AP scores: boxes with too few points cannot be seen and are left out.
  const keepGt: number[] = [];
  for (let i = 0; i < gt.cx.length; i++)
    if (!(gt.numPoints[i] >= 0 && gt.numPoints[i] < cfg.ap.minGtPoints)) keepGt.push(i);
  const d = evaluateDtc(selectBoxes(pred, keepDet), selectBoxes(gt, keepGt), ego.poses, ego.timesS, cfg.dtc);
  Object.assign(report.dtc, {
    mean_abs_err_m: d.mean_abs_err_m,
    p95_abs_err_m: d.p95_abs_err_m,
    phantom_rate: d.phantom_rate,
    missed_rate: d.missed_rate,
    frames: d.frames,
    horizon_s: d.horizon_s,
  });
  if (d.frames === 0) report.dtc.note = 'no frame has a logged future';
  return report;
}

const fmt = (v: number | null, digits = 3) => (v === null ? '   –  ' : v.toFixed(digits).padStart(6));

/** The report as aligned text: one AP row per kind and threshold, then best-F1 and DTC. */
export function formatEvalReport(
  r: EvalReport,
  buckets: [number, number][] = DEFAULT_AP_CONFIG.bucketsM,
): string {
  const cols = [...buckets.map(bucketLabel), 'all'];
  const lines = [`AP (class-agnostic)  ${cols.map((c) => c.padStart(8)).join('')}`];
  for (const kind of ['bev', '3d'] as const) {
    for (const [thr, table] of Object.entries(r.ap[kind])) {
      const name = `${kind === 'bev' ? 'BEV' : '3D'} IoU ${thr}`.padEnd(21);
      lines.push(name + cols.map((c) => fmt(table[c] ?? null).padStart(8)).join(''));
    }
  }
  lines.push(
    `ground truth: ${r.counts.gt_boxes} boxes (${r.counts.gt_ignored} ignored: too few points / outside view), predictions: ${r.counts.pred_boxes}, frames: ${r.counts.frames}`,
  );
  for (const kind of ['bev', '3d'] as const) {
    for (const [thr, b] of Object.entries(r.best_f1[kind])) {
      lines.push(
        `best F1 ${kind === 'bev' ? 'BEV' : '3D'} ${thr}: F1 ${b.f1.toFixed(3)}  precision ${b.precision.toFixed(3)}  recall ${b.recall.toFixed(3)}  at score ≥ ${b.score_threshold === null ? '–' : b.score_threshold.toFixed(3)}`,
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
