// Forecasts of a log scored by the 4D-Occ protocol beside every honest baseline (copy-last, ray-traces of past
// sweeps, the multi-sweep prior) and the tokenizer's floor; the bar is the best baseline per figure and horizon.
import type { Boxes } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { composePoses, invertPose, type Pose } from '../core/geometry/pose.ts';
import { createProgress } from '../core/progress.ts';
import type { LogReader } from '../datasets/logstore.ts';
import { aggregateSweeps, pastFrames } from './baselines/pastSweeps.ts';
import { copyLastRaycast } from './baselines/copyLastRaycast.ts';
import { rayTracePast } from './baselines/rayTracePast.ts';
import { priorDepth } from './baselines/tokenizedPrior.ts';
import { voxelRayCast } from './baselines/voxelRayCast.ts';
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
import { selectPoints, type SensorPoints } from './voxelize.ts';

/** Baselines that need no tokenizer. */
export const POINT_BASELINES = [
  'copy_last',
  'copy_last_raycast',
  'const_vel',
  'ray_trace',
  'ray_trace_clamped',
  'ray_trace_ground',
  'ray_cast_voxels',
] as const;
/** Baselines through the tokenizer (copy-last as tokens, the multi-sweep prior). */
export const TOKEN_BASELINES = ['copy_last_tok', 'prior'] as const;
/** Every method that is not a forecast, in table order; the oracle is the tokenizer's floor, not a baseline. */
export const METHODS = ['oracle', ...TOKEN_BASELINES, ...POINT_BASELINES] as const;
export type Baseline = (typeof POINT_BASELINES)[number] | (typeof TOKEN_BASELINES)[number];

/** Figures in which the bar (best baseline) is found. */
export const BAR_FIGURES = ['chamfer', 'chamfer_median', 'chamfer_trimmed', 'l1', 'l1_median'] as const;
export type BarFigure = (typeof BAR_FIGURES)[number];

export interface MethodFigures {
  /** Squared Chamfer (m²), ½(mean pred→true + mean true→pred), averaged over sweeps then starts. */
  chamfer: number;
  /** ½(median pred→true + median true→pred) of the squared distances. */
  chamfer_median: number;
  /** ½ of the two directions' 99 %-trimmed means. */
  chamfer_trimmed: number;
  /** Near field (±70 × ±70 × ±4.5 m of t0) against every true return there, not cropped to the region. */
  chamfer_near: number;
  l1: number;
  l1_median: number;
  absrel: number;
  /** Chamfer on moving objects' points (labelled logs only). */
  chamfer_movers?: number;
}

export interface HorizonFigures {
  starts: number[];
  methods: Record<string, MethodFigures>;
  /** Per figure: the best baseline and its value — the bar a forecaster must be below. */
  bar: Record<BarFigure, { method: string; value: number }>;
  /** Per forecast: whether it is below the bar in each figure. */
  beats_bar: Record<string, Record<BarFigure, boolean>>;
}

export interface EvalForecastResult {
  log: string;
  starts: number[];
  /** Observed sweeps aggregated by the ray-trace baselines and the prior (0.2 s apart, the last at t0). */
  past_sweeps: number;
  '1s'?: HorizonFigures;
  '3s'?: HorizonFigures;
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
  const keep = new Int32Array(p.x.length);
  let n = 0;
  for (let i = 0; i < p.x.length; i++) {
    const x = p.x[i];
    const y = p.y[i];
    const z = p.z[i];
    if (!(Math.abs(x) < g.rangeM && Math.abs(y) < g.rangeM && z >= g.zMinM && z < g.zMaxM)) continue;
    if (x * x + y * y + z * z < minSq) continue;
    const vx = x + origin[0];
    if (vx >= EGO_BOX.xMinM && vx <= EGO_BOX.xMaxM && Math.abs(y + origin[1]) <= EGO_BOX.halfYM) continue;
    keep[n++] = i;
  }
  return selectPoints(p, keep, n);
}

const mean = (xs: readonly number[]) => {
  const f = xs.filter((v) => Number.isFinite(v));
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
};

/** A named forecast of the log (one `drivekit forecast` file). */
export interface NamedForecast {
  name: string;
  records: readonly ForecastRecord[];
}

export interface EvalForecastOptions {
  log: LogReader;
  /** The forecast scored as "model" (kept for one-forecast callers); `forecasts` adds named ones. */
  records?: readonly ForecastRecord[];
  forecasts?: readonly NamedForecast[];
  /** Start frames when no forecast is given (baselines only). */
  starts?: readonly number[];
  /** The tokenizer's config: its region bounds the scored truth. */
  tokenizerConfig: TokenizerConfig;
  /** The tokenizer of the oracle and the token baselines (none: those are left out). */
  tokenizer?: Tokenizer | null;
  /** Leave out the oracle (encode-then-decode of the true future) even with a tokenizer. */
  oracle?: boolean;
  /** Score every n-th true ray (the forecast file's `ray_stride`; 1 = all). */
  rayStride?: number;
  /** Observed sweeps aggregated by the ray-trace baselines and the prior, 0.2 s apart (default 3). */
  pastSweeps?: number;
  /** The horizons scored (default both). */
  horizons?: readonly Horizon[];
  progress?: boolean;
}

/** 0.2 s in raw frames: the step between the observed sweeps a forecaster (and the baselines) see. */
const PAST_DT_S = 0.2;

export async function evalForecast(o: EvalForecastOptions): Promise<EvalForecastResult> {
  const { log } = o;
  const tokenizer = o.tokenizer ?? null;
  requirePoses(log);
  const cfg = o.tokenizerConfig;
  const origin = sensorOrigin(log.meta);
  const poses = log.poses;
  const forecasts: NamedForecast[] = [
    ...(o.records ? [{ name: 'model', records: o.records }] : []),
    ...(o.forecasts ?? []),
  ];
  const names = new Set<string>();
  for (const f of forecasts) {
    if (names.has(f.name) || (METHODS as readonly string[]).includes(f.name))
      throw new InputError(f.name, 'two forecasts (or a forecast and a baseline) share this name');
    names.add(f.name);
  }
  const byPair = forecasts.map((f) => new Map(f.records.map((r) => [`${r.startFrame},${r.targetFrame}`, r])));
  const starts = forecasts.length
    ? [...new Set(forecasts[0].records.map((r) => r.startFrame))].sort((a, b) => a - b)
    : [...(o.starts ?? [])].sort((a, b) => a - b);
  const pastSweeps = o.pastSweeps ?? 3;
  const pastStep = Math.max(1, Math.round(PAST_DT_S * log.meta.rateHz));
  const labels: Boxes | null = log.hasBoxes('labels') ? log.readBoxes('labels') : null;
  const frames = new Map<number, SensorPoints>();
  const frame = async (i: number) => {
    if (!frames.has(i)) frames.set(i, removeEgo((await log.readFrame(i)).points));
    return frames.get(i)!;
  };
  const oracleDepth = new Map<number, Float32Array>();
  const result: EvalForecastResult = { log: log.dir, starts, past_sweeps: pastSweeps };
  const plan: [Horizon, number[], number[]][] = [];
  for (const h of o.horizons ?? (['1s', '3s'] as const)) {
    const offs = protocolOffsets(h, log.meta.rateHz);
    const ok = starts.filter(
      (s) =>
        offs.every((d) => s + d < log.frameCount) &&
        byPair.every((m) => offs.every((d) => m.has(`${s},${s + d}`))),
    );
    if (ok.length) plan.push([h, offs, ok]);
  }
  const total = plan.reduce((n, [, offs, ok]) => n + offs.length * ok.length, 0);
  const bar = o.progress ? createProgress('eval-forecast', total, { unit: 'forecasts' }) : null;
  const withTokens = tokenizer !== null;
  const withOracle = withTokens && o.oracle !== false;
  const methodNames = [
    ...forecasts.map((f) => f.name),
    ...(withOracle ? ['oracle'] : []),
    ...(withTokens ? TOKEN_BASELINES : []),
    ...POINT_BASELINES,
  ];
  const baselines = new Set<string>([...(withTokens ? TOKEN_BASELINES : []), ...POINT_BASELINES]);
  type Acc = { fig: SweepFigures[]; movers: number[] };
  for (const [h, offs, ok] of plan) {
    const per = new Map<string, Acc[]>(methodNames.map((m) => [m, []]));
    for (const s of ok) {
      const startSweep = await frame(s);
      const acc = new Map<string, Acc>(methodNames.map((m) => [m, { fig: [], movers: [] }]));
      const sources = await Promise.all(
        pastFrames(s, pastStep, pastSweeps).map(async (p) => ({ frame: p, points: await frame(p) })),
      );
      for (const d of offs) {
        const t = s + d;
        const t0FromT = relativePose(poses, s, t);
        const tFromT0 = invertPose(t0FromT);
        const truth = truthSweep(cfg, await frame(t), origin, t0FromT, o.rayStride ?? 1);
        const neg: [number, number, number] = [-origin[0], -origin[1], -origin[2]];
        const score = (m: string, predT0: SensorPoints, depth: Float32Array) => {
          const a = acc.get(m)!;
          a.fig.push(scoreSweep(predT0, depth, truth));
          if (labels)
            a.movers.push(moverChamfer(labels, poses, s, t, predT0, truth.pointsT0, truth.pointsT0, tFromT0));
        };
        // Depths along the true rays become points placed in the start frame, as every rendered forecast's.
        const along = (depth: Float32Array) => rayPoints(truth.rays, depth, origin, t0FromT);
        forecasts.forEach((f, i) => {
          const rec = byPair[i].get(`${s},${t}`)!;
          const recSensor = transformed(transformed(rec.points, tFromT0), IDENTITY, neg);
          const aligned = rec.rays === 'truth' && rec.points.x.length === truth.rays.count;
          const depth = aligned
            ? Float32Array.from(recSensor.x, (x, k) => Math.hypot(x, recSensor.y[k], recSensor.z[k]))
            : depthAlongRays(cfg, recSensor, truth.rays);
          score(f.name, rec.points, depth);
        });
        // Copy-last: the t0 sweep placed by the known pose; its raw points (cropped to the region), and the
        // same cloud ray-cast along the true rays (as many points as the truth, on the same rays).
        const placed = transformed(transformed(startSweep, tFromT0), IDENTITY, neg);
        const cl = scoredPart(cfg, placed, origin);
        const clDepth = copyLastRaycast(cfg, cl, truth.rays);
        score('copy_last', transformed(cl, t0FromT, origin), clDepth);
        score('copy_last_raycast', along(clDepth), clDepth);
        // Constant velocity: the t0 sweep placed by the extrapolated pose, read as the future sensor's sweep.
        const cvFromT0 = composePoses(
          invertPose(constantVelocityPose(poses, s, d)),
          poses.subarray(16 * s, 16 * s + 16),
        );
        const cv = scoredPart(cfg, transformed(transformed(startSweep, cvFromT0), IDENTITY, neg), origin);
        score('const_vel', transformed(cv, t0FromT, origin), depthAlongRays(cfg, cv, truth.rays));
        // The past sweeps aggregated in the future frame (world frame through the known poses).
        const agg = aggregateSweeps(
          sources.map((src) => ({ points: src.points, targetFromSource: relativePose(poses, t, src.frame) })),
          origin,
        );
        const rt = rayTracePast(cfg, agg, truth.rays);
        score('ray_trace', along(rt.raw), rt.raw);
        score('ray_trace_clamped', along(rt.clamped), rt.clamped);
        score('ray_trace_ground', along(rt.ground), rt.ground);
        const vc = voxelRayCast(cfg, agg, truth.rays);
        score('ray_cast_voxels', along(vc), vc);
        if (tokenizer) {
          const what = `${log.dir} frame ${s}`;
          const clTok = await priorDepth(tokenizer, placed, truth.rays, `${what} placed in frame ${t}`);
          score('copy_last_tok', along(clTok), clTok);
          const pr = await priorDepth(
            tokenizer,
            agg,
            truth.rays,
            `${what} and its past placed in frame ${t}`,
          );
          score('prior', along(pr), pr);
        }
        if (withOracle) {
          if (!oracleDepth.has(t)) {
            const pts = sensorPoints((await log.readFrame(t)).points, origin);
            const grids = await tokenizer!.decode(await tokenizer!.encode(pts, `${log.dir} frame ${t}`));
            oracleDepth.set(t, await tokenizer!.render(grids, truth.rays));
          }
          const od = oracleDepth.get(t)!;
          score('oracle', along(od), od);
        }
        bar?.tick();
      }
      for (const m of methodNames) per.get(m)!.push(acc.get(m)!);
    }
    const methods: Record<string, MethodFigures> = {};
    for (const m of methodNames) {
      const st = per.get(m)!;
      const avg = (k: keyof SweepFigures) => mean(st.map((a) => mean(a.fig.map((f) => f[k]))));
      const fig: MethodFigures = {
        chamfer: avg('chamfer'),
        chamfer_median: avg('chamferMedian'),
        chamfer_trimmed: avg('chamferTrimmed'),
        chamfer_near: avg('chamferNear'),
        l1: avg('l1'),
        l1_median: avg('l1Median'),
        absrel: avg('absrel'),
      };
      if (labels) fig.chamfer_movers = mean(st.map((a) => mean(a.movers)));
      methods[m] = fig;
    }
    const barOf = {} as HorizonFigures['bar'];
    for (const k of BAR_FIGURES) {
      let best = { method: '', value: Infinity };
      for (const m of baselines) if (methods[m][k] < best.value) best = { method: m, value: methods[m][k] };
      barOf[k] = best;
    }
    const beats: HorizonFigures['beats_bar'] = {};
    for (const f of forecasts)
      beats[f.name] = Object.fromEntries(
        BAR_FIGURES.map((k) => [k, methods[f.name][k] < barOf[k].value]),
      ) as Record<BarFigure, boolean>;
    result[h] = { starts: ok, methods, bar: barOf, beats_bar: beats };
  }
  bar?.stop();
  return result;
}

const IDENTITY: Pose = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
