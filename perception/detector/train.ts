// Training the BEV detector on (auto-)labels with core/nn: augmented random crops of labelled sweeps,
// CenterNet targets within the label range, AdamW with warm-up + cosine, checkpoints that resume exactly.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import type { Box3 } from '../../core/geometry/box.ts';
import { Graph } from '../../core/nn/graph.ts';
import type { Feeds } from '../../core/nn/graphSession.ts';
import { adamW } from '../../core/nn/optimizers.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { Rng } from '../../core/rng.ts';
import { warmupCosine } from '../../core/nn/schedules.ts';
import { Trainer } from '../../core/nn/trainer.ts';
import { trainLoop } from '../../core/nn/trainLoop.ts';
import { type AugPoints, type AugSample, augment } from './augment.ts';
import { BEV_CHANNEL_COUNT, bevFeatures, estimateGroundZ, gridAround } from './bevGrid.ts';
import type { DetectorConfig } from './config.ts';
import { detectionLoss, fillLossInputs, type LossArrays } from './losses.ts';
import { exportDetectorBytes } from './model.ts';
import { createDetectorNetwork, type DetectorNetwork, INPUT_MULTIPLE, OUTPUT_STRIDE } from './network.ts';
import { allocateTargets, encodeTargets, outputGrid, REG_CHANNEL_COUNT, type TargetMaps } from './targets.ts';
import { makeDirs } from '../../core/dirs.ts';

/** One labelled sweep to train on (vehicle frame). */
export interface TrainingFrame {
  points: AugPoints;
  /** Labels; those with fewer than `minLabelPoints` points are already left out. */
  boxes: Box3[];
  groundZ: number;
}

/** Points, struct-of-arrays, as a log frame holds them. */
export interface FramePoints {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  intensity: Float32Array;
  ring: Uint16Array;
}

/**
 * A training frame from a sweep and its labels: the ground level is estimated on the whole sweep, then
 * only points a training crop can reach are kept (saves memory on long logs).
 */
export function trainingFrame(
  pts: FramePoints,
  labels: readonly (Box3 & { numPoints?: number })[],
  cfg: DetectorConfig,
): TrainingFrame {
  const groundZ = estimateGroundZ(pts, cfg.groundLevel);
  const reach = cropReachM(cfg) + cfg.augment.translateStdM[0] * 4;
  const r2 = reach * reach;
  const keep: number[] = [];
  for (let i = 0; i < pts.x.length; i++) {
    const x = pts.x[i];
    const y = pts.y[i];
    if (x * x + y * y <= r2 && Number.isFinite(pts.z[i])) keep.push(i);
  }
  const pick = <T extends Float32Array | Uint16Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)(keep.length);
    for (let k = 0; k < keep.length; k++) out[k] = a[keep[k]];
    return out;
  };
  const boxes = labels
    .filter((b) => b.numPoints === undefined || b.numPoints < 0 || b.numPoints >= cfg.train.minLabelPoints)
    .map((b) => ({
      cx: b.cx,
      cy: b.cy,
      cz: b.cz,
      length: b.length,
      width: b.width,
      height: b.height,
      yaw: b.yaw,
    }));
  return {
    points: {
      x: pick(pts.x),
      y: pick(pts.y),
      z: pick(pts.z),
      intensity: pick(pts.intensity),
      ring: pick(pts.ring),
    },
    boxes,
    groundZ,
  };
}

/** Largest distance from the ego a crop centre is drawn at. */
function cropCentreRangeM(cfg: DetectorConfig): number {
  const half = (cfg.train.cropCells * cfg.grid.cellM) / 2;
  return Math.max(0, Math.min(cfg.targets.labelRangeM, cfg.grid.rangeM) - half / 2);
}

/** Farthest point (from the ego, before augmentation) a training crop can cover. */
function cropReachM(cfg: DetectorConfig): number {
  const half = (cfg.train.cropCells * cfg.grid.cellM) / 2;
  return (cropCentreRangeM(cfg) + half * Math.SQRT2) / cfg.augment.scaleMin;
}

/** Reusable arrays of one batch. */
interface BatchBuffers extends LossArrays {
  bev: Float32Array;
  maps: TargetMaps[];
}

function allocateBatch(cfg: DetectorConfig): BatchBuffers {
  const S = cfg.train.cropCells;
  const B = cfg.train.batchSize;
  const s = S / OUTPUT_STRIDE;
  const out = { xMinM: 0, yMinM: 0, cellM: 1, rows: s, cols: s };
  return {
    bev: new Float32Array(B * BEV_CHANNEL_COUNT * S * S),
    posWeight: new Float32Array(B * s * s),
    negWeight: new Float32Array(B * s * s),
    regWeight: new Float32Array(B * s * s),
    regTarget: new Float32Array(B * REG_CHANNEL_COUNT * s * s),
    maps: Array.from({ length: B }, () => allocateTargets(out)),
  };
}

/**
 * Fill `buf` with one batch drawn from `rng`: per slot a random frame, augmented, cropped around a random
 * centre within the label range, its BEV features and targets. Returns the number of label centres drawn.
 */
export function fillBatch(
  frames: readonly TrainingFrame[],
  rng: Rng,
  cfg: DetectorConfig,
  buf: BatchBuffers,
): number {
  const S = cfg.train.cropCells;
  const plane = BEV_CHANNEL_COUNT * S * S;
  const centreRange = cropCentreRangeM(cfg);
  let positives = 0;
  for (let b = 0; b < buf.maps.length; b++) {
    const f = frames[rng.int(frames.length)];
    const sample: AugSample = {
      points: {
        x: f.points.x.slice(),
        y: f.points.y.slice(),
        z: f.points.z.slice(),
        intensity: f.points.intensity.slice(),
        ring: f.points.ring.slice(),
      },
      boxes: f.boxes,
      groundZ: f.groundZ,
      ego: { x: 0, y: 0, rangeScale: 1 },
    };
    augment(sample, rng, cfg.augment);
    const cx = sample.ego.x + (2 * rng.uniform() - 1) * centreRange;
    const cy = sample.ego.y + (2 * rng.uniform() - 1) * centreRange;
    const grid = gridAround(cx, cy, S, S, cfg.grid.cellM);
    bevFeatures(sample.points, grid, sample.groundZ, cfg.features, buf.bev, b * plane);
    encodeTargets(
      sample.boxes,
      outputGrid(grid, OUTPUT_STRIDE),
      sample.groundZ,
      cfg.targets,
      sample.ego,
      buf.maps[b],
    );
    positives += buf.maps[b].count;
  }
  fillLossInputs(buf.maps, cfg.loss.beta, buf);
  return positives;
}

export interface TrainDetectorOptions {
  /** Save here every `checkpointEvery` steps; resume from it when it exists. */
  checkpointPath?: string;
  /** Progress-bar label (false: none). */
  progress?: string | false;
  /** Start from these weights (e.g. the previous self-training round) instead of a fresh init. */
  initFrom?: ParamStore;
  /** Facts stored in the exported model's metadata. */
  trainingInfo?: Record<string, unknown>;
  /**
   * Stop after this many steps in total (checkpointing there) although the schedule runs to train.steps:
   * a time-boxed slice of a longer run; calling again with the same checkpoint continues it.
   */
  stopAtStep?: number;
  /** Told when a checkpoint of another run (other settings or data) is set aside instead of resumed. */
  onStaleCheckpoint?: (path: string) => void;
  /** Called after every step with the loss terms. */
  onStep?: (step: number, loss: { total: number; focal: number; regression: number }) => void;
}

/**
 * What makes a run the same run: settings (all but the stopping step and thread count), data and starting
 * weights. A checkpoint resumes only a run with the same fingerprint, kept in a JSON file beside it.
 */
function runFingerprint(
  frames: readonly TrainingFrame[],
  cfg: DetectorConfig,
  opts: TrainDetectorOptions,
): string {
  let h = 2166136261;
  const mix = (v: number) => {
    h = Math.imul(h ^ (Math.round(v * 1000) | 0), 16777619) >>> 0;
  };
  for (const f of frames) {
    mix(f.points.x.length);
    mix(f.groundZ);
    for (const b of f.boxes) [b.cx, b.cy, b.cz, b.length, b.width, b.height, b.yaw].forEach(mix);
  }
  for (const p of opts.initFrom?.list() ?? []) for (let i = 0; i < p.data.length; i += 97) mix(p.data[i]);
  const settings = { ...cfg, train: { ...cfg.train, threads: undefined } };
  return JSON.stringify({ cfg: settings, data: h.toString(16), frames: frames.length });
}

function setAsideStaleCheckpoint(ckpt: string, fingerprint: string, opts: TrainDetectorOptions): void {
  const side = `${ckpt}.run.json`;
  const same = fs.existsSync(side) && fs.readFileSync(side, 'utf8') === fingerprint;
  if (fs.existsSync(ckpt) && !same) {
    fs.renameSync(ckpt, `${ckpt}.stale`);
    opts.onStaleCheckpoint?.(ckpt);
  }
  makeDirs(path.dirname(ckpt));
  writeFileAtomicSync(side, fingerprint);
}

export interface TrainDetectorResult {
  params: ParamStore;
  net: DetectorNetwork;
  /** The exported inference model (plain ONNX with the spec in its metadata). */
  onnx: Uint8Array;
  steps: number;
  resumedFrom: number | null;
  /** Loss terms of each step run in this call. */
  losses: { total: number; focal: number; regression: number }[];
  seconds: number;
  /** Training crops per second (batch size × steps / seconds) in this call. */
  framesPerS: number;
}

/** Train (or resume training) a detector on `frames` and export it. */
export async function trainDetector(
  frames: readonly TrainingFrame[],
  cfg: DetectorConfig,
  opts: TrainDetectorOptions = {},
): Promise<TrainDetectorResult> {
  const tc = cfg.train;
  if (frames.length === 0) throw new Error('trainDetector: no training frames');
  if (tc.cropCells % INPUT_MULTIPLE !== 0)
    throw new Error(`train.cropCells ${tc.cropCells} is not a multiple of ${INPUT_MULTIPLE}`);
  if (opts.checkpointPath)
    setAsideStaleCheckpoint(opts.checkpointPath, runFingerprint(frames, cfg, opts), opts);
  const params = new ParamStore({ seed: tc.seed });
  const net = createDetectorNetwork(params, cfg.network);
  if (opts.initFrom) params.load(new Map(opts.initFrom.list().map((p) => [p.name, p.data])));
  const S = tc.cropCells;
  const s = S / OUTPUT_STRIDE;
  const B = tc.batchSize;
  const g = new Graph({ name: 'detector_train' });
  const bev = g.input('bev', [B, BEV_CHANNEL_COUNT, S, S]);
  const posWeight = g.input('pos_weight', [B, 1, s, s]);
  const negWeight = g.input('neg_weight', [B, 1, s, s]);
  const regWeight = g.input('reg_weight', [B, 1, s, s]);
  const regTarget = g.input('reg_target', [B, REG_CHANNEL_COUNT, s, s]);
  const heads = net(bev);
  const loss = detectionLoss(
    heads.heatmap,
    heads.boxes,
    { posWeight, negWeight, regWeight, regTarget },
    cfg.loss,
  );
  const trainer = await Trainer.create(g, {
    loss: loss.total,
    optimizer: adamW({ weightDecay: tc.weightDecay }),
    lr: warmupCosine({
      lr: tc.lr,
      warmupSteps: tc.warmupSteps,
      totalSteps: tc.steps,
      minLr: tc.lr * tc.minLrRatio,
    }),
    clipGradNorm: tc.clipGradNorm,
    outputs: { focal: loss.focal, regression: loss.regression },
    threads: tc.threads,
  });
  const buf = allocateBatch(cfg);
  const losses: TrainDetectorResult['losses'] = [];
  const t0 = performance.now();
  try {
    const res = await trainLoop({
      trainer,
      params,
      steps: Math.min(tc.steps, opts.stopAtStep ?? tc.steps),
      rng: new Rng(tc.seed * 7919 + 17),
      progress: opts.progress ?? false,
      checkpoint: opts.checkpointPath ? { path: opts.checkpointPath, every: tc.checkpointEvery } : undefined,
      batch: (_step, rng): Feeds => {
        fillBatch(frames, rng, cfg, buf);
        return {
          bev: buf.bev,
          pos_weight: buf.posWeight,
          neg_weight: buf.negWeight,
          reg_weight: buf.regWeight,
          reg_target: buf.regTarget,
        };
      },
      onStep: (step, r) => {
        const terms = {
          total: r.loss,
          focal: Number(r.outputs.focal.data[0]),
          regression: Number(r.outputs.regression.data[0]),
        };
        losses.push(terms);
        opts.onStep?.(step, terms);
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    const ran = res.steps - (res.resumedFrom ?? 0);
    return {
      params,
      net,
      onnx: exportDetectorBytes(net, cfg, { steps: res.steps, ...opts.trainingInfo }),
      steps: res.steps,
      resumedFrom: res.resumedFrom,
      losses,
      seconds,
      framesPerS: ran > 0 ? (ran * B) / seconds : 0,
    };
  } finally {
    await trainer.dispose();
  }
}
