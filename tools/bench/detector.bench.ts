// Detector benchmarks: inference per real 120k-point KITTI sweep (BEV features + CNN on onnxruntime +
// decode/NMS) at the default ±51.2 m grid and at ±80 m, and training throughput (crops/s) with peak memory.
import fs from 'node:fs';
import os from 'node:os';
import { boxAt } from '../../core/arrow/records.ts';
import { DEFAULT_GRID_CONFIG, resolveDetectorConfig } from '../../perception/detector/config.ts';
import { Detector } from '../../perception/detector/model.ts';
import { trainDetector, trainingFrame } from '../../perception/detector/train.ts';
import { discoverSweep } from '../../perception/discover.ts';
import { SHIPPED_MODEL } from '../commands/detect.ts';
import { type Benchmark, type Figure, peakRssMb, timeRuns } from './benchmark.ts';
import { kittiSweep } from './kittiSweep.ts';
import { median } from '../../core/stats.ts';

/** Settings: timed sweeps, warm-up sweeps, threads (the 2-core target machine), training steps timed. */
export const DETECTOR_BENCH = { reps: 20, warmup: 3, threads: 2, trainWarmup: 3, trainSteps: 10 };

function modelPath(): string {
  if (!fs.existsSync(SHIPPED_MODEL))
    throw new Error(`${SHIPPED_MODEL} not found: the benchmark times the shipped model`);
  return SHIPPED_MODEL;
}

async function detectFigure(name: string, rangeM: number, emit: (f: Figure) => void) {
  const pts = kittiSweep();
  const det = await Detector.load(modelPath(), { threads: DETECTOR_BENCH.threads, rangeM });
  try {
    const parts = { features: [] as number[], network: [] as number[], decode: [] as number[] };
    let boxes = 0;
    const ms = await timeRuns(
      async () => {
        const b = await det.detect(pts, 0);
        boxes = b.cx.length;
        parts.features.push(det.lastTiming.featuresMs);
        parts.network.push(det.lastTiming.networkMs);
        parts.decode.push(det.lastTiming.decodeMs);
      },
      DETECTOR_BENCH.reps,
      DETECTOR_BENCH.warmup,
    );
    const timed = (a: number[]) => median(a.slice(DETECTOR_BENCH.warmup));
    const g = det.grid;
    emit({
      name,
      ms_per_sweep_median: median(ms),
      ms_min: Math.min(...ms),
      ms_max: Math.max(...ms),
      features_ms_median: timed(parts.features),
      network_ms_median: timed(parts.network),
      decode_ms_median: timed(parts.decode),
      grid: `${g.cols}x${g.rows} @ ${g.cellM} m (±${det.rangeM} m)`,
      points: pts.x.length,
      boxes,
      threads: DETECTOR_BENCH.threads,
      cores: os.availableParallelism(),
      peak_rss_mb: peakRssMb(),
    });
  } finally {
    await det.dispose();
  }
}

export const benchmarks: Benchmark[] = [
  {
    names: ['detect_sweep'],
    run: (emit) => detectFigure('detect_sweep', DEFAULT_GRID_CONFIG.rangeM, emit),
  },
  {
    names: ['detect_sweep_80m'],
    run: (emit) => detectFigure('detect_sweep_80m', 80, emit),
  },
  {
    names: ['detector_train'],
    async run(emit) {
      // One real sweep with its discovered boxes as labels: the cost of a step does not depend on the labels.
      const pts = kittiSweep();
      const cfg = resolveDetectorConfig({
        train: {
          steps: DETECTOR_BENCH.trainWarmup + DETECTOR_BENCH.trainSteps,
          threads: DETECTOR_BENCH.threads,
          checkpointEvery: 1_000_000,
        },
      });
      const found = discoverSweep(pts);
      const labels = Array.from({ length: found.boxes.cx.length }, (_, i) => boxAt(found.boxes, i));
      const frame = trainingFrame({ ...pts }, labels, cfg);
      const stamps: number[] = [];
      const res = await trainDetector([frame], cfg, { onStep: () => stamps.push(performance.now()) });
      const steps = stamps
        .slice(DETECTOR_BENCH.trainWarmup)
        .map((t, i) => t - stamps[DETECTOR_BENCH.trainWarmup + i - 1]);
      const msPerStep = median(steps);
      emit({
        name: 'detector_train',
        frames_per_s: (1000 * cfg.train.batchSize) / msPerStep,
        ms_per_step_median: msPerStep,
        ms_min: Math.min(...steps),
        ms_max: Math.max(...steps),
        batch: cfg.train.batchSize,
        crop: `${cfg.train.cropCells}x${cfg.train.cropCells} @ ${cfg.grid.cellM} m`,
        params: res.params.count(),
        threads: DETECTOR_BENCH.threads,
        peak_rss_mb: peakRssMb(),
      });
    },
  },
];
