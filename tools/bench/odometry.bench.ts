// Odometry benchmark: milliseconds per real ~120k-point KITTI sweep (0048) through LidarOdometry
// (range filter, downsampling, scan-to-map ICP, map update) in sequence, the map warm; target < 50 ms.
import fs from 'node:fs';
import os from 'node:os';
import { realData } from '../../core/paths.ts';
import { median } from '../../core/stats.ts';
import { decodePcd } from '../../datasets/pcd.ts';
import { LidarOdometry } from '../../perception/odometry/odometry.ts';
import type { Benchmark } from './benchmark.ts';

/** Settings: sweeps of kitti-0048 registered in order, passes over them (the first pass warms up, the others are timed). */
export const ODOMETRY_BENCH = { sweeps: 22, passes: 4 };

export const benchmarks: Benchmark[] = [
  {
    names: ['odometry_sweep'],
    async run(emit) {
      const dir = realData('kitti-0048');
      if (!fs.existsSync(dir)) throw new Error(`${dir} not found: the benchmark needs ../shared/data`);
      const files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.pcd'))
        .sort()
        .slice(0, ODOMETRY_BENCH.sweeps);
      const sweeps = files.map((f) => decodePcd(fs.readFileSync(`${dir}/${f}`), f).points);
      const ms: number[] = [];
      // CPU time per pass (the kernel counts it in ticks of a few ms, so per pass, not per sweep): what a
      // sweep costs one core even while other processes compete for it, beside the wall clock.
      const cpuMs: number[] = [];
      for (let pass = 0; pass < ODOMETRY_BENCH.passes; pass++) {
        const odo = new LidarOdometry();
        const c0 = process.cpuUsage();
        for (const s of sweeps) {
          const t = process.hrtime.bigint();
          odo.register(s);
          if (pass > 0) ms.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
        const c = process.cpuUsage(c0);
        if (pass > 0) cpuMs.push((c.user + c.system) / 1000 / sweeps.length);
      }
      const points = sweeps.reduce((a, s) => a + s.x.length, 0) / sweeps.length;
      emit({
        name: 'odometry_sweep',
        ms_median: median(ms),
        ms_mean: ms.reduce((a, b) => a + b, 0) / ms.length,
        cpu_ms_per_sweep_median: median(cpuMs),
        cpu_ms_per_sweep_passes: cpuMs.map((v) => +v.toFixed(2)),
        // The anchor, a published figure (not run here): KISS-ICP (C++) ~10 ms per sweep on a laptop core.
        kiss_icp_published_ms: 10,
        cpu_over_kiss_icp_published: +(median(cpuMs) / 10).toFixed(2),
        loadAverage1m: +os.loadavg()[0].toFixed(1),
        points_per_sweep: Math.round(points),
        sweeps: ms.length,
        target_ms: 30,
      });
    },
  },
];
