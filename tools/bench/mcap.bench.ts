// MCAP export benchmark: a log of HDL-64E-sized sweeps (120k points) with 30 labelled boxes a frame written
// as a Foxglove MCAP file (`drivekit export --log … --format mcap`): output MB/s and frames/s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allocatePointCloud, boxesFromRows, type BoxRow } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { median } from '../../core/stats.ts';
import { exportLogMcap } from '../../datasets/logMcap.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { peakRssMb, timeRuns, type Benchmark } from './benchmark.ts';

/** Settings of the benchmark (defaults: 20 sweeps of 120k points, 30 boxes each, 3 timed runs). */
export const MCAP_BENCH = { frames: 20, pointsPerFrame: 120_000, boxesPerFrame: 30, reps: 3 };

async function writeLog(dir: string): Promise<void> {
  const { frames, pointsPerFrame: n, boxesPerFrame } = MCAP_BENCH;
  const w = LogWriter.create(dir, { source: 'synthetic' });
  const rows: BoxRow[] = [];
  for (let f = 0; f < frames; f++) {
    const p = allocatePointCloud(n);
    for (let i = 0; i < n; i++) {
      const ring = i % 64;
      const az = (i / n) * 2 * Math.PI;
      const r = 5 + ring * 1.2 + ((i * 7919 + f) % 100) / 100;
      p.x[i] = r * Math.cos(az);
      p.y[i] = r * Math.sin(az);
      p.z[i] = -1.7 + ring * 0.05;
      p.intensity[i] = ((i * 31) % 100) / 100;
      p.ring[i] = ring;
    }
    w.appendFrame({
      timestampNs: BigInt(f) * 100_000_000n,
      pose: poseFromTranslationYaw(f, 0, 0, 0),
      points: p,
    });
    for (let b = 0; b < boxesPerFrame; b++)
      rows.push({
        frameIndex: f,
        trackId: b,
        cx: 3 * b - 45,
        cy: 5,
        cz: 0,
        length: 4,
        width: 2,
        height: 1.6,
        yaw: 0,
      });
  }
  w.setLabels(boxesFromRows(rows));
  await w.close();
}

export const benchmarks: Benchmark[] = [
  {
    names: ['mcap_export'],
    async run(emit) {
      const { frames, pointsPerFrame, reps } = MCAP_BENCH;
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-bench-mcap-'));
      try {
        const log = path.join(root, 'log');
        await writeLog(log);
        const file = path.join(root, 'log.mcap');
        let bytes = 0;
        const ms = await timeRuns(async () => {
          bytes = (await exportLogMcap(log, file)).bytes;
        }, reps);
        const t = median(ms) / 1000;
        emit({
          name: 'mcap_export',
          mb_per_s: +(bytes / 1e6 / t).toFixed(1),
          frames_per_s: +(frames / t).toFixed(1),
          points_per_s: Math.round((frames * pointsPerFrame) / t),
          file_mb: +(bytes / 1e6).toFixed(1),
          frames,
          points_per_frame: pointsPerFrame,
          median_ms: +median(ms).toFixed(1),
          peak_rss_mb: Math.round(peakRssMb()),
        });
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  },
];
