// Decoding of the centre-based heads into boxes (CenterNet/CenterPoint): heatmap peaks (3 × 3 local
// maxima) above a score, the regression read at each peak, then rotated-box NMS.
import { allocateBoxes, type Boxes } from '../../core/arrow/records.ts';
import type { Box3 } from '../../core/geometry/box.ts';
import type { BevGrid } from './bevGrid.ts';
import { rotatedNms } from './nms.ts';

export interface DecodeConfig {
  /** Peaks with a lower sigmoid score are dropped. */
  scoreThreshold: number;
  /** Best peaks decoded before NMS. */
  maxCandidates: number;
  /** BEV IoU above which the lower-scored of two boxes is suppressed. */
  nmsIou: number;
  /** Boxes kept per sweep after NMS. */
  maxDetections: number;
  /** Log-sizes are clamped to this range before exp (a 0.05–20 m box at most). */
  logSizeMin: number;
  logSizeMax: number;
}

export const DEFAULT_DECODE_CONFIG: DecodeConfig = {
  scoreThreshold: 0.05,
  maxCandidates: 500,
  nmsIou: 0.1,
  maxDetections: 300,
  logSizeMin: Math.log(0.05),
  logSizeMax: Math.log(20),
};

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** One peak's box and score, before NMS. */
export interface Candidate extends Box3 {
  score: number;
}

/**
 * Peaks of the heatmap logits `heat` ([rows·cols] at `offset`) and their boxes from `reg` ([8, rows, cols]
 * at `regOffset`), best first. A peak is a cell whose logit is ≥ its 8 neighbours (strictly greater than
 * those before it in scan order, so a plateau yields one peak).
 */
export function decodeCandidates(
  heat: Float32Array,
  reg: Float32Array,
  out: BevGrid,
  groundZ: number,
  cfg: DecodeConfig = DEFAULT_DECODE_CONFIG,
  offset = 0,
  regOffset = 0,
): Candidate[] {
  const { rows, cols, cellM, xMinM, yMinM } = out;
  const n = rows * cols;
  // Compare logits, not probabilities: sigmoid is monotone and this skips n exp() calls.
  const thr = Math.log(cfg.scoreThreshold / (1 - cfg.scoreThreshold));
  const peaks: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const k = r * cols + c;
      const v = heat[offset + k];
      if (!(v >= thr)) continue;
      let peak = true;
      for (let dr = -1; dr <= 1 && peak; dr++) {
        const rr = r + dr;
        if (rr < 0 || rr >= rows) continue;
        for (let dc = -1; dc <= 1; dc++) {
          const cc = c + dc;
          if ((dr === 0 && dc === 0) || cc < 0 || cc >= cols) continue;
          const u = heat[offset + rr * cols + cc];
          const before = dr < 0 || (dr === 0 && dc < 0);
          if (u > v || (before && u === v)) {
            peak = false;
            break;
          }
        }
      }
      if (peak) peaks.push(k);
    }
  }
  peaks.sort((a, b) => heat[offset + b] - heat[offset + a]);
  if (peaks.length > cfg.maxCandidates) peaks.length = cfg.maxCandidates;
  const clampLog = (v: number) => Math.exp(Math.min(cfg.logSizeMax, Math.max(cfg.logSizeMin, v)));
  return peaks.map((k) => {
    const r = Math.floor(k / cols);
    const c = k - r * cols;
    const at = (ch: number) => reg[regOffset + ch * n + k];
    return {
      cx: xMinM + (c + at(0)) * cellM,
      cy: yMinM + (r + at(1)) * cellM,
      cz: at(2) + groundZ,
      length: clampLog(at(3)),
      width: clampLog(at(4)),
      height: clampLog(at(5)),
      yaw: Math.atan2(at(6), at(7)) / 2,
      score: sigmoid(heat[offset + k]),
    };
  });
}

/** Candidates → NMS → Boxes of frame `frameIndex` (label 'object', track −1, numPoints unknown). */
export function decodeBoxes(
  heat: Float32Array,
  reg: Float32Array,
  out: BevGrid,
  groundZ: number,
  frameIndex: number,
  cfg: DecodeConfig = DEFAULT_DECODE_CONFIG,
  offset = 0,
  regOffset = 0,
): Boxes {
  const cands = decodeCandidates(heat, reg, out, groundZ, cfg, offset, regOffset);
  const keep = rotatedNms(
    cands,
    cands.map((c) => c.score),
    cfg.nmsIou,
    cfg.maxDetections,
  );
  return candidatesToBoxes(
    keep.map((i) => cands[i]),
    frameIndex,
  );
}

export function candidatesToBoxes(cands: readonly Candidate[], frameIndex: number): Boxes {
  const b = allocateBoxes(cands.length);
  cands.forEach((c, i) => {
    b.frameIndex[i] = frameIndex;
    b.score[i] = c.score;
    b.cx[i] = c.cx;
    b.cy[i] = c.cy;
    b.cz[i] = c.cz;
    b.length[i] = c.length;
    b.width[i] = c.width;
    b.height[i] = c.height;
    b.yaw[i] = c.yaw;
  });
  return b;
}
