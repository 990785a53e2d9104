// LiDAR tokenizer benchmarks (issue 12, point 6) on a synthetic HDL-64 sweep: encoder ms per sweep
// (voxelisation apart), a training step at the default config (feeds, peak RSS), and the renderer's rays/s.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PointCloud } from '../../core/arrow/records.ts';
import { TUNED_MALLOC_ENV } from '../../core/mallocEnv.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { Rng } from '../../core/rng.ts';
import { median } from '../../core/stats.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { DEFAULT_TOKENIZER_CONFIG, gridGeometry } from '../../worldmodel/config.ts';
import { raysFromPoints, samplesPerRay } from '../../worldmodel/rays.ts';
import { randomAugment, sensorOrigin, sensorPoints } from '../../worldmodel/sweep.ts';
import { trainingFeeds } from '../../worldmodel/tokenizerFeeds.ts';
import { buildTokenizerGraph, createTokenizerTrainer } from '../../worldmodel/tokenizerGraph.ts';
import { exportTokenizer, Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { createTokenizerNetwork } from '../../worldmodel/tokenizerNetwork.ts';
import { voxelize, type SensorPoints } from '../../worldmodel/voxelize.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { peakRssMb, timeRuns, type Benchmark, type Figure } from './benchmark.ts';

/** Settings: the synthetic log, threads (the 2-core target machine), repetitions, rays rendered. */
export const WORLDMODEL_BENCH = {
  seed: 1,
  frames: 2,
  threads: 2,
  encodeWarmup: 3,
  encodeReps: 15,
  trainWarmup: 2,
  trainSteps: 10,
  lr: 1e-3,
  renderRays: 8192,
  renderWarmup: 1,
  renderReps: 5,
  /** Issue 12: a sweep tokenised in under 50 ms. */
  targetMs: 50,
};

const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

/** A `drivekit synth` log of the default town (HDL-64E), written once per process into a temp dir. */
let logDir: Promise<string> | null = null;
function syntheticLog(): Promise<string> {
  logDir ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-wm-bench-'));
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const out = path.join(dir, 'log');
    const B = WORLDMODEL_BENCH;
    await writeSyntheticLog({ out, frames: B.frames, seed: B.seed, lidar: 'hdl64', writeScenario: false });
    return out;
  })();
  return logDir;
}

/** Every frame of a log: its points as stored and the sensor's origin in them. */
async function readFrames(dir: string): Promise<{ points: PointCloud; origin: [number, number, number] }[]> {
  const r = await LogReader.open(dir);
  try {
    const origin = sensorOrigin(r.meta);
    const out: { points: PointCloud; origin: [number, number, number] }[] = [];
    for (let i = 0; i < r.frameCount; i++) out.push({ points: (await r.readFrame(i)).points, origin });
    return out;
  } finally {
    await r.close();
  }
}

/**
 * The shipped tokenizer when there is one, else a freshly initialised default network exported to a temp
 * dir: the same architecture runs at the same speed, so the figures hold until a model is shipped.
 */
async function tokenizerUnderTest(): Promise<{ dir: string; model: 'shipped' | 'untrained' }> {
  if (fs.existsSync(path.join(SHIPPED_TOKENIZER, 'encoder.onnx')))
    return { dir: SHIPPED_TOKENIZER, model: 'shipped' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-wm-tokenizer-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const net = createTokenizerNetwork(new ParamStore({ seed: 1 }), DEFAULT_TOKENIZER_CONFIG);
  await exportTokenizer(net, dir, { untrained: true, purpose: 'benchmark' });
  return { dir, model: 'untrained' };
}

/** The sweep the inference figures use (the last frame: the town's traffic has moved in). */
async function benchSweep(): Promise<SensorPoints> {
  const f = (await readFrames(await syntheticLog())).at(-1)!;
  return sensorPoints(f.points, f.origin);
}

async function tokenizeFigure(emit: (f: Figure) => void): Promise<void> {
  const B = WORLDMODEL_BENCH;
  const pts = await benchSweep();
  const under = await tokenizerUnderTest();
  const tok = await Tokenizer.load(under.dir, { threads: B.threads });
  try {
    const cfg = tok.config;
    let voxels = 0;
    const vox = await timeRuns(() => (voxels = voxelize(cfg, pts).count), B.encodeReps, B.encodeWarmup);
    let tokens = 0;
    const ms = await timeRuns(
      async () => (tokens = (await tok.encode(pts)).length),
      B.encodeReps,
      B.encodeWarmup,
    );
    const g = cfg.grid;
    emit({
      name: 'tokenize_sweep',
      model: under.model,
      ms_per_sweep_median: round(median(ms)),
      ms_min: round(Math.min(...ms)),
      ms_max: round(Math.max(...ms)),
      voxelize_ms_median: round(median(vox)),
      target_ms: B.targetMs,
      meets_target: median(ms) < B.targetMs,
      points: pts.x.length,
      voxels,
      tokens,
      grid: `${g.cellsXY}x${g.cellsXY}x${g.cellsZ} @ ±${g.rangeM} m`,
      sweep: `synthetic hdl64 (seed ${B.seed}, frame ${B.frames - 1})`,
      threads: B.threads,
      reps: B.encodeReps,
    });
  } finally {
    await tok.dispose();
  }
}

async function renderFigure(emit: (f: Figure) => void): Promise<void> {
  const B = WORLDMODEL_BENCH;
  const pts = await benchSweep();
  const under = await tokenizerUnderTest();
  const tok = await Tokenizer.load(under.dir, { threads: B.threads });
  try {
    const cfg = tok.config;
    const grids = await tok.decode(await tok.encode(pts));
    const rays = raysFromPoints(cfg, pts, { max: B.renderRays, rng: new Rng(B.seed) });
    // The sample table is built inside render (its cost is part of rendering a sweep).
    const ms = await timeRuns(() => tok.render(grids, rays), B.renderReps, B.renderWarmup);
    const decodeMs = await timeRuns(() => tok.decode(new Int32Array(gridGeometry(cfg).tokensXY ** 2)), 3);
    emit({
      name: 'tokenizer_render',
      model: under.model,
      rays: rays.count,
      samples_per_ray: samplesPerRay(cfg),
      ms_median: round(median(ms)),
      ms_min: round(Math.min(...ms)),
      ms_max: round(Math.max(...ms)),
      rays_per_s: Math.round(rays.count / (median(ms) / 1000)),
      decode_ms_median: round(median(decodeMs)),
      threads: B.threads,
      reps: B.renderReps,
    });
  } finally {
    await tok.dispose();
  }
}

/**
 * Training steps at the default config as worldmodel/trainTokenizer.ts takes them (AdamW, clipping, the
 * same logged outputs), each on a freshly augmented sweep; feed building is timed apart because training
 * overlaps it with the previous step. Runs in a child process so peak RSS is the training's own.
 */
async function trainStepFigure(dir: string): Promise<Figure> {
  const B = WORLDMODEL_BENCH;
  const cfg = DEFAULT_TOKENIZER_CONFIG;
  const frames = await readFrames(dir);
  const ps = new ParamStore({ seed: B.seed });
  const tg = buildTokenizerGraph(ps, cfg);
  const trainer = await createTokenizerTrainer(tg, B.lr, { threads: B.threads });
  const feedMs: number[] = [];
  const stepMs: number[] = [];
  let loss = 0;
  let voxels = 0;
  try {
    for (let step = 0; step < B.trainWarmup + B.trainSteps; step++) {
      const rng = new Rng(B.seed * 100003 + step * 7 + 11);
      const t0 = process.hrtime.bigint();
      const f = frames[step % frames.length];
      const pts = sensorPoints(f.points, f.origin, randomAugment(rng));
      const ex = trainingFeeds(cfg, pts, rng, true, `synthetic frame ${step % frames.length}`);
      const t1 = process.hrtime.bigint();
      loss = (await trainer.step(ex.feeds)).loss;
      const t2 = process.hrtime.bigint();
      voxels = ex.voxels.count;
      if (step < B.trainWarmup) continue;
      feedMs.push(Number(t1 - t0) / 1e6);
      stepMs.push(Number(t2 - t1) / 1e6);
    }
  } finally {
    await trainer.dispose();
  }
  return {
    name: 'tokenizer_train_step',
    ms_per_step_median: round(median(stepMs)),
    ms_min: round(Math.min(...stepMs)),
    ms_max: round(Math.max(...stepMs)),
    feeds_ms_median: round(median(feedMs)),
    peak_rss_mb: round(peakRssMb()),
    params: ps.count(),
    rays: cfg.render.raysPerFrame,
    samples_per_ray: samplesPerRay(cfg),
    voxels_last_step: voxels,
    loss: round(loss, 4),
    config: 'DEFAULT_TOKENIZER_CONFIG',
    threads: B.threads,
    steps: B.trainSteps,
    warmup_steps: B.trainWarmup,
  };
}

/** Run the training figure in a fresh child process with the tuned malloc settings. */
function trainStepInChild(dir: string): Promise<Figure> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, 'train', dir], {
      env: { ...process.env, ...TUNED_MALLOC_ENV },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`worldmodel bench child exited ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Figure);
    });
  });
}

export const benchmarks: Benchmark[] = [
  { names: ['tokenize_sweep'], run: tokenizeFigure },
  {
    names: ['tokenizer_train_step'],
    async run(emit) {
      emit(await trainStepInChild(await syntheticLog()));
    },
  },
  { names: ['tokenizer_render'], run: renderFigure },
];

// Child-process entry: `node --import tsx tools/bench/worldmodel.bench.ts train <log dir>`.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [kind, dir] = process.argv.slice(2);
  if (kind !== 'train' || !dir) throw new Error('usage: worldmodel.bench.ts train <log dir>');
  process.stdout.write(JSON.stringify(await trainStepFigure(dir)) + '\n');
}
