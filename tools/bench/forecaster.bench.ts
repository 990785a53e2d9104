// World-model forecaster benchmarks (issue 13, point 8): ms per predicted future frame of one sampling chunk
// (K = 10 and K = 1, guidance on), and a training step at the default config (ms, peak RSS in a child process).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TUNED_MALLOC_ENV } from '../../core/mallocEnv.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { Rng } from '../../core/rng.ts';
import { median } from '../../core/stats.ts';
import { lossFeeds, trainingWindow, windowFeeds } from '../../worldmodel/diffusionBatch.ts';
import { DEFAULT_FORECASTER_CONFIG } from '../../worldmodel/forecastConfig.ts';
import { buildForecasterGraph, createForecasterTrainer } from '../../worldmodel/forecasterGraph.ts';
import { Forecaster } from '../../worldmodel/forecasterModel.ts';
import type { LogTokens } from '../../worldmodel/forecastTokens.ts';
import { drawObjective } from '../../worldmodel/maskSchedule.ts';
import { sampleFuture } from '../../worldmodel/sampling.ts';
import { SHIPPED_RAY_DEPTH, SHIPPED_WORLDMODEL } from '../commands/forecast.ts';
import { forecastLogRayDepth } from '../../worldmodel/rayDepthForecast.ts';
import { RayDepthHead } from '../../worldmodel/rayDepthModel.ts';
import { createRayDepthPool } from '../../worldmodel/rayDepthPool.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { realData } from '../../core/paths.ts';
import { importLog } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { forecastLog } from '../../worldmodel/forecastLog.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { peakRssMb, timeRuns, type Benchmark, type Figure } from './benchmark.ts';

export const FORECASTER_BENCH = { seed: 1, threads: 2, reps: 3, warmup: 1, trainWarmup: 2, trainSteps: 8 };

const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

/** Random token grids standing in for a log: what the network computes does not depend on their values. */
function randomLog(codes: number, tokensXY: number, frames: number, rng: Rng): LogTokens {
  const g = tokensXY * tokensXY;
  const poses = new Float64Array(16 * frames);
  for (let f = 0; f < frames; f++) poses.set([1, 0, 0, f, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16 * f);
  const priors = new Map<string, Int32Array>();
  for (let s = 0; s < frames; s++)
    for (const d of [2, 4, 6])
      priors.set(
        `${s},${s + d}`,
        Int32Array.from({ length: g }, () => rng.int(codes)),
      );
  return {
    logId: 'bench',
    frames,
    tokensXY,
    poses,
    tokens: Int32Array.from({ length: frames * g }, () => rng.int(codes)),
    occupied: new Uint8Array(frames * g),
    priors,
  };
}

async function forecastFrameFigures(emit: (f: Figure) => void): Promise<void> {
  const B = FORECASTER_BENCH;
  if (!fs.existsSync(SHIPPED_WORLDMODEL)) return;
  const fc = await Forecaster.load(SHIPPED_WORLDMODEL, { threads: B.threads });
  try {
    const { codes, tokensXY, config: cfg } = fc.spec;
    const rng = new Rng(B.seed);
    const G = tokensXY * tokensXY;
    const grid = () => Int32Array.from({ length: G }, () => rng.int(codes));
    const ctx = {
      cfg,
      codes,
      tokensXY,
      past: Array.from({ length: cfg.frames.past }, grid),
      priors: Array.from({ length: cfg.frames.future }, grid),
      poses: Array.from({ length: cfg.frames.past + cfg.frames.future }, () =>
        Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0),
      ),
    };
    for (const steps of [10, 1]) {
      const ms = await timeRuns(
        () => sampleFuture((f) => fc.logits(f), ctx, { ...cfg.sampling, steps }, rng),
        B.reps,
        B.warmup,
      );
      emit({
        name: 'forecast_frame',
        steps,
        guidance: cfg.sampling.guidance,
        ms_per_frame_median: round(median(ms) / cfg.frames.future),
        ms_per_chunk_median: round(median(ms)),
        frames_per_chunk: cfg.frames.future,
        tokens: `${tokensXY}x${tokensXY}`,
        threads: B.threads,
        reps: B.reps,
        note: 'sampling only (tokens in, tokens out); decoding and rendering are tokenizer_render',
      });
    }
  } finally {
    await fc.dispose();
  }
}

/**
 * A whole 1 s forecast of one start frame of real KITTI 0048 at K = 1 (issue 27: ≤ 1 s on 2 cores): encode the
 * past, two sampling chunks, priors, and the five output sweeps rendered along their true rays (every ray) —
 * by the decoder (the model) and by the hybrid renderer with the threshold above 1 (the ray-trace of the past
 * sweeps; the decoder only on changed columns). The log is imported once into a temporary folder.
 */
async function forecastSecondFigures(emit: (f: Figure) => void): Promise<void> {
  const B = FORECASTER_BENCH;
  const src = realData('kitti-0048');
  if (!fs.existsSync(SHIPPED_WORLDMODEL) || !fs.existsSync(src)) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-bench-forecast-'));
  try {
    await importLog(src, 'pcd', path.join(dir, 'log'), {
      posesPath: path.join(src, 'poses_icp_estimated.txt'),
      posesFrame: 'vehicle',
    });
    const log = await LogReader.open(path.join(dir, 'log'));
    const fc = await Forecaster.load(SHIPPED_WORLDMODEL, { threads: B.threads });
    const tok = await Tokenizer.load(SHIPPED_TOKENIZER, { threads: B.threads });
    try {
      const sampling = { ...fc.config.sampling, steps: 1 };
      for (const kind of ['model', 'hybrid'] as const) {
        let t0 = 2;
        const ms = await timeRuns(
          () =>
            forecastLog(log, tok, fc, {
              past: fc.config.frames.past,
              horizonS: 1,
              startStride: 1,
              // A new start each run: nothing is cached between runs.
              starts: [(t0 += 2)],
              sampling,
              seed: B.seed,
              write: 'protocol',
              hybrid: kind === 'hybrid' ? { threshold: 1.01, pastSweeps: 3, misses: 'ground' } : undefined,
            }),
          B.reps,
          B.warmup,
        );
        emit({
          name: 'forecast_1s',
          renderer: kind,
          steps: 1,
          guidance: sampling.guidance,
          ms_median: round(median(ms)),
          ms_min: round(Math.min(...ms)),
          sweeps: 5,
          threads: B.threads,
          reps: B.reps,
          note: 'one start of KITTI 0048 to 1 s: encode, 2 sampling chunks, priors, 5 sweeps rendered along every true ray',
        });
      }
      if (fs.existsSync(SHIPPED_RAY_DEPTH)) {
        // The learned ray-depth head (fold A: KITTI 0048 never trained on): no tokens, the past sweeps placed in
        // each future frame, the ray-trace and the head's correction along every true ray.
        const head = await RayDepthHead.load(SHIPPED_RAY_DEPTH, B.threads);
        // The pool lives as long as the head (started outside the timing, as the head is loaded outside it); one
        // thread featurising is timed beside it, so the gain from the pool is in the same run.
        try {
          for (const workers of [B.threads, 1]) {
            const pool = createRayDepthPool(tok.config, workers);
            try {
              let t0 = 2;
              const ms = await timeRuns(
                () =>
                  forecastLogRayDepth(log, tok.config, head, {
                    starts: [(t0 += 2)],
                    horizons: ['1s'],
                    rayStride: 1,
                    pool,
                  }),
                B.reps,
                B.warmup,
              );
              emit({
                name: 'forecast_1s',
                renderer: 'ray_depth',
                ms_median: round(median(ms)),
                ms_min: round(Math.min(...ms)),
                sweeps: 5,
                threads: B.threads,
                feature_workers: pool.workers,
                reps: B.reps,
                note: `one start of KITTI 0048 to 1 s by the learned ray-depth head: 3 past sweeps placed in 5 future frames, ray-trace and head along every true ray; inputs on ${pool.workers || 'no'} worker threads`,
              });
            } finally {
              await pool.close();
            }
          }
        } finally {
          await head.dispose();
        }
      }
    } finally {
      await fc.dispose();
      await tok.dispose();
      await log.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Training steps at the default config on random windows (the step's cost does not depend on the data). */
async function trainStepFigure(): Promise<Figure> {
  const B = FORECASTER_BENCH;
  const cfg = DEFAULT_FORECASTER_CONFIG;
  const codes = 512;
  const t = 64;
  const rng = new Rng(B.seed);
  const lt = randomLog(codes, t, 20, rng);
  const ps = new ParamStore({ seed: B.seed });
  const fg = buildForecasterGraph(ps, cfg, codes, t);
  const trainer = await createForecasterTrainer(fg, 1e-3, { threads: B.threads });
  const T = cfg.frames.past + cfg.frames.future;
  const stepMs: number[] = [];
  try {
    for (let s = 0; s < B.trainWarmup + B.trainSteps; s++) {
      const w = trainingWindow(cfg, lt, 4 + rng.int(8), 2, codes, drawObjective(rng, cfg.diffusion.mix), rng);
      const feeds = { ...windowFeeds([w], T, t), ...lossFeeds([w], T, cfg.train.lossTokens, rng) };
      const t0 = process.hrtime.bigint();
      await trainer.step(feeds);
      if (s >= B.trainWarmup) stepMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  } finally {
    await trainer.dispose();
  }
  return {
    name: 'worldmodel_train_step',
    ms_per_step_median: round(median(stepMs)),
    ms_min: round(Math.min(...stepMs)),
    ms_max: round(Math.max(...stepMs)),
    peak_rss_mb: round(peakRssMb()),
    params: ps.count(),
    frames: T,
    tokens: `${t}x${t}`,
    config: 'DEFAULT_FORECASTER_CONFIG',
    threads: B.threads,
    steps: B.trainSteps,
  };
}

function trainStepInChild(): Promise<Figure> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, 'train'], {
      env: { ...process.env, ...TUNED_MALLOC_ENV },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`forecaster bench child exited ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Figure);
    });
  });
}

export const benchmarks: Benchmark[] = [
  { names: ['forecast_frame'], run: forecastFrameFigures },
  { names: ['forecast_1s'], run: forecastSecondFigures },
  {
    names: ['worldmodel_train_step'],
    async run(emit) {
      emit(await trainStepInChild());
    },
  },
];

// Child-process entry: `node --import tsx tools/bench/forecaster.bench.ts train`.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (process.argv[2] !== 'train') throw new Error('usage: forecaster.bench.ts train');
  process.stdout.write(JSON.stringify(await trainStepFigure()) + '\n');
}
