// Dataset benchmarks: KITTI .bin import throughput (points/s) and random-access frame reads from a
// log (frames/s), both on generated HDL-64E-sized sweeps (120k points) in a temporary folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importLog } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { peakRssMb, timeRuns, type Benchmark } from './benchmark.ts';
import { median } from '../../core/stats.ts';

/** Settings of the dataset benchmarks (defaults: 50 sweeps of 120k points, 300 random reads). */
export const DATASET_BENCH = { frames: 50, pointsPerFrame: 120_000, reads: 300, importReps: 3 };

/** A deterministic sweep: rings of points around the sensor, like a spinning LiDAR. */
function writeSweeps(dir: string, frames: number, n: number): void {
  const f = new Float32Array(4 * n);
  for (let k = 0; k < frames; k++) {
    for (let i = 0; i < n; i++) {
      const ring = i % 64;
      const az = (i / n) * 2 * Math.PI;
      const r = 5 + ring * 1.2 + ((i * 7919 + k) % 100) / 100;
      f[4 * i] = r * Math.cos(az);
      f[4 * i + 1] = r * Math.sin(az);
      f[4 * i + 2] = -1.7 + ring * 0.05;
      f[4 * i + 3] = ((i * 31) % 100) / 100;
    }
    fs.writeFileSync(path.join(dir, `${String(k).padStart(6, '0')}.bin`), new Uint8Array(f.buffer));
  }
}

export const benchmarks: Benchmark[] = [
  {
    names: ['kitti_import', 'log_random_read'],
    async run(emit) {
      const { frames, pointsPerFrame, reads, importReps } = DATASET_BENCH;
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-bench-ds-'));
      try {
        const src = path.join(root, 'velodyne');
        fs.mkdirSync(src);
        writeSweeps(src, frames, pointsPerFrame);
        const out = path.join(root, 'log');
        const ms = await timeRuns(() => importLog(src, 'kitti', out, { overwrite: true }), importReps, 1);
        const points = frames * pointsPerFrame;
        const t = median(ms) / 1000;
        emit({
          name: 'kitti_import',
          points_per_s: Math.round(points / t),
          frames_per_s: +(frames / t).toFixed(1),
          mb_per_s: +((points * 16) / 1e6 / t).toFixed(1),
          frames,
          points_per_frame: pointsPerFrame,
          median_ms: +median(ms).toFixed(1),
          peak_rss_mb: Math.round(peakRssMb()),
        });

        const log = await LogReader.open(out);
        try {
          // A fixed pseudo-random order (LCG) so runs are comparable.
          const order: number[] = [];
          let s = 12345;
          for (let i = 0; i < reads; i++) {
            s = (Math.imul(s, 1103515245) + 12345) >>> 0;
            order.push(s % frames);
          }
          let checksum = 0;
          const readMs = await timeRuns(
            async () => {
              for (const i of order) checksum += (await log.readFrame(i)).points.x.length;
            },
            3,
            1,
          );
          if (checksum !== 4 * reads * pointsPerFrame) throw new Error('log_random_read: wrong point counts');
          const rt = median(readMs) / 1000;
          emit({
            name: 'log_random_read',
            frames_per_s: Math.round(reads / rt),
            points_per_s: Math.round((reads * pointsPerFrame) / rt),
            reads,
            frames,
            points_per_frame: pointsPerFrame,
            median_ms: +median(readMs).toFixed(1),
          });
        } finally {
          await log.close();
        }
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  },
];
