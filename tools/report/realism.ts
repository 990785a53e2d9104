// Realism check of the synthetic HDL-64E against KITTI: the table and files (realismStats.ts measures,
// realismFigure.ts draws). Run: node --import tsx tools/report/realism.ts [--synthetic <log>] [--out <dir>]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Boxes, type PointCloud } from '../../core/arrow/records.ts';
import { REPO_ROOT, realData } from '../../core/paths.ts';
import { upperMedian } from '../../core/stats.ts';
import { coreCount } from '../../core/workers.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { open as openPcd } from '../../datasets/pcd.ts';
import { writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { realismPng } from './realismFigure.ts';
import {
  type CloudStats,
  type ObjectSample,
  REALISM,
  type RealismReport,
  realismReport,
} from './realismStats.ts';
import { makeDirs } from '../../core/dirs.ts';

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
  makeDirs(outDir);
  fs.writeFileSync(
    path.join(outDir, 'realism.png'),
    realismPng(report, { points: synFrame, labels, frame }, kittiFrame ?? synFrame),
  );
  makeDirs(jsonDir);
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
