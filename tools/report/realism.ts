// Realism check of the synthetic HDL-64E against KITTI: points per sweep, ground share, range histogram, points
// per object vs distance, as a table and a PNG. Run: node --import tsx tools/report/realism.ts [--synthetic <log>]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Boxes, type PointCloud, boxAt } from '../../core/arrow/records.ts';
import { boxCornersBev } from '../../core/geometry/box.ts';
import { REPO_ROOT, realData } from '../../core/paths.ts';
import { coreCount } from '../../core/workers.ts';
import { open as openKitti } from '../../datasets/kitti.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { open as openPcd } from '../../datasets/pcd.ts';
import { writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { type Canvas, type Rgb, canvasToPng, createCanvas, drawLine, drawText, setPixel } from './canvas.ts';
import { type Panel, drawLegend, drawPanel, plotLine, plotPoints } from './chart.ts';
import { upperMedian } from '../../core/stats.ts';

/** Settings of the comparison; the ground rule is the same for both sources. */
export const REALISM = {
  /** BEV cell for the local ground estimate (its lowest point), metres. */
  groundCellM: 2,
  /** A point is ground when it lies at most this far above its cell's lowest point… */
  groundBandM: 0.2,
  /** …and that lowest point is below this height in the sensor frame (near the road, 1.73 m below the sensor). */
  groundMaxZ: -1.2,
  rangeBinM: 5,
  rangeMaxM: 120,
  objectBinsM: [0, 10, 20, 30, 50, 80],
  /** Ground-distance bands of the ground / other breakdown. */
  bandsM: [0, 10, 20, 50, Infinity],
  /** Frames of the synthetic log compared (KITTI 0048 has 22). */
  frames: 22,
  seed: 1,
};

export interface CloudStats {
  name: string;
  sweeps: number;
  pointsPerSweep: { mean: number; min: number; max: number };
  groundShare: number;
  medianRangeM: number;
  beyond50mShare: number;
  meanIntensity: number;
  /** Share of points per range bin [k·bin, (k+1)·bin), the last bin holding everything beyond. */
  rangeHist: number[];
  /** Shares of all points that are ground / not ground, per ground-distance band of REALISM.bandsM. */
  groundByBand: number[];
  otherByBand: number[];
}

export interface ObjectSample {
  label: string;
  distanceM: number;
  points: number;
}

export interface RealismReport {
  synthetic: CloudStats;
  kitti: CloudStats;
  syntheticObjects: ObjectSample[];
  kittiObjects: ObjectSample[];
}

/** Ground points by the rule of REALISM (lowest point of a BEV cell + band, near the road's height). */
export function groundMask(p: PointCloud): Uint8Array {
  const n = p.x.length;
  const cell = REALISM.groundCellM;
  const lowest = new Map<number, number>();
  const key = (i: number) =>
    (Math.floor(p.x[i] / cell) + 10000) * 20000 + (Math.floor(p.y[i] / cell) + 10000);
  for (let i = 0; i < n; i++) {
    const k = key(i);
    const z = lowest.get(k);
    if (z === undefined || p.z[i] < z) lowest.set(k, p.z[i]);
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const z0 = lowest.get(key(i))!;
    if (z0 < REALISM.groundMaxZ && p.z[i] <= z0 + REALISM.groundBandM) out[i] = 1;
  }
  return out;
}

async function cloudStats(
  name: string,
  frames: AsyncIterable<PointCloud> | Iterable<PointCloud>,
): Promise<CloudStats> {
  const bins = Math.round(REALISM.rangeMaxM / REALISM.rangeBinM) + 1;
  const hist = new Float64Array(bins);
  const counts: number[] = [];
  let ground = 0;
  let total = 0;
  let beyond = 0;
  let intensity = 0;
  const rangeSample: number[] = [];
  const nb = REALISM.bandsM.length - 1;
  const gBand = new Float64Array(nb);
  const oBand = new Float64Array(nb);
  for await (const p of frames) {
    const n = p.x.length;
    counts.push(n);
    const g = groundMask(p);
    for (let i = 0; i < n; i++) {
      const r = Math.hypot(p.x[i], p.y[i], p.z[i]);
      hist[Math.min(bins - 1, Math.floor(r / REALISM.rangeBinM))]++;
      if (r > 50) beyond++;
      ground += g[i];
      intensity += p.intensity[i];
      const d = Math.hypot(p.x[i], p.y[i]);
      let band = 0;
      while (band + 1 < nb && d >= REALISM.bandsM[band + 1]) band++;
      if (g[i]) gBand[band]++;
      else oBand[band]++;
      if (i % 50 === 0) rangeSample.push(r);
    }
    total += n;
  }
  rangeSample.sort((a, b) => a - b);
  return {
    name,
    sweeps: counts.length,
    pointsPerSweep: {
      mean: Math.round(total / counts.length),
      min: Math.min(...counts),
      max: Math.max(...counts),
    },
    groundShare: ground / total,
    medianRangeM: rangeSample[Math.floor(rangeSample.length / 2)],
    beyond50mShare: beyond / total,
    meanIntensity: intensity / total,
    rangeHist: Array.from(hist, (h) => h / total),
    groundByBand: Array.from(gBand, (v) => v / total),
    otherByBand: Array.from(oBand, (v) => v / total),
  };
}

const CLASS_OF: Record<string, string> = {
  Car: 'car',
  Van: 'van',
  Truck: 'truck',
  Pedestrian: 'pedestrian',
  Person_sitting: 'pedestrian',
  Cyclist: 'cyclist',
};

function objectSamples(b: Boxes, labelOf: (raw: string) => string | undefined): ObjectSample[] {
  const out: ObjectSample[] = [];
  for (let i = 0; i < b.cx.length; i++) {
    const label = labelOf(b.label[i]);
    if (!label || b.numPoints[i] < 1) continue;
    out.push({ label, distanceM: Math.hypot(b.cx[i], b.cy[i]), points: b.numPoints[i] });
  }
  return out;
}

export async function realismReport(syntheticLog: string): Promise<RealismReport> {
  const log = await LogReader.open(syntheticLog);
  try {
    const frames = Math.min(log.frameCount, REALISM.frames);
    const synthetic = await cloudStats(
      'synthetic',
      (async function* () {
        for await (const f of log.iterFrames(0, frames)) yield f.points;
      })(),
    );
    const labels = log.readBoxes('labels');
    const syntheticObjects = labels ? objectSamples(labels, (l) => l).filter((o) => o.distanceM <= 80) : [];
    const raw = await openPcd(realData('kitti-0048'), {});
    const kitti = await cloudStats(
      'KITTI 0048',
      (async function* () {
        for await (const f of raw.frames()) yield f.points;
      })(),
    );
    const obj = await openKitti(realData('kitti-object'), {});
    const kittiLabels = obj.labels();
    const kittiObjects = kittiLabels ? objectSamples(kittiLabels, (l) => CLASS_OF[l]) : [];
    return { synthetic, kitti, syntheticObjects, kittiObjects };
  } finally {
    await log.close();
  }
}

/** Markdown table: synthetic beside KITTI. */
export function realismMarkdown(r: RealismReport): string {
  const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
  const rows: [string, string, string][] = [
    ['sweeps compared', String(r.synthetic.sweeps), String(r.kitti.sweeps)],
    [
      'points per sweep (mean, min–max)',
      `${r.synthetic.pointsPerSweep.mean} (${r.synthetic.pointsPerSweep.min}–${r.synthetic.pointsPerSweep.max})`,
      `${r.kitti.pointsPerSweep.mean} (${r.kitti.pointsPerSweep.min}–${r.kitti.pointsPerSweep.max})`,
    ],
    ['ground points', pct(r.synthetic.groundShare), pct(r.kitti.groundShare)],
    ['median range', `${r.synthetic.medianRangeM.toFixed(1)} m`, `${r.kitti.medianRangeM.toFixed(1)} m`],
    ['points beyond 50 m', pct(r.synthetic.beyond50mShare), pct(r.kitti.beyond50mShare)],
    ['mean intensity', r.synthetic.meanIntensity.toFixed(3), r.kitti.meanIntensity.toFixed(3)],
  ];
  const bands = REALISM.bandsM;
  for (let k = 0; k + 1 < bands.length; k++) {
    const range = Number.isFinite(bands[k + 1]) ? `${bands[k]}–${bands[k + 1]} m` : `beyond ${bands[k]} m`;
    const cell = (c: CloudStats) => `${pct(c.groundByBand[k])} / ${pct(c.otherByBand[k])}`;
    rows.push([`points ${range}: ground / other`, cell(r.synthetic), cell(r.kitti)]);
  }
  const b = REALISM.objectBinsM;
  for (let k = 0; k + 1 < b.length; k++) {
    const sel = (objs: ObjectSample[]) =>
      objs
        .filter((o) => o.label === 'car' && o.distanceM >= b[k] && o.distanceM < b[k + 1])
        .map((o) => o.points);
    const s = sel(r.syntheticObjects);
    const kk = sel(r.kittiObjects);
    const cell = (xs: number[]) => (xs.length ? `${upperMedian(xs)} (n=${xs.length})` : '—');
    rows.push([`points per car, ${b[k]}–${b[k + 1]} m (median)`, cell(s), cell(kk)]);
  }
  return [
    '| | synthetic (HDL-64E model) | KITTI (HDL-64E) |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

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

/** Compare a synthetic log with KITTI; write realism.png into `outDir` and realism.json into `jsonDir`. */
export async function writeRealismFiles(
  syntheticLog: string,
  outDir: string,
  jsonDir = outDir,
): Promise<RealismReport> {
  const report = await realismReport(syntheticLog);
  const log = await LogReader.open(syntheticLog);
  let frame: number;
  let synFrame: PointCloud;
  let labels: Boxes | null;
  try {
    frame = Math.min(10, log.frameCount - 1);
    synFrame = (await log.readFrame(frame)).points;
    labels = log.readBoxes('labels');
  } finally {
    await log.close();
  }
  const raw = await openPcd(realData('kitti-0048'), {});
  let kittiFrame: PointCloud | null = null;
  let k = 0;
  for await (const f of raw.frames()) {
    if (k++ === 10) kittiFrame = f.points;
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(
    path.join(outDir, 'realism.png'),
    realismPng(report, { points: synFrame, labels, frame }, kittiFrame ?? synFrame),
  );
  fs.mkdirSync(jsonDir, { recursive: true });
  fs.writeFileSync(
    path.join(jsonDir, 'realism.json'),
    JSON.stringify({ settings: REALISM, synthetic: report.synthetic, kitti: report.kitti }, null, 1) + '\n',
  );
  return report;
}

async function main(argv: string[]): Promise<void> {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  let synthetic = arg('--synthetic');
  const outDir = arg('--out') ?? path.join(REPO_ROOT, 'docs');
  if (!synthetic) {
    synthetic = path.join(REPO_ROOT, 'out', 'realism', 'synthetic');
    await writeSyntheticLog({
      out: synthetic,
      frames: REALISM.frames,
      seed: REALISM.seed,
      lidar: 'hdl64',
      overwrite: true,
      workers: coreCount(),
    });
  }
  // The figure goes to docs/ (committed); the raw numbers stay with the generated data.
  const report = await writeRealismFiles(synthetic, outDir, path.join(REPO_ROOT, 'out', 'realism'));
  process.stdout.write(realismMarkdown(report) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`realism: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
