// The classical baseline's speed (issue 18): RANSAC ground plane + grid DBSCAN (eps 0.5 m, 5 points) +
// minimum-area rectangles on the real 120k-point KITTI sweep, one core, and DBSCAN alone.
import { median } from '../../core/stats.ts';
import { baselineSweep, DEFAULT_BASELINE_CONFIG, ransacGroundPlane } from '../../perception/baseline.ts';
import { dbscan } from '../../perception/dbscan.ts';
import { timeRuns, type Benchmark } from './benchmark.ts';
import { kittiSweep } from './kittiSweep.ts';
import { PERCEPTION_BENCH } from './perception.bench.ts';

export const benchmarks: Benchmark[] = [
  {
    names: ['dbscan_sweep'],
    async run(emit) {
      const { reps, warmup } = PERCEPTION_BENCH;
      const pts = kittiSweep();
      const cfg = DEFAULT_BASELINE_CONFIG;
      const whole = await timeRuns(() => baselineSweep(pts), reps, warmup);
      // CPU time in batches of 5 sweeps: what a sweep costs one core even while others compete for it.
      const cpu: number[] = [];
      for (let b = 0; b < 3; b++) {
        const t = process.cpuUsage();
        for (let i = 0; i < 5; i++) baselineSweep(pts);
        const d = process.cpuUsage(t);
        cpu.push((d.user + d.system) / 1000 / 5);
      }
      // DBSCAN alone on the same candidates the baseline clusters (non-ground, within range, off the ego).
      const r = baselineSweep(pts);
      const [a, b, c] = ransacGroundPlane(pts, cfg);
      const mask = new Uint8Array(pts.x.length);
      let candidates = 0;
      for (let i = 0; i < mask.length; i++) {
        const h = pts.z[i] - (a * pts.x[i] + b * pts.y[i] + c);
        const ego =
          pts.x[i] >= cfg.egoMinXM && pts.x[i] <= cfg.egoMaxXM && Math.abs(pts.y[i]) <= cfg.egoHalfWidthM;
        const inRange = pts.x[i] ** 2 + pts.y[i] ** 2 <= cfg.rangeM ** 2;
        if (h > cfg.groundTolM && h <= cfg.maxHeightAboveGroundM && inRange && !ego) {
          mask[i] = 1;
          candidates++;
        }
      }
      const clusterMs = await timeRuns(() => dbscan(pts, mask, cfg.dbscan), reps, warmup);
      emit({
        name: 'dbscan_sweep',
        ms_per_sweep_median: median(whole),
        cpu_ms_per_sweep_median: median(cpu),
        ms_min: Math.min(...whole),
        ms_max: Math.max(...whole),
        dbscan_ms_median: median(clusterMs),
        clustered_candidates: candidates,
        clusters: r.clusters,
        boxes: r.boxes.cx.length,
        points: pts.x.length,
        eps_m: cfg.dbscan.epsM,
        min_points: cfg.dbscan.minPoints,
        threads: 1,
        source: 'kitti-0048/0000000000.pcd',
      });
    },
  },
];
