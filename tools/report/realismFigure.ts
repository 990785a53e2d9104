// The realism figure: BEV of a synthetic and a KITTI sweep coloured by height (with the synthetic labels),
// range histograms of both, and points per object against distance, as a PNG.
import { type Boxes, type PointCloud, boxAt } from '../../core/arrow/records.ts';
import { boxCornersBev } from '../../core/geometry/box.ts';
import { type Canvas, type Rgb, canvasToPng, createCanvas, drawLine, drawText, setPixel } from './canvas.ts';
import { type Panel, drawLegend, drawPanel, plotLine, plotPoints } from './chart.ts';
import { REALISM, type RealismReport } from './realismStats.ts';

const SYN: Rgb = [230, 120, 20];
const REAL: Rgb = [30, 90, 200];

function heightColor(z: number): Rgb {
  // Sensor frame: ground near −1.73 m. Grey ground, then green → yellow → red with height.
  const h = z + 1.73;
  if (h < 0.25) return [150, 150, 150];
  const t = Math.min(1, (h - 0.25) / 3);
  return [Math.round(60 + 190 * t), Math.round(170 - 60 * t), Math.round(60 - 40 * t)];
}

function drawBev(
  c: Canvas,
  left: number,
  top: number,
  size: number,
  p: PointCloud,
  title: string,
  boxes?: Boxes,
  frame?: number,
): void {
  const half = 50;
  const s = size / (2 * half);
  const toPx = (x: number, y: number): [number, number] => [left + size / 2 - y * s, top + size / 2 - x * s];
  for (let i = 0; i < p.x.length; i++) {
    if (Math.abs(p.x[i]) > half || Math.abs(p.y[i]) > half) continue;
    const [px, py] = toPx(p.x[i], p.y[i]);
    setPixel(c, px, py, heightColor(p.z[i]));
  }
  if (boxes && frame !== undefined) {
    for (let i = 0; i < boxes.cx.length; i++) {
      if (boxes.frameIndex[i] !== frame || boxes.numPoints[i] < 1) continue;
      if (Math.abs(boxes.cx[i]) > half - 3 || Math.abs(boxes.cy[i]) > half - 3) continue;
      const k = boxCornersBev(boxAt(boxes, i));
      for (let e = 0; e < 4; e++) {
        const [x0, y0] = toPx(k[2 * e], k[2 * e + 1]);
        const [x1, y1] = toPx(k[(2 * e + 2) % 8], k[(2 * e + 3) % 8]);
        drawLine(c, x0, y0, x1, y1, [0, 200, 220], 1);
      }
    }
  }
  drawLine(c, left, top, left + size, top, [60, 60, 60]);
  drawLine(c, left, top + size, left + size, top + size, [60, 60, 60]);
  drawLine(c, left, top, left, top + size, [60, 60, 60]);
  drawLine(c, left + size, top, left + size, top + size, [60, 60, 60]);
  drawText(c, left, top - 24, title, [40, 40, 40], 2);
}

/** The figure: BEV of a synthetic and a KITTI sweep, range histograms, points per object against distance. */
export function realismPng(
  r: RealismReport,
  synthetic: { points: PointCloud; labels: Boxes | null; frame: number },
  kitti: PointCloud,
): Buffer {
  const c = createCanvas(1120, 1060);
  drawBev(
    c,
    40,
    50,
    500,
    synthetic.points,
    'Synthetic sweep (BEV, 100 m)',
    synthetic.labels ?? undefined,
    synthetic.frame,
  );
  drawBev(c, 580, 50, 500, kitti, 'KITTI 0048 sweep (BEV, 100 m)');
  const bins = r.synthetic.rangeHist.length - 1;
  const xs = Array.from({ length: bins }, (_, k) => (k + 0.5) * REALISM.rangeBinM);
  const yMax = Math.max(...r.synthetic.rangeHist.slice(0, bins), ...r.kitti.rangeHist.slice(0, bins)) * 1.1;
  const hist: Panel = {
    left: 90,
    top: 630,
    width: 420,
    height: 360,
    x: { min: 0, max: REALISM.rangeMaxM, label: 'range (m)', ticks: [0, 20, 40, 60, 80, 100, 120] },
    y: { min: 0, max: yMax, label: 'share of points' },
  };
  drawPanel(c, hist, 'Range histogram');
  plotLine(c, hist, xs, r.kitti.rangeHist.slice(0, bins), REAL);
  plotLine(c, hist, xs, r.synthetic.rangeHist.slice(0, bins), SYN);
  drawLegend(c, hist.left + hist.width - 130, hist.top + 10, [
    ['synthetic', SYN],
    ['KITTI 0048', REAL],
  ]);
  const obj: Panel = {
    left: 640,
    top: 630,
    width: 420,
    height: 360,
    x: { min: 0, max: 80, label: 'distance to object (m)', ticks: [0, 20, 40, 60, 80] },
    y: { min: 1, max: 20000, log: true, label: 'points in box' },
  };
  drawPanel(c, obj, 'Points per object');
  plotPoints(
    c,
    obj,
    r.syntheticObjects.map((o) => o.distanceM),
    r.syntheticObjects.map((o) => o.points),
    SYN,
    'dot',
    2,
  );
  plotPoints(
    c,
    obj,
    r.kittiObjects.map((o) => o.distanceM),
    r.kittiObjects.map((o) => o.points),
    REAL,
    'cross',
    5,
  );
  drawLegend(c, obj.left + obj.width - 190, obj.top + 10, [
    ['synthetic labels (all classes)', SYN],
    ['KITTI object labels', REAL],
  ]);
  return canvasToPng(c);
}
