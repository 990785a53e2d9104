// Bird's-eye-view picture of one sweep for the perception report: points (ground light, clustered dark),
// ground-truth boxes and discovered boxes as outlines, range rings every 10 m. PNG through canvas.ts.
import type { Boxes } from '../../core/arrow/records.ts';
import { boxAt } from '../../core/arrow/records.ts';
import { boxCornersBev } from '../../core/geometry/box.ts';
import { type Canvas, canvasToPng, createCanvas, drawLine, drawText, type Rgb, setPixel } from './canvas.ts';

export interface BevPlotOptions {
  /** Half extent of the square view around the ego (metres). */
  halfExtentM: number;
  pixels: number;
  title?: string;
}

export interface BevLayers {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  /** 1 for ground points (drawn lighter); null: all points alike. */
  isGround?: ArrayLike<number> | null;
  /** ≥ 0 for clustered points (drawn darker). */
  clusterOf?: ArrayLike<number> | null;
  gt?: { boxes: Boxes; frame: number } | null;
  pred?: { boxes: Boxes; frame: number; minScore?: number } | null;
}

const GT: Rgb = [20, 160, 60];
const PRED: Rgb = [220, 40, 40];

function outline(
  c: Canvas,
  b: Boxes,
  i: number,
  toPx: (x: number, y: number) => [number, number],
  color: Rgb,
  width: number,
) {
  const k = boxCornersBev(boxAt(b, i));
  for (let e = 0; e < 4; e++) {
    const [x0, y0] = toPx(k[2 * e], k[2 * e + 1]);
    const [x1, y1] = toPx(k[(2 * e + 2) % 8], k[(2 * e + 3) % 8]);
    drawLine(c, x0, y0, x1, y1, color, width);
  }
  // Heading tick from the centre to the front edge.
  const [cx, cy] = toPx(b.cx[i], b.cy[i]);
  const [fx, fy] = toPx((k[0] + k[2]) / 2, (k[1] + k[3]) / 2);
  drawLine(c, cx, cy, fx, fy, color, 1);
}

/** Render the layers as a PNG (x forward = up, y left = left). */
export function renderBev(layers: BevLayers, opts: BevPlotOptions): Buffer {
  const P = opts.pixels;
  const s = P / (2 * opts.halfExtentM);
  const c = createCanvas(P, P, [255, 255, 255]);
  const toPx = (x: number, y: number): [number, number] => [P / 2 - y * s, P / 2 - x * s];
  for (let r = 10; r <= opts.halfExtentM * 1.5; r += 10) {
    const steps = Math.ceil(2 * Math.PI * r * s);
    for (let k = 0; k < steps; k++) {
      const a = (2 * Math.PI * k) / steps;
      const [px, py] = toPx(r * Math.cos(a), r * Math.sin(a));
      setPixel(c, px, py, [200, 200, 220]);
    }
  }
  const n = layers.x.length;
  for (let i = 0; i < n; i++) {
    const [px, py] = toPx(layers.x[i], layers.y[i]);
    if (layers.isGround && layers.isGround[i]) setPixel(c, px, py, [190, 190, 190], 0.5);
    else if (layers.clusterOf && layers.clusterOf[i] >= 0) setPixel(c, px, py, [30, 60, 160]);
    else setPixel(c, px, py, [90, 90, 90], 0.8);
  }
  if (layers.gt) {
    const b = layers.gt.boxes;
    for (let i = 0; i < b.cx.length; i++)
      if (b.frameIndex[i] === layers.gt.frame) outline(c, b, i, toPx, GT, 2);
  }
  if (layers.pred) {
    const b = layers.pred.boxes;
    const min = layers.pred.minScore ?? -Infinity;
    for (let i = 0; i < b.cx.length; i++)
      if (b.frameIndex[i] === layers.pred.frame && b.score[i] >= min) outline(c, b, i, toPx, PRED, 1);
  }
  // Ego marker and legend.
  const [ex, ey] = toPx(0, 0);
  drawLine(c, ex, ey + 6, ex, ey - 8, [0, 0, 0], 2);
  if (opts.title) drawText(c, 6, 6, opts.title, [0, 0, 0], 2);
  drawText(c, 6, P - 34, 'GROUND TRUTH', GT, 2);
  drawText(c, 6, P - 16, 'DISCOVERED', PRED, 2);
  return canvasToPng(c);
}
