// Training targets of the centre-based heads (CenterNet / CenterPoint): a Gaussian centre heatmap per
// output cell, and at each box's centre cell its sub-cell offset, z, log-size and doubled-angle yaw.
import type { Box3 } from '../../core/geometry/box.ts';
import type { BevGrid } from './bevGrid.ts';

/** Channel order of the regression head. */
export const REG_CHANNELS = [
  'offset_x',
  'offset_y',
  'z',
  'log_length',
  'log_width',
  'log_height',
  'sin_2yaw',
  'cos_2yaw',
] as const;
export const REG_CHANNEL_COUNT = REG_CHANNELS.length;

export interface TargetConfig {
  /** Smallest Gaussian radius in output cells (CenterPoint: 2). */
  minRadiusCells: number;
  /** IoU a box shifted by the radius still reaches with its label (CornerNet/CenterPoint: 0.1). */
  minOverlap: number;
  /**
   * Only cells and labels within this BEV distance of the ego supervise (OYSTER's near-range seeds:
   * 40 m); beyond it the loss is ignored, so objects the labels missed there are not taught as background.
   */
  labelRangeM: number;
  /**
   * Regressions are also taught at the cells within this Chebyshev distance of a centre, weighted by the
   * heatmap there (TTFNet-style): many more samples per object than the centre cell alone, and the box
   * stays right when a peak lands one cell off.
   */
  regressionRadiusCells: number;
}

export const DEFAULT_TARGET_CONFIG: TargetConfig = {
  minRadiusCells: 2,
  minOverlap: 0.1,
  labelRangeM: 40,
  regressionRadiusCells: 1,
};

/** The head's output grid: `grid` coarsened by the network's output stride. */
export function outputGrid(grid: BevGrid, stride: number): BevGrid {
  if (grid.rows % stride !== 0 || grid.cols % stride !== 0) {
    throw new Error(`grid ${grid.rows}×${grid.cols} is not divisible by the output stride ${stride}`);
  }
  return { ...grid, cellM: grid.cellM * stride, rows: grid.rows / stride, cols: grid.cols / stride };
}

/**
 * Largest corner displacement (in cells) that keeps IoU ≥ `overlap` with an l × w box, taking the
 * worst of the three cases of CornerNet (Law & Deng 2018): one corner in and one out, both in, both out.
 */
export function gaussianRadius(l: number, w: number, overlap: number): number {
  const s = l + w;
  const a = l * w;
  // Both corners move the same way: (l−r)(w−r) / (2lw − (l−r)(w−r)) ≥ o.
  const r1 = (s - Math.sqrt(Math.max(0, s * s - (4 * a * (1 - overlap)) / (1 + overlap)))) / 2;
  // Both inside: (l−2r)(w−2r) / lw ≥ o.
  const r2 = (2 * s - Math.sqrt(Math.max(0, 4 * s * s - 16 * (1 - overlap) * a))) / 8;
  // Both outside: lw / ((l+2r)(w+2r)) ≥ o.
  const r3 =
    (-2 * overlap * s + Math.sqrt(4 * overlap * overlap * s * s + 16 * overlap * (1 - overlap) * a)) /
    (8 * overlap);
  return Math.min(r1, r2, r3);
}

/** Per-sample target maps on the output grid, all [rows · cols] (regression: [8, rows, cols]). */
export interface TargetMaps {
  /** Gaussian heatmap in [0, 1]; exactly 1 at each label's centre cell. */
  heat: Float32Array;
  /** 1 at a label's centre cell. */
  centre: Uint8Array;
  /** 1 where the loss applies (within labelRangeM of the ego). */
  mask: Uint8Array;
  reg: Float32Array;
  /** Weight of the regression loss per cell (1 at centres, the heatmap value around them, 0 elsewhere). */
  regWeight: Float32Array;
  /** Labels drawn (centre inside the grid and the label range). */
  count: number;
}

export function allocateTargets(out: BevGrid): TargetMaps {
  const n = out.rows * out.cols;
  return {
    heat: new Float32Array(n),
    centre: new Uint8Array(n),
    mask: new Uint8Array(n),
    reg: new Float32Array(REG_CHANNEL_COUNT * n),
    regWeight: new Float32Array(n),
    count: 0,
  };
}

/**
 * Encode boxes (vehicle frame; heights from `groundZ`) on the output grid `out`. `egoX/egoY` is where the
 * ego sits in this (possibly augmented) frame and `rangeScale` how much the frame was scaled, so the label
 * range stays in the original metres. Boxes are drawn in order; a later box wins a shared centre cell.
 */
export function encodeTargets(
  boxes: readonly Box3[],
  out: BevGrid,
  groundZ: number,
  cfg: TargetConfig = DEFAULT_TARGET_CONFIG,
  ego: { x: number; y: number; rangeScale: number } = { x: 0, y: 0, rangeScale: 1 },
  maps: TargetMaps = allocateTargets(out),
): TargetMaps {
  const { rows, cols, cellM, xMinM, yMinM } = out;
  const n = rows * cols;
  maps.heat.fill(0);
  maps.centre.fill(0);
  maps.reg.fill(0);
  maps.regWeight.fill(0);
  maps.count = 0;
  const range = cfg.labelRangeM * ego.rangeScale;
  const range2 = range * range;
  for (let r = 0; r < rows; r++) {
    const dy = yMinM + (r + 0.5) * cellM - ego.y;
    for (let c = 0; c < cols; c++) {
      const dx = xMinM + (c + 0.5) * cellM - ego.x;
      maps.mask[r * cols + c] = dx * dx + dy * dy <= range2 ? 1 : 0;
    }
  }
  for (const b of boxes) {
    if (!(b.length > 0 && b.width > 0 && b.height > 0)) continue;
    if ((b.cx - ego.x) ** 2 + (b.cy - ego.y) ** 2 > range2) continue;
    const u = (b.cx - xMinM) / cellM;
    const v = (b.cy - yMinM) / cellM;
    const ci = Math.floor(u);
    const ri = Math.floor(v);
    if (!(ci >= 0 && ci < cols && ri >= 0 && ri < rows)) continue;
    const radius = Math.max(
      cfg.minRadiusCells,
      Math.floor(gaussianRadius(b.length / cellM, b.width / cellM, cfg.minOverlap)),
    );
    const sigma = (2 * radius + 1) / 6;
    const k2 = 1 / (2 * sigma * sigma);
    for (let dr = -radius; dr <= radius; dr++) {
      const rr = ri + dr;
      if (rr < 0 || rr >= rows) continue;
      for (let dc = -radius; dc <= radius; dc++) {
        const cc = ci + dc;
        if (cc < 0 || cc >= cols) continue;
        const g = Math.exp(-(dr * dr + dc * dc) * k2);
        const k = rr * cols + cc;
        if (g > maps.heat[k]) maps.heat[k] = g;
      }
    }
    const k = ri * cols + ci;
    maps.heat[k] = 1;
    if (!maps.centre[k]) maps.count++;
    maps.centre[k] = 1;
    const R = cfg.regressionRadiusCells;
    for (let dr = -R; dr <= R; dr++) {
      const rr = ri + dr;
      if (rr < 0 || rr >= rows) continue;
      for (let dc = -R; dc <= R; dc++) {
        const cc = ci + dc;
        if (cc < 0 || cc >= cols) continue;
        const kk = rr * cols + cc;
        // A cell belongs to the object whose Gaussian is strongest there (ties: the later box).
        const w = dr === 0 && dc === 0 ? 1 : Math.exp(-(dr * dr + dc * dc) * k2);
        if (w < maps.regWeight[kk]) continue;
        maps.regWeight[kk] = w;
        maps.reg[kk] = u - cc;
        maps.reg[n + kk] = v - rr;
        maps.reg[2 * n + kk] = b.cz - groundZ;
        maps.reg[3 * n + kk] = Math.log(b.length);
        maps.reg[4 * n + kk] = Math.log(b.width);
        maps.reg[5 * n + kk] = Math.log(b.height);
        // Doubled angle: a box and its 180°-turned twin are the same box, and unsupervised labels cannot
        // tell front from back, so the head learns an unambiguous π-periodic heading.
        maps.reg[6 * n + kk] = Math.sin(2 * b.yaw);
        maps.reg[7 * n + kk] = Math.cos(2 * b.yaw);
      }
    }
  }
  return maps;
}
