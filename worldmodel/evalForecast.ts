// Scoring forecasts of a log by the 4D-Occ protocol, always beside the tokenizer's floor (encode-then-decode of
// the true future), copy-last (t0 sweep placed by the known future pose) and constant-velocity ego extrapolation.
import type { Boxes } from '../core/arrow/records.ts';
import { composePoses, invertPose, type Pose } from '../core/geometry/pose.ts';
import { createProgress } from '../core/progress.ts';
import type { LogReader } from '../datasets/logstore.ts';
import type { TokenizerConfig } from './config.ts';
import type { ForecastRecord } from './forecastFile.ts';
import {
  EGO_BOX,
  protocolOffsets,
  rayPoints,
  removeEgo,
  scoreSweep,
  transformed,
  truthSweep,
  type Horizon,
  type SweepFigures,
} from './forecastProtocol.ts';
import { relativePose, requirePoses } from './forecastTokens.ts';
import { moverChamfer } from './moverChamfer.ts';
import { depthAlongRays } from './rangeDepth.ts';
import { sensorOrigin, sensorPoints } from './sweep.ts';
import type { Tokenizer } from './tokenizerModel.ts';
import type { SensorPoints } from './voxelize.ts';

export const METHODS = ['model', 'oracle', 'copy_last', 'const_vel'] as const;
export type Method = (typeof METHODS)[number];

export interface MethodFigures {
  chamfer: number;
  chamfer_near: number;
  l1: number;
  absrel: number;
  /** Median over the scored sweeps of the vanilla Chamfer (squared Chamfer is dominated by outliers). */
  chamfer_median: number;
  /** Chamfer on moving objects' points (labelled logs only). */
  chamfer_movers?: number;
}

export interface EvalForecastResult {
  log: string;
  starts: number[];
  '1s'?: Record<Method, MethodFigures> & { starts: number[] };
  '3s'?: Record<Method, MethodFigures> & { starts: number[] };
}

/** Constant-velocity ego pose `k` raw frames after t0, from the motion between frames t0 − 1 and t0. */
export function constantVelocityPose(poses: Float64Array, t0: number, k: number): Pose {
  const at = (f: number) => poses.subarray(16 * f, 16 * f + 16);
  if (t0 === 0) return at(0).slice();
  const delta = composePoses(invertPose(at(t0 - 1)), at(t0));
  let p: Pose = at(t0).slice();
  for (let i = 0; i < k; i++) p = composePoses(p, delta);
  return p;
}

/**
 * The points of `p` (sensor-relative) that the truth could hold: inside the tokenizer's region, beyond its
 * minimum range and outside the ego box (vehicle frame, the sensor at `origin`).
 */
function scoredPart(
  cfg: TokenizerConfig,
  p: SensorPoints,
  origin: readonly [number, number, number],
): SensorPoints {
  const g = cfg.grid;
  const minSq = cfg.render.minRangeM ** 2;
  const keep: number[] = [];
  for (let i = 0; i < p.x.length; i++) {
    const x = p.x[i];
    const y = p.y[i];
    const z = p.z[i];
    if (!(Math.abs(x) < g.rangeM && Math.abs(y) < g.rangeM && z >= g.zMinM && z < g.zMaxM)) continue;
    if (x * x + y * y + z * z < minSq) continue;
    const vx = x + origin[0];
    if (vx >= EGO_BOX.xMinM && vx <= EGO_BOX.xMaxM && Math.abs(y + origin[1]) <= EGO_BOX.halfYM) continue;
    keep.push(i);
  }
  return {
    x: Float32Array.from(keep, (i) => p.x[i]),
    y: Float32Array.from(keep, (i) => p.y[i]),
    z: Float32Array.from(keep, (i) => p.z[i]),
  };
}

const mean = (xs: readonly number[]) => {
  const f = xs.filter((v) => Number.isFinite(v));
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
};
const median = (xs: readonly number[]) => {
  const f = xs.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return f.length ? f[Math.floor(f.length / 2)] : NaN;
};

export interface EvalForecastOptions {
  log: LogReader;
  records: readonly ForecastRecord[];
  /** The tokenizer's config: its region bounds the scored truth. */
  tokenizerConfig: TokenizerConfig;
  /** The tokenizer that encodes and decodes the oracle (none: no oracle). */
  tokenizer?: Tokenizer | null;
  /** Score every n-th true ray (the forecast file's `ray_stride`; 1 = all). */
  rayStride?: number;
  progress?: boolean;
}

export async function evalForecast(o: EvalForecastOptions): Promise<EvalForecastResult> {
  const { log } = o;
  const tokenizer = o.tokenizer ?? null;
  requirePoses(log);
  const cfg = o.tokenizerConfig;
  const origin = sensorOrigin(log.meta);
  const poses = log.poses;
  const byPair = new Map(o.records.map((r) => [`${r.startFrame},${r.targetFrame}`, r]));
  const starts = [...new Set(o.records.map((r) => r.startFrame))].sort((a, b) => a - b);
  const labels: Boxes | null = log.hasBoxes('labels') ? log.readBoxes('labels') : null;
  const frames = new Map<number, SensorPoints>();
  const frame = async (i: number) => {
    if (!frames.has(i)) frames.set(i, removeEgo((await log.readFrame(i)).points));
    return frames.get(i)!;
  };
  const oracleDepth = new Map<number, Float32Array>();
  const result: EvalForecastResult = { log: log.dir, starts };
  const plan: [Horizon, number[], number[]][] = [];
  for (const h of ['1s', '3s'] as const) {
    const offs = protocolOffsets(h, log.meta.rateHz);
    const ok = starts.filter((s) => offs.every((d) => s + d < log.frameCount && byPair.has(`${s},${s + d}`)));
    if (ok.length) plan.push([h, offs, ok]);
  }
  const total = plan.reduce((n, [, offs, ok]) => n + offs.length * ok.length, 0);
  const bar = o.progress ? createProgress('eval-forecast', total, { unit: 'forecasts' }) : null;
  for (const [h, offs, ok] of plan) {
    const per: Record<Method, { fig: SweepFigures[]; movers: number[] }[]> = {
      model: [],
      oracle: [],
      copy_last: [],
      const_vel: [],
    };
    for (const s of ok) {
      const startSweep = await frame(s);
      const acc: Record<Method, { fig: SweepFigures[]; movers: number[] }> = {
        model: { fig: [], movers: [] },
        oracle: { fig: [], movers: [] },
        copy_last: { fig: [], movers: [] },
        const_vel: { fig: [], movers: [] },
      };
      for (const d of offs) {
        const t = s + d;
        const t0FromT = relativePose(poses, s, t);
        const tFromT0 = invertPose(t0FromT);
        const truth = truthSweep(cfg, await frame(t), origin, t0FromT, o.rayStride ?? 1);
        const neg: [number, number, number] = [-origin[0], -origin[1], -origin[2]];
        const score = (m: Method, predT0: SensorPoints, depth: Float32Array) => {
          acc[m].fig.push(scoreSweep(predT0, depth, truth));
          if (labels)
            acc[m].movers.push(
              moverChamfer(labels, poses, s, t, predT0, truth.pointsT0, truth.pointsT0, tFromT0),
            );
        };
        // The model: its points are in the t0 frame; depth along the truth rays when rendered along them.
        const rec = byPair.get(`${s},${t}`)!;
        const recSensor = transformed(transformed(rec.points, tFromT0), IDENTITY, neg);
        const aligned = rec.rays === 'truth' && rec.points.x.length === truth.rays.count;
        const modelDepth = aligned
          ? Float32Array.from(recSensor.x, (x, i) => Math.hypot(x, recSensor.y[i], recSensor.z[i]))
          : depthAlongRays(cfg, recSensor, truth.rays);
        score('model', rec.points, modelDepth);
        // Copy-last: the t0 sweep placed by the known pose, seen from the future sensor's region.
        const cl = scoredPart(cfg, transformed(transformed(startSweep, tFromT0), IDENTITY, neg), origin);
        score('copy_last', transformed(cl, t0FromT, origin), depthAlongRays(cfg, cl, truth.rays));
        // Constant velocity: the t0 sweep placed by the extrapolated pose, read as the future sensor's sweep.
        const cvFromT0 = composePoses(
          invertPose(constantVelocityPose(poses, s, d)),
          poses.subarray(16 * s, 16 * s + 16),
        );
        const cv = scoredPart(cfg, transformed(transformed(startSweep, cvFromT0), IDENTITY, neg), origin);
        score('const_vel', transformed(cv, t0FromT, origin), depthAlongRays(cfg, cv, truth.rays));
        if (tokenizer) {
          if (!oracleDepth.has(t)) {
            const pts = sensorPoints((await log.readFrame(t)).points, origin);
            const grids = await tokenizer.decode(await tokenizer.encode(pts, `${log.dir} frame ${t}`));
            oracleDepth.set(t, await tokenizer.render(grids, truth.rays));
          }
          const od = oracleDepth.get(t)!;
          score('oracle', rayPoints(truth.rays, od, origin, t0FromT), od);
        }
        bar?.tick();
      }
      for (const m of METHODS) per[m].push(acc[m]);
    }
    const summary = {} as Record<Method, MethodFigures>;
    for (const m of METHODS) {
      if (m === 'oracle' && !tokenizer) continue;
      const starts = per[m];
      const avg = (k: keyof SweepFigures) => mean(starts.map((a) => mean(a.fig.map((f) => f[k]))));
      const fig: MethodFigures = {
        chamfer: avg('chamfer'),
        chamfer_near: avg('chamferNear'),
        l1: avg('l1'),
        absrel: avg('absrel'),
        chamfer_median: median(starts.flatMap((a) => a.fig.map((f) => f.chamfer))),
      };
      if (labels) fig.chamfer_movers = mean(starts.map((a) => mean(a.movers)));
      summary[m] = fig;
    }
    result[h] = { ...summary, starts: ok };
  }
  bar?.stop();
  return result;
}

const IDENTITY: Pose = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
