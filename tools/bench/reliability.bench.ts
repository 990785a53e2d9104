// Reliability benchmarks (docs/reliability.md): CRC32C throughput, what per-batch checksums cost a frame
// read (a log with its manifest vs the same log without), and `drivekit verify`'s full check in MB/s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { crc32c, crc32cBackend, crc32cPortable } from '../../core/crc32c.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { median } from '../../core/stats.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { verifyLog } from '../../datasets/logVerify.ts';
import { timeRuns, type Benchmark } from './benchmark.ts';

/** Settings: a 64 MiB buffer; a log of 40 HDL-64E-sized sweeps (120k points), each read 10 times each way. */
export const RELIABILITY_BENCH = { crcMiB: 64, frames: 40, pointsPerFrame: 120_000, reps: 10 };

export const benchmarks: Benchmark[] = [
  {
    names: ['crc32c', 'log_read_checked', 'log_verify'],
    async run(emit) {
      const { crcMiB, frames, pointsPerFrame, reps } = RELIABILITY_BENCH;
      const buf = Buffer.allocUnsafeSlow(crcMiB << 20);
      for (let i = 0; i < buf.length; i++) buf[i] = (i * 2654435761) >>> 24;
      const crcMs = await timeRuns(() => crc32c(buf), 5, 1);
      const portableMs = await timeRuns(() => crc32cPortable(buf), 3, 1);
      emit({
        name: 'crc32c',
        mb_per_s: Math.round(buf.length / 1e6 / (median(crcMs) / 1000)),
        mb_per_s_typescript: Math.round(buf.length / 1e6 / (median(portableMs) / 1000)),
        backend: crc32cBackend,
        mib: crcMiB,
      });

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
        const verifyMs = await timeRuns(() => verifyLog(dir), reps, 1);
        // The same log without its manifest reads unchecked.
        const bare = path.join(root, 'bare');
        fs.cpSync(dir, bare, { recursive: true });
        fs.rmSync(path.join(bare, 'manifest.json'));
        const checkedLog = await LogReader.open(dir);
        const uncheckedLog = await LogReader.open(bare);
        if (!checkedLog.hasManifest || uncheckedLog.hasManifest)
          throw new Error('log_read_checked: manifests mixed up');
        // Frame by frame, alternating which reader goes first, so load and garbage collection fall on
        // both alike (whole passes of each differ by up to 2× on this machine from one pass to the next).
        const passRatios: number[] = [];
        let checkedMs = 0;
        let uncheckedMs = 0;
        for (let r = 0; r <= reps; r++) {
          let c = 0;
          let u = 0;
          for (let i = 0; i < frames; i++) {
            for (const first of i % 2 ? [true, false] : [false, true]) {
              const t0 = performance.now();
              await (first ? checkedLog : uncheckedLog).readFrame(i);
              if (first) c += performance.now() - t0;
              else u += performance.now() - t0;
            }
          }
          // The first pass warms the page cache and the code.
          if (r === 0) continue;
          passRatios.push(u / c);
          checkedMs += c;
          uncheckedMs += u;
        }
        await checkedLog.close();
        await uncheckedLog.close();
        const fps = (ms: number) => Math.round((frames * reps) / (ms / 1000));
        emit({
          name: 'log_read_checked',
          frames_per_s_checked: fps(checkedMs),
          frames_per_s_unchecked: fps(uncheckedMs),
          ratio: +(uncheckedMs / checkedMs).toFixed(3),
          ratio_median_pass: +median(passRatios).toFixed(3),
          crc32c: crc32cBackend,
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
