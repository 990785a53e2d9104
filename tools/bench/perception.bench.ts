// Perception benchmarks: ground + clustering + box fitting per real 120k-point KITTI sweep on one core
// (and at a half and a quarter of the points, ≈30k/60k, to show linear cost), and tracking + refinement
// per frame with 100 objects.
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { type Boxes, type BoxRow, boxesFromRows } from '../../core/arrow/records.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { fitBoxes } from '../../perception/boxfit.ts';
import { clusterPoints } from '../../perception/cluster.ts';
import { DEFAULT_DISCOVER_CONFIG, discoverSweep, sweepBuffers } from '../../perception/discover.ts';
import { mergeLineOfSightFragments } from '../../perception/fragments.ts';
import type { XYZ } from '../../core/arrow/records.ts';
import { lcg32 } from '../../core/rng.ts';
import { segmentGround } from '../../perception/ground.ts';
import { refineTracks } from '../../perception/refine.ts';
import { trackBoxes } from '../../perception/track.ts';
import { timeRuns, type Benchmark } from './benchmark.ts';
import type { DiscoverChildResult, DiscoverChildStart } from './discoverSweepChild.ts';
import { kittiSweep } from './kittiSweep.ts';
import { median } from '../../core/stats.ts';

/** Settings: timed repetitions per size, warm-up runs, and the tracking scene. */
export const PERCEPTION_BENCH = { reps: 30, warmup: 10, trackFrames: 100, trackObjects: 100 };

/** discover_sweep's timing loop in a fresh process (tools/bench/discoverSweepChild.ts). */
function discoverInFreshProcess(start: DiscoverChildStart): Promise<DiscoverChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(REPO_ROOT, 'tools', 'bench', 'discoverSweepChild.ts'), [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let result: DiscoverChildResult | null = null;
    child.once('message', (m) => (result = m as DiscoverChildResult));
    child.once('error', reject);
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`discover_sweep child exited with ${code}`)),
    );
    child.send(start);
  });
}

/** Every k-th point of a sweep: the same scene at a lower point count. */
function subsample(p: XYZ, n: number): XYZ {
  const step = p.x.length / n;
  const idx = Int32Array.from({ length: n }, (_, i) => Math.floor(i * step));
  return {
    x: Float32Array.from(idx, (i) => p.x[i]),
    y: Float32Array.from(idx, (i) => p.y[i]),
    z: Float32Array.from(idx, (i) => p.z[i]),
  };
}

/** 100 objects moving at constant velocity seen from a driving ego: noisy boxes in the vehicle frame. */
function trackingScene(frames: number, objects: number): { boxes: Boxes; poses: Float64Array } {
  const next = lcg32(12345);
  const rnd = () => next() / 4294967296;
  const objs = Array.from({ length: objects }, () => ({
    x: rnd() * 200 - 50,
    y: rnd() * 80 - 40,
    vx: rnd() < 0.5 ? 0 : rnd() * 20 - 10,
    vy: rnd() < 0.8 ? 0 : rnd() * 4 - 2,
    l: 3.5 + rnd() * 2,
  }));
  const poses = new Float64Array(16 * frames);
  const rows: BoxRow[] = [];
  for (let f = 0; f < frames; f++) {
    const ex = f; // 10 m/s
    poses.set(poseFromTranslationYaw(ex, 0, 0, 0), 16 * f);
    for (const o of objs) {
      if (rnd() < 0.1) continue; // missed detections
      const t = f / 10;
      rows.push({
        frameIndex: f,
        cx: o.x + o.vx * t - ex + (rnd() - 0.5) * 0.3,
        cy: o.y + o.vy * t + (rnd() - 0.5) * 0.3,
        cz: 0.8,
        length: o.l * (0.6 + 0.4 * rnd()),
        width: 1.8,
        height: 1.5,
        yaw: Math.atan2(o.vy, o.vx || 1) + (rnd() - 0.5) * 0.2,
        score: rnd(),
        numPoints: 20 + Math.floor(rnd() * 500),
      });
    }
  }
  return { boxes: boxesFromRows(rows), poses };
}

export const benchmarks: Benchmark[] = [
  {
    names: ['discover_sweep', 'discover_sweep_stages', 'discover_sweep_scaling'],
    async run(emit) {
      const { reps, warmup } = PERCEPTION_BENCH;
      const full = kittiSweep();
      // The full sweep (≈120k points) and the same scene thinned to a half and a quarter.
      const sizes = [Math.round(full.x.length / 4), Math.round(full.x.length / 2), full.x.length];
      const perSize: Record<string, number> = {};
      // As `drivekit discover` and the stage run it: per-point arrays reused from sweep to sweep.
      const buffers = sweepBuffers();
      const discover = (pts: XYZ) => discoverSweep(pts, undefined, 0, buffers);
      // Compile the hot loops on the full sweep first, so no size pays for the JIT.
      for (let i = 0; i < warmup; i++) discover(full);
      for (const n of sizes) {
        const pts = n === full.x.length ? full : subsample(full, n);
        const ms = await timeRuns(() => discover(pts), reps, warmup);
        // CPU time in batches of 10 sweeps (the kernel counts it in ticks of a few ms): what a sweep costs
        // one core even while other processes compete for it.
        const cpuOfSweeps = (fn: () => unknown) => {
          const cpu: number[] = [];
          for (let b = 0; b < Math.max(3, reps / 10); b++) {
            const t = process.cpuUsage();
            for (let i = 0; i < 10; i++) fn();
            const d = process.cpuUsage(t);
            cpu.push((d.user + d.system) / 1000 / 10);
          }
          return cpu;
        };
        const cpu = cpuOfSweeps(() => discover(pts));
        perSize[n] = median(cpu);
        if (n === full.x.length) {
          // The same sweeps with fresh per-point arrays each call (discoverSweep without buffers).
          const msFresh = await timeRuns(() => discoverSweep(pts), reps, warmup);
          const cpuFresh = cpuOfSweeps(() => discoverSweep(pts));
          // The headline: a process that loads what `drivekit discover` loads (discoverSweepChild.ts).
          const child = await discoverInFreshProcess({ reps, warmup, cpuBatches: Math.max(3, reps / 10) });
          emit({
            name: 'discover_sweep',
            ms_per_sweep_median: median(child.ms),
            cpu_ms_per_sweep_median: median(child.cpuMs),
            ms_min: Math.min(...child.ms),
            ms_max: Math.max(...child.ms),
            // In this process, with every benchmark module loaded: reused and fresh per-point arrays.
            bench_process_ms_per_sweep_median: median(ms),
            bench_process_cpu_ms_per_sweep_median: median(cpu),
            bench_process_fresh_arrays_ms_per_sweep_median: median(msFresh),
            bench_process_fresh_arrays_cpu_ms_per_sweep_median: median(cpuFresh),
            points: child.points,
            boxes: child.boxes,
            threads: 1,
            source: 'kitti-0048/0000000000.pcd',
            // Anchors, published figures (not run here): depth_clustering (Bogoslavskyi & Stachniss 2016)
            // > 100 Hz, i.e. < 10 ms a sweep; sklearn DBSCAN ~0.6 s on a sweep (dbscan_sweep runs ours).
            depth_clustering_published_ms: 10,
            sklearn_dbscan_published_ms: 600,
            cpu_over_depth_clustering_published: +(median(child.cpuMs) / 10).toFixed(2),
            target_ms: 10,
            loadAverage1m: +os.loadavg()[0].toFixed(1),
          });
        }
      }
      // Where the time goes, stage by stage, on the full sweep.
      const g = segmentGround(full, DEFAULT_DISCOVER_CONFIG.ground);
      const mask = Uint8Array.from(g.isGround, (v, i) => (v === 0 && g.heightAboveGround[i] <= 4 ? 1 : 0));
      const c = clusterPoints(full, mask, DEFAULT_DISCOVER_CONFIG.cluster);
      const tGround = median(
        await timeRuns(() => segmentGround(full, DEFAULT_DISCOVER_CONFIG.ground), reps, warmup),
      );
      const tCluster = median(
        await timeRuns(() => clusterPoints(full, mask, DEFAULT_DISCOVER_CONFIG.cluster), reps, warmup),
      );
      const tBoxes = median(
        await timeRuns(() => fitBoxes(full, c, g.model, DEFAULT_DISCOVER_CONFIG.boxfit), reps, warmup),
      );
      // CPU per stage (batches of 10 runs), and the clustering's previous hash-table index in the same run.
      const cpuOf = (fn: () => unknown): number => {
        const out: number[] = [];
        for (let b = 0; b < 3; b++) {
          const t = process.cpuUsage();
          for (let i = 0; i < 10; i++) fn();
          const d = process.cpuUsage(t);
          out.push((d.user + d.system) / 1000 / 10);
        }
        return median(out);
      };
      const cpuCluster = cpuOf(() => clusterPoints(full, mask, DEFAULT_DISCOVER_CONFIG.cluster));
      const cpuFragments = cpuOf(() => mergeLineOfSightFragments(full, c, DEFAULT_DISCOVER_CONFIG.fragments));
      const cpuClusterHash = cpuOf(() => clusterPoints(full, mask, DEFAULT_DISCOVER_CONFIG.cluster, 'hash'));
      emit({
        name: 'discover_sweep_stages',
        ground_cpu_ms_median: cpuOf(() => segmentGround(full, DEFAULT_DISCOVER_CONFIG.ground)),
        cluster_cpu_ms_median: cpuCluster,
        cluster_hash_index_cpu_ms_median: cpuClusterHash,
        cluster_dense_over_hash: +(cpuCluster / cpuClusterHash).toFixed(2),
        fragments_cpu_ms_median: cpuFragments,
        boxfit_cpu_ms_median: cpuOf(() => fitBoxes(full, c, g.model, DEFAULT_DISCOVER_CONFIG.boxfit)),
        ground_ms_median: tGround,
        cluster_ms_median: tCluster,
        boxfit_ms_median: tBoxes,
        clustered_points: mask.reduce((a, b) => a + b, 0),
        clusters: c.count,
        points: full.x.length,
      });
      // Least-squares line cost = fixed + perPoint · n over the three sizes: linear when it fits them.
      const xs = sizes;
      const ys = sizes.map((n) => perSize[n]);
      const mx = xs.reduce((a, b) => a + b) / xs.length;
      const my = ys.reduce((a, b) => a + b) / ys.length;
      const slope =
        xs.reduce((acc, x, i) => acc + (x - mx) * (ys[i] - my), 0) /
        xs.reduce((acc, x) => acc + (x - mx) ** 2, 0);
      emit({
        name: 'discover_sweep_scaling',
        points: sizes,
        cpu_ms_per_sweep_median: ys,
        fit_fixed_ms: my - slope * mx,
        fit_ms_per_10k_points: slope * 1e4,
        fit_max_residual_ms: Math.max(...ys.map((y, i) => Math.abs(y - (my + slope * (xs[i] - mx))))),
      });
    },
  },
  {
    names: ['track_refine'],
    async run(emit) {
      const { trackFrames, trackObjects } = PERCEPTION_BENCH;
      const { boxes, poses } = trackingScene(trackFrames, trackObjects);
      const seq = { frameCount: trackFrames, poses };
      let tracks = 0;
      const trackMs = await timeRuns(() => (tracks = trackBoxes(boxes, seq).tracks), 5, 1);
      const tracked = trackBoxes(boxes, seq).boxes;
      const refineMs = await timeRuns(() => refineTracks(tracked, seq), 5, 1);
      emit({
        name: 'track_refine',
        ms_per_frame_median: (median(trackMs) + median(refineMs)) / trackFrames,
        track_ms_per_frame: median(trackMs) / trackFrames,
        refine_ms_per_frame: median(refineMs) / trackFrames,
        objects: trackObjects,
        frames: trackFrames,
        boxes: boxes.cx.length,
        tracks,
        passes: 'forward+backward',
      });
    },
  },
];
