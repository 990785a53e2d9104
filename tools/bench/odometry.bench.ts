// Odometry benchmark: milliseconds per real ~120k-point KITTI sweep (0048) through LidarOdometry
// (range filter, downsampling, scan-to-map ICP, map update) in sequence, the map warm; target < 50 ms.
import fs from 'node:fs';
import { realData } from '../../core/paths.ts';
import { median } from '../../core/stats.ts';
import { decodePcd } from '../../datasets/pcd.ts';
import { LidarOdometry } from '../../perception/odometry/odometry.ts';
import type { Benchmark } from './benchmark.ts';

/** Settings: sweeps of kitti-0048 registered in order, passes over them (the first pass warms up). */
export const ODOMETRY_BENCH = { sweeps: 22, passes: 2 };

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
      for (let pass = 0; pass < ODOMETRY_BENCH.passes; pass++) {
        const odo = new LidarOdometry();
        for (const s of sweeps) {
          const t = process.hrtime.bigint();
          odo.register(s);
          if (pass > 0) ms.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }
      const points = sweeps.reduce((a, s) => a + s.x.length, 0) / sweeps.length;
      emit({
        name: 'odometry_sweep',
        ms_median: median(ms),
        ms_mean: ms.reduce((a, b) => a + b, 0) / ms.length,
        points_per_sweep: Math.round(points),
        sweeps: ms.length,
        target_ms: 50,
      });
    },
  },
];
