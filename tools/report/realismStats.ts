// Statistics of LiDAR sweeps for the realism check: points per sweep, ground share (one rule for both
// sources), range histogram, ground / other by distance, and points per labelled object against distance.
import { type Boxes, type PointCloud } from '../../core/arrow/records.ts';
import { realData } from '../../core/paths.ts';
import { open as openKitti } from '../../datasets/kitti.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { open as openPcd } from '../../datasets/pcd.ts';
import { upperMedianOfSorted } from '../../core/stats.ts';

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
    medianRangeM: upperMedianOfSorted(rangeSample),
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
