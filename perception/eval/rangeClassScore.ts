// The real-data protocol of issue 18: class-agnostic AP at BEV IoU 0.3 by range (0–40 m, 40–80 m) pooled
// over frames of several sets, plus recall per class group (0–80 m), with each set's camera view applied.
import { type Boxes, selectBoxes } from '../../core/arrow/records.ts';
import { evaluateSets, type EvalSet } from './evaluate.ts';
import { CLASS_GROUPS, type ClassGroup, classGroupOf } from './classGroups.ts';

/** Range buckets of the protocol and the IoU at which boxes match. */
export const RANGE_CLASS_PROTOCOL = {
  bucketsM: [
    [0, 40],
    [40, 80],
  ] as [number, number][],
  bevIou: 0.3,
};

export interface ScoredSet {
  pred: Boxes;
  /** Ground truth with its point counts filled in (boxes with none are ignore boxes). */
  gt: Boxes;
  /** Azimuth limit either side of +x for sets labelled only in a camera's view (KITTI: 45°). */
  halfFovDeg: number | null;
}

export interface RangeClassScore {
  /** AP at BEV IoU 0.3 per bucket ('0-40', '40-80') and over both ('all'); null without ground truth. */
  ap: Record<string, number | null>;
  /** Per class group, over 0–80 m: ground truth matched by any prediction (any score) and the total. */
  recall: Record<ClassGroup, { tp: number; gt: number }>;
  /** Scored ground truth per bucket. */
  gt: Record<string, number>;
  frames: number;
  predictions: number;
}

const inFov = (x: number, y: number, halfFovDeg: number | null) =>
  halfFovDeg === null || Math.abs(Math.atan2(y, x)) <= (halfFovDeg * Math.PI) / 180;

/** A set as evaluateSets takes it: predictions outside the view dropped, ground truth there ignored. */
function toEvalSet(s: ScoredSet, keepGroup: ClassGroup | null): EvalSet {
  const keep: number[] = [];
  for (let i = 0; i < s.pred.cx.length; i++)
    if (inFov(s.pred.cx[i], s.pred.cy[i], s.halfFovDeg)) keep.push(i);
  const ignore = new Uint8Array(s.gt.cx.length);
  for (let i = 0; i < ignore.length; i++) {
    const outside = !inFov(s.gt.cx[i], s.gt.cy[i], s.halfFovDeg);
    const otherGroup = keepGroup !== null && classGroupOf(s.gt.label[i]) !== keepGroup;
    if (outside || otherGroup) ignore[i] = 1;
  }
  return { pred: selectBoxes(s.pred, keep), gt: s.gt, ego: null, gtIgnore: ignore };
}

/** Score one or several sets pooled (one precision/recall curve over all their frames). */
export function scoreRangeClass(sets: readonly ScoredSet[]): RangeClassScore {
  const { bucketsM, bevIou } = RANGE_CLASS_PROTOCOL;
  const cfg = { ap: { bevThresholds: [bevIou], iou3dThresholds: [], bucketsM, halfFovDeg: null } };
  const thr = String(bevIou);
  const all = evaluateSets(
    sets.map((s) => toEvalSet(s, null)),
    cfg,
  );
  const recall = {} as RangeClassScore['recall'];
  for (const g of CLASS_GROUPS) {
    const r = evaluateSets(
      sets.map((s) => toEvalSet(s, g)),
      cfg,
    );
    const [tp, gt] = r.counts.tp_gt.bev[thr].all;
    recall[g] = { tp, gt };
  }
  const gt: Record<string, number> = {};
  for (const [b, [, n]] of Object.entries(all.counts.tp_gt.bev[thr])) gt[b] = n;
  return {
    ap: all.ap.bev[thr],
    recall,
    gt,
    frames: all.counts.frames,
    predictions: all.counts.pred_boxes,
  };
}
