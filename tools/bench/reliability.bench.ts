// Reliability benchmarks (docs/reliability.md): CRC32C throughput, what per-batch checksums cost a frame
// read (a log with its manifest vs the same log without), and `drivekit verify`'s full check in MB/s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { crc32c } from '../../core/crc32c.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { median } from '../../core/stats.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { verifyLog } from '../../datasets/logVerify.ts';
import { timeRuns, type Benchmark } from './benchmark.ts';

/** Settings: a 64 MiB buffer; a log of 40 HDL-64E-sized sweeps (120k points), each read 3 times. */
export const RELIABILITY_BENCH = { crcMiB: 64, frames: 40, pointsPerFrame: 120_000, reps: 3 };

export const benchmarks: Benchmark[] = [
  {
    names: ['crc32c', 'log_read_checked', 'log_verify'],
    async run(emit) {
      const { crcMiB, frames, pointsPerFrame, reps } = RELIABILITY_BENCH;
      const buf = Buffer.allocUnsafeSlow(crcMiB << 20);
      for (let i = 0; i < buf.length; i++) buf[i] = (i * 2654435761) >>> 24;
      const crcMs = await timeRuns(() => crc32c(buf), 5, 1);
      emit({ name: 'crc32c', mb_per_s: Math.round(buf.length / 1e6 / (median(crcMs) / 1000)), mib: crcMiB });

      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-bench-rel-'));
      try {
        const dir = path.join(root, 'log');
        const w = LogWriter.create(dir, { source: 'bench' });
        const p = allocatePointCloud(pointsPerFrame);
        for (let k = 0; k < pointsPerFrame; k++) {
          p.x[k] = (k % 1000) / 10;
          p.y[k] = (k % 777) / 10;
          p.z[k] = (k % 64) / 20;
          p.intensity[k] = (k % 100) / 100;
          p.ring[k] = k % 64;
        }
        for (let i = 0; i < frames; i++) {
          p.x[0] = i;
          w.appendFrame({ timestampNs: BigInt(i), pose: poseFromTranslationYaw(i, 0, 0, 0), points: p });
        }
        await w.close();
        const bytes = fs.statSync(path.join(dir, 'frames.arrow')).size;
        const readAll = async () => {
          const log = await LogReader.open(dir);
          for (let i = 0; i < log.frameCount; i++) await log.readFrame(i);
          await log.close();
        };
        const verifyMs = await timeRuns(() => verifyLog(dir), reps, 1);
        // Alternate the two, so a change in machine load falls on both alike.
        const manifest = fs.readFileSync(path.join(dir, 'manifest.json'));
        const checked: number[] = [];
        const unchecked: number[] = [];
        for (let r = 0; r <= reps; r++) {
          const [a] = await timeRuns(readAll, 1, 0);
          fs.rmSync(path.join(dir, 'manifest.json'));
          const [b] = await timeRuns(readAll, 1, 0);
          fs.writeFileSync(path.join(dir, 'manifest.json'), manifest);
          // The first pair warms the page cache and the code.
          if (r > 0) [checked, unchecked].forEach((list, i) => list.push(i ? b : a));
        }
        const fps = (ms: number[]) => Math.round(frames / (median(ms) / 1000));
        emit({
          name: 'log_read_checked',
          frames_per_s_checked: fps(checked),
          frames_per_s_unchecked: fps(unchecked),
          overhead: +(median(checked) / median(unchecked) - 1).toFixed(3),
          frames,
          points_per_frame: pointsPerFrame,
        });
        emit({
          name: 'log_verify',
          mb_per_s: Math.round(bytes / 1e6 / (median(verifyMs) / 1000)),
          frames_mb: +(bytes / 1e6).toFixed(1),
          median_ms: +median(verifyMs).toFixed(1),
        });
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  },
];
