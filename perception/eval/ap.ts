// Class-agnostic average precision of 3D boxes by range bucket (OYSTER's protocol): greedy matching by score
// at BEV or 3D IoU thresholds, all-point interpolated AP (PASCAL VOC 2010+), and the best-F1 operating point.
import { type Boxes, boxAt, rowsByFrame } from '../../core/arrow/records.ts';
import type { Box3 } from '../../core/geometry/box.ts';
import { bevIntersectionArea } from '../../core/geometry/iou.ts';

export interface ApConfig {
  /** BEV IoU thresholds. */
  bevThresholds: number[];
  /** 3D IoU thresholds. */
  iou3dThresholds: number[];
  /** Range buckets [lo, hi) in metres of BEV distance from the ego (vehicle-frame origin) to the box centre. */
  bucketsM: [number, number][];
  /**
   * Ground-truth boxes with fewer LiDAR points than this are "ignore" boxes (KITTI/Waymo practice: a
   * box with no points cannot be detected from LiDAR): they count neither as missed nor, when a
   * prediction matches them, as false positives. Boxes whose point count is unknown (−1) are kept.
   */
  minGtPoints: number;
  /** Optional azimuth limit (degrees either side of +x) for sources labelled only in a camera's view. */
  halfFovDeg: number | null;
}

export const DEFAULT_AP_CONFIG: ApConfig = {
  bevThresholds: [0.3, 0.5],
  iou3dThresholds: [0.3],
  bucketsM: [
    [0, 30],
    [30, 50],
    [50, 80],
  ],
  minGtPoints: 1,
  halfFovDeg: null,
};

export interface PrPoint {
  precision: number;
  recall: number;
  f1: number;
  /** Keep predictions with score ≥ this to operate here. */
  scoreThreshold: number;
  tp: number;
  fp: number;
  gt: number;
}

export interface ApEntry {
  /** null when the bucket holds no ground truth. */
  ap: number | null;
  gt: number;
  predictions: number;
  tp: number;
}

export interface ApResult {
  /** kind ('bev' | '3d') → threshold label ('0.3') → bucket label ('0-30', …, 'all') → entry. */
  ap: Record<'bev' | '3d', Record<string, Record<string, ApEntry>>>;
  /** Best-F1 operating point over all ranges, per kind and threshold. */
  bestF1: Record<'bev' | '3d', Record<string, PrPoint>>;
  frames: number;
  gtBoxes: number;
  gtIgnored: number;
  predBoxes: number;
}

export const bucketLabel = ([lo, hi]: [number, number]): string => `${lo}-${hi}`;

interface Scored {
  score: number;
  tp: boolean;
}

function rangeOf(b: Box3): number {
  return Math.hypot(b.cx, b.cy);
}

/** Index of the bucket a range falls in, or −1 outside every bucket. */
function bucketOf(r: number, buckets: [number, number][]): number {
  for (let k = 0; k < buckets.length; k++) if (r >= buckets[k][0] && r < buckets[k][1]) return k;
  return -1;
}

function inFov(b: Box3, halfFovDeg: number | null): boolean {
  if (halfFovDeg === null) return true;
  return Math.abs(Math.atan2(b.cy, b.cx)) <= (halfFovDeg * Math.PI) / 180;
}

/** All-point interpolated AP from score-sorted TP flags; also the best-F1 point. */
export function averagePrecision(items: Scored[], nGt: number): { ap: number | null; best: PrPoint } {
  const sorted = items.slice().sort((a, b) => b.score - a.score);
  const best: PrPoint = { precision: 0, recall: 0, f1: 0, scoreThreshold: Infinity, tp: 0, fp: 0, gt: nGt };
  if (nGt === 0) return { ap: null, best };
  const prec: number[] = [];
  const rec: number[] = [];
  let tp = 0;
  let fp = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i].tp) tp++;
    else fp++;
    // Only the last of equal scores is an operating point: ties cannot be split by a threshold.
    if (i + 1 < sorted.length && sorted[i + 1].score === sorted[i].score) continue;
    const p = tp / (tp + fp);
    const r = tp / nGt;
    prec.push(p);
    rec.push(r);
    const f1 = p + r > 0 ? (2 * p * r) / (p + r) : 0;
    if (f1 > best.f1)
      Object.assign(best, { precision: p, recall: r, f1, scoreThreshold: sorted[i].score, tp, fp });
  }
  // Precision envelope from the right, then the area under the step curve.
  for (let i = prec.length - 2; i >= 0; i--) prec[i] = Math.max(prec[i], prec[i + 1]);
  let ap = 0;
  let prevR = 0;
  for (let i = 0; i < prec.length; i++) {
    ap += (rec[i] - prevR) * prec[i];
    prevR = rec[i];
  }
  return { ap, best };
}

/**
 * Score predictions against ground truth, both in the vehicle frame of their frame_index. Every
 * prediction is matched once per threshold (highest score first, to the unmatched valid ground truth of
 * highest IoU ≥ threshold); a true positive counts in its ground truth's range bucket, a false positive
 * in its own. Predictions and ground truth beyond the last bucket are not scored.
 */
export function evaluateAp(
  pred: Boxes,
  gt: Boxes,
  config: Partial<ApConfig> = {},
  /** 1 marks ground-truth rows to treat as ignore boxes (e.g. classes left out of the evaluation). */
  gtIgnore: Uint8Array | null = null,
): ApResult {
  const cfg: ApConfig = { ...DEFAULT_AP_CONFIG, ...config };
  const buckets = cfg.bucketsM;
  const maxR = Math.max(...buckets.map((b) => b[1]));
  const minR = Math.min(...buckets.map((b) => b[0]));
  const predBy = rowsByFrame(pred);
  const gtBy = rowsByFrame(gt);
  const frames = new Set<number>([...predBy.keys(), ...gtBy.keys()]);
  const kinds: { kind: 'bev' | '3d'; thr: number }[] = [
    ...cfg.bevThresholds.map((thr) => ({ kind: 'bev' as const, thr })),
    ...cfg.iou3dThresholds.map((thr) => ({ kind: '3d' as const, thr })),
  ];
  // Per (kind, threshold): scored items and GT count per bucket.
  const items = kinds.map(() => buckets.map(() => [] as Scored[]));
  const nGt = buckets.map(() => 0);
  let gtIgnored = 0;
  let gtBoxes = 0;
  let predBoxes = 0;
  for (const f of frames) {
    const gRows = gtBy.get(f) ?? [];
    const pRows = (predBy.get(f) ?? []).slice().sort((a, b) => pred.score[b] - pred.score[a]);
    const g = gRows.map((r) => boxAt(gt, r));
    const p = pRows.map((r) => boxAt(pred, r));
    // Valid ground truth: enough points, inside the scored ranges and field of view; the rest are ignore boxes.
    const gBucket = g.map((b) => bucketOf(rangeOf(b), buckets));
    const valid = g.map(
      (b, j) =>
        gBucket[j] >= 0 &&
        inFov(b, cfg.halfFovDeg) &&
        !(gtIgnore && gtIgnore[gRows[j]]) &&
        !(gt.numPoints[gRows[j]] >= 0 && gt.numPoints[gRows[j]] < cfg.minGtPoints),
    );
    for (let j = 0; j < g.length; j++) {
      if (valid[j]) {
        nGt[gBucket[j]]++;
        gtBoxes++;
      } else if (rangeOf(g[j]) < maxR && rangeOf(g[j]) >= minR) gtIgnored++;
    }
    const pBucket = p.map((b) => (inFov(b, cfg.halfFovDeg) ? bucketOf(rangeOf(b), buckets) : -1));
    predBoxes += pBucket.filter((k) => k >= 0).length;
    // BEV intersection areas once; both IoUs derive from them.
    const bevIou = new Float64Array(p.length * g.length);
    const iou3 = new Float64Array(p.length * g.length);
    for (let i = 0; i < p.length; i++) {
      for (let j = 0; j < g.length; j++) {
        const inter = bevIntersectionArea(p[i], g[j]);
        if (inter <= 0) continue;
        const a = p[i];
        const b = g[j];
        bevIou[i * g.length + j] = inter / (a.length * a.width + b.length * b.width - inter);
        const zo =
          Math.min(a.cz + a.height / 2, b.cz + b.height / 2) -
          Math.max(a.cz - a.height / 2, b.cz - b.height / 2);
        if (zo > 0) {
          const vi = inter * zo;
          iou3[i * g.length + j] = vi / (a.length * a.width * a.height + b.length * b.width * b.height - vi);
        }
      }
    }
    kinds.forEach(({ kind, thr }, ki) => {
      const iou = kind === 'bev' ? bevIou : iou3;
      const taken = new Uint8Array(g.length);
      for (let i = 0; i < p.length; i++) {
        let bestJ = -1;
        let bestIou = thr;
        let ignoreHit = false;
        for (let j = 0; j < g.length; j++) {
          const v = iou[i * g.length + j];
          if (v < thr) continue;
          if (!valid[j]) {
            ignoreHit = true;
            continue;
          }
          if (!taken[j] && v >= bestIou) {
            bestIou = v;
            bestJ = j;
          }
        }
        if (bestJ >= 0) {
          taken[bestJ] = 1;
          items[ki][gBucket[bestJ]].push({ score: pred.score[pRows[i]], tp: true });
        } else if (!ignoreHit && pBucket[i] >= 0) {
          items[ki][pBucket[i]].push({ score: pred.score[pRows[i]], tp: false });
        }
      }
    });
  }
  const result: ApResult = {
    ap: { bev: {}, '3d': {} },
    bestF1: { bev: {}, '3d': {} },
    frames: frames.size,
    gtBoxes,
    gtIgnored,
    predBoxes,
  };
  kinds.forEach(({ kind, thr }, ki) => {
    const label = String(thr);
    const table: Record<string, ApEntry> = {};
    const all: Scored[] = [];
    buckets.forEach((b, k) => {
      const res = averagePrecision(items[ki][k], nGt[k]);
      table[bucketLabel(b)] = {
        ap: res.ap,
        gt: nGt[k],
        predictions: items[ki][k].length,
        tp: items[ki][k].filter((s) => s.tp).length,
      };
      all.push(...items[ki][k]);
    });
    const totalGt = nGt.reduce((a, b) => a + b, 0);
    const overall = averagePrecision(all, totalGt);
    table.all = { ap: overall.ap, gt: totalGt, predictions: all.length, tp: all.filter((s) => s.tp).length };
    result.ap[kind][label] = table;
    result.bestF1[kind][label] = overall.best;
  });
  return result;
}
