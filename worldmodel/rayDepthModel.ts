// The learned ray-depth head: a small MLP reads what the past sweeps say along a future ray (pastRayFeatures.ts)
// and predicts the log ratio of the ray's depth to the ray-trace baseline's, and whether the baseline is already
// right there (a gate that keeps its exact depth) — 4D-Occ's route of rendering depth along the query rays,
// learned from future sweeps (self-supervised), with the baseline as its zero point.
import fs from 'node:fs';
import * as nn from '../core/nn/index.ts';
import { InputError } from '../core/errors.ts';
import { decodeModel, encodeModel } from '../core/nn/onnxProto.ts';
import { createSession, ort, type RuntimeOptions } from '../core/nn/runtime.ts';
import type { TokenizerConfig } from './config.ts';
import { RAY_FEATURE_COUNT } from './pastRayFeatures.ts';
import { regionExitM, type Rays } from './rays.ts';

export interface RayDepthModelConfig {
  /** Hidden layer widths of the shared trunk (at least one). */
  hidden: readonly number[];
  /**
   * The gate's label: 'within' — the baseline is within keepLogRatio of the truth; 'closer' — the baseline is
   * closer to the truth than the head's own prediction (the choice the gate makes at inference).
   */
  gateLabel: 'within' | 'closer';
  /** A ray's baseline counts as right (the gate's label) within this |log ratio| of the truth. */
  keepLogRatio: number;
  /** Weight of the gate's cross-entropy beside the depth loss. */
  keepLossWeight: number;
  lr: number;
  weightDecay: number;
  seed: number;
  threads: number;
}

export const DEFAULT_RAY_DEPTH_MODEL: RayDepthModelConfig = {
  hidden: [64, 64],
  gateLabel: 'closer',
  keepLogRatio: 0.02,
  keepLossWeight: 0.5,
  lr: 2e-3,
  weightDecay: 1e-4,
  seed: 1,
  threads: 1,
};

export const RAY_DEPTH_FORMAT = 'drivekit-ray-depth/1';
export const RAY_DEPTH_METADATA_KEY = 'drivekit.raydepth';

/** Rays with features [n × RAY_FEATURE_COUNT], the target log ratio and a weight (the reference depth / 10 m). */
export interface RaySamples {
  count: number;
  x: Float32Array;
  y: Float32Array;
  weight: Float32Array;
}

/** The head's two outputs per ray. */
export interface RayDepthOutputs {
  logRatio: Float32Array;
  /** Logit of "the baseline's depth is right here". */
  keepLogit: Float32Array;
}

export class RayDepthModel {
  private constructor(
    readonly cfg: RayDepthModelConfig,
    readonly params: nn.ParamStore,
    readonly optimizer: nn.Optimizer,
    private readonly trainer: nn.Trainer,
    private readonly infer: nn.GraphSession,
    private readonly inference: { graph: nn.Graph; logRatio: nn.Tensor; keepLogit: nn.Tensor },
  ) {}

  static async create(over: Partial<RayDepthModelConfig> = {}): Promise<RayDepthModel> {
    const cfg = { ...DEFAULT_RAY_DEPTH_MODEL, ...over };
    const F = RAY_FEATURE_COUNT;
    if (cfg.hidden.length === 0) throw new Error('ray-depth head: needs at least one hidden layer');
    const ps = new nn.ParamStore({ seed: cfg.seed });
    const H = cfg.hidden.at(-1)!;
    const trunk = nn.mlp(ps, 'ray', [F, ...cfg.hidden], { activateLast: true });
    const ratioHead = nn.linear(ps, 'ray.ratio', H, 1);
    const keepHead = nn.linear(ps, 'ray.keep', H, 1);
    const heads = (x: nn.Tensor) => {
      const h = trunk(x);
      return { logRatio: nn.reshape(ratioHead(h), [-1]), keepLogit: nn.reshape(keepHead(h), [-1]) };
    };
    const g = new nn.Graph({ name: 'drivekit_ray_depth_train' });
    const out = heads(g.input('features', ['batch', F]));
    const y = g.input('target', ['batch']);
    const w = g.input('weight', ['batch']);
    const keep = g.input('keep', ['batch']);
    // L1 in log depth times the reference depth: L1 in metres to first order (the protocol's figure, in units of
    // the weight's 10 m), while the log keeps near and far rays on one scale.
    const depthLoss = nn.reduceMean(nn.abs(nn.mul(nn.sub(out.logRatio, y), w)));
    // 'closer': the label follows the head's current prediction (no gradient flows through it).
    const keepTarget =
      cfg.gateLabel === 'closer'
        ? nn.cast(nn.less(nn.abs(y), nn.abs(nn.sub(y, nn.stopGradient(out.logRatio)))), 'float32')
        : keep;
    const loss = nn.add(depthLoss, nn.mul(nn.bceWithLogits(out.keepLogit, keepTarget), cfg.keepLossWeight));
    const optimizer = nn.adamW({ weightDecay: cfg.weightDecay });
    const trainer = await nn.Trainer.create(g, {
      loss,
      optimizer,
      lr: cfg.lr,
      clipGradNorm: 1,
      threads: cfg.threads,
    });
    const ig = new nn.Graph({ name: 'drivekit_ray_depth' });
    const io = heads(ig.input('features', ['batch', F]));
    const infer = await nn.GraphSession.create(
      ig,
      { log_ratio: io.logRatio, keep_logit: io.keepLogit },
      { threads: cfg.threads },
    );
    return new RayDepthModel(cfg, ps, optimizer, trainer, infer, { graph: ig, ...io });
  }

  /** One optimiser step on rows `rows` of `s`; the weighted mean L1. */
  async step(s: RaySamples, rows: Int32Array): Promise<number> {
    const F = RAY_FEATURE_COUNT;
    const n = rows.length;
    const x = new Float32Array(n * F);
    const y = new Float32Array(n);
    const w = new Float32Array(n);
    const keep = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const k = rows[i];
      x.set(s.x.subarray(k * F, (k + 1) * F), i * F);
      y[i] = s.y[k];
      w[i] = s.weight[k];
      keep[i] = Math.abs(s.y[k]) < this.cfg.keepLogRatio ? 1 : 0;
    }
    const r = await this.trainer.step({
      features: { data: x, dims: [n, F] },
      target: { data: y, dims: [n] },
      weight: { data: w, dims: [n] },
      keep: { data: keep, dims: [n] },
    });
    return r.loss;
  }

  /** Both outputs for every sample, in chunks. */
  async predict(x: Float32Array, n: number): Promise<RayDepthOutputs> {
    const F = RAY_FEATURE_COUNT;
    const out = { logRatio: new Float32Array(n), keepLogit: new Float32Array(n) };
    const chunk = 65536;
    for (let s = 0; s < n; s += chunk) {
      const m = Math.min(chunk, n - s);
      const r = await this.infer.run({ features: { data: x.subarray(s * F, (s + m) * F), dims: [m, F] } });
      out.logRatio.set(r.log_ratio.data as Float32Array, s);
      out.keepLogit.set(r.keep_logit.data as Float32Array, s);
    }
    return out;
  }

  onnxBytes(metadata: Record<string, unknown>): Uint8Array {
    return nn.exportOnnxBytes(
      this.inference.graph,
      { log_ratio: this.inference.logRatio, keep_logit: this.inference.keepLogit },
      {
        docString: 'drivekit ray-depth head: past-sweep features along a ray → log(depth / ray-trace depth)',
        metadata: { [RAY_DEPTH_METADATA_KEY]: JSON.stringify({ format: RAY_DEPTH_FORMAT, ...metadata }) },
      },
    );
  }

  snapshot(): Map<string, Float32Array> {
    return this.params.snapshot();
  }

  restore(values: ReadonlyMap<string, Float32Array>): void {
    this.params.load(values);
  }

  async dispose(): Promise<void> {
    await this.trainer.dispose();
    await this.infer.dispose();
  }
}

/**
 * Depth of one ray: the reference (baseline) depth where the gate's logit reaches `keepLogit` or the predicted
 * |log ratio| is below `keepLogRatioBelow`, else the reference scaled by the predicted ratio, kept inside
 * [minimum range, region exit].
 */
export function rayDepth(
  minRangeM: number,
  exitM: number,
  reference: number,
  logRatio: number,
  keepLogit: number,
  keepThresholdLogit: number,
  keepLogRatioBelow = 0,
): number {
  if (keepLogit >= keepThresholdLogit || Math.abs(logRatio) < keepLogRatioBelow) return reference;
  const d = Math.max(reference, 0.1) * Math.exp(Math.max(-3, Math.min(3, logRatio)));
  return Math.max(minRangeM, Math.min(exitM, d));
}

/**
 * The unit-direction z below which a ray points lower than `belowElevationDeg`: rays with dirZ below it keep the
 * reference (−90°: −Infinity, none does). Computed once per sweep, not per ray.
 */
export function keepBelowDirZ(belowElevationDeg: number): number {
  return belowElevationDeg > -90 ? Math.sin((belowElevationDeg * Math.PI) / 180) : -Infinity;
}

/** rayDepth of every ray; a ray below `keepBelowElevationDeg` keeps the reference (−90: none does). */
export function depthFromOutputs(
  cfg: TokenizerConfig,
  rays: Rays,
  reference: Float32Array,
  out: RayDepthOutputs,
  keepThresholdLogit: number,
  keepLogRatioBelow = 0,
  keepBelowElevationDeg = -90,
): Float32Array {
  const depth = new Float32Array(rays.count);
  const belowDirZ = keepBelowDirZ(keepBelowElevationDeg);
  for (let k = 0; k < rays.count; k++)
    depth[k] =
      rays.dirZ[k] < belowDirZ
        ? reference[k]
        : rayDepth(
            cfg.render.minRangeM,
            regionExitM(cfg, rays.dirX[k], rays.dirY[k], rays.dirZ[k]),
            reference[k],
            out.logRatio[k],
            out.keepLogit[k],
            keepThresholdLogit,
            keepLogRatioBelow,
          );
  return depth;
}

/** What an exported head records: its format, the grid it was fitted in, the data, folds and curve. */
export interface RayDepthCard {
  format: string;
  features: number;
  pastSweeps: number;
  /** The gate keeps the baseline's depth where its logit reaches this (chosen on the validation starts). */
  keepThresholdLogit: number;
  /**
   * The same on real sweeps (logs whose source is not 'synthetic'), chosen on the real logs' validation starts
   * alone; absent: keepThresholdLogit everywhere. Real and simulated sensors differ in how a beam's error
   * repeats from sweep to sweep, so where the past points can be trusted as they are differs too.
   */
  realKeepThresholdLogit?: number;
  /**
   * On real sweeps, a predicted |log ratio| below this keeps the reference too (a dead zone for the head's small
   * corrections), chosen on the real logs' validation rays; absent: 0 (none).
   */
  realKeepLogRatioBelow?: number;
  /**
   * On real sweeps, a ray pointing below this elevation (degrees) keeps the reference, chosen on the real logs'
   * validation rays; absent: none. The head's sub-bin corrections lose to the nearest past point on a real
   * sensor's near ground, where the same laser meets the same road again.
   */
  realKeepBelowElevationDeg?: number;
  [k: string]: unknown;
}

/** The gate threshold a head applies to the sweeps of a log whose meta.source is `source`. */
export function keepThresholdFor(card: RayDepthCard, source: string | undefined): number {
  return source !== 'synthetic' && card.realKeepThresholdLogit !== undefined
    ? card.realKeepThresholdLogit
    : card.keepThresholdLogit;
}

/** The dead zone a head applies to the sweeps of a log whose meta.source is `source` (0: none). */
export function keepLogRatioBelowFor(card: RayDepthCard, source: string | undefined): number {
  return source !== 'synthetic' ? (card.realKeepLogRatioBelow ?? 0) : 0;
}

/** The elevation below which a head keeps the reference on the sweeps of a log from `source` (−90: none). */
export function keepBelowElevationFor(card: RayDepthCard, source: string | undefined): number {
  return source !== 'synthetic' ? (card.realKeepBelowElevationDeg ?? -90) : -90;
}

/** An exported head's ONNX bytes with its card replaced (the weights and graph untouched). */
export function withRayDepthCard(bytes: Uint8Array, card: RayDepthCard): Uint8Array {
  const model = decodeModel(bytes);
  const props = (model.metadataProps ?? []).filter((p) => p.key !== RAY_DEPTH_METADATA_KEY);
  props.push({ key: RAY_DEPTH_METADATA_KEY, value: JSON.stringify(card) });
  return encodeModel({ ...model, metadataProps: props });
}

/** An exported head on onnxruntime. */
export class RayDepthHead {
  private constructor(
    readonly file: string,
    readonly card: RayDepthCard,
    private readonly session: ort.InferenceSession,
  ) {}

  /**
   * `runtime`: onnxruntime's settings, or just a thread count. Idle threads do not spin by default: the head runs
   * in short bursts between the featurising workers (rayDepthPool.ts), and spinning threads would take their cores.
   */
  static async load(file: string, runtime: RuntimeOptions | number = 1): Promise<RayDepthHead> {
    if (!fs.existsSync(file)) throw new InputError(file, 'no such ray-depth model');
    const bytes = fs.readFileSync(file);
    let json: string | undefined;
    try {
      json = decodeModel(bytes).metadataProps?.find((p) => p.key === RAY_DEPTH_METADATA_KEY)?.value;
    } catch (e) {
      throw new InputError(file, `not an ONNX model (${(e as Error).message})`);
    }
    if (!json)
      throw new InputError(file, `not a drivekit ray-depth model (no '${RAY_DEPTH_METADATA_KEY}' metadata)`);
    const card = JSON.parse(json) as RayDepthCard;
    if (card.format !== RAY_DEPTH_FORMAT)
      throw new InputError(file, `ray-depth format ${card.format}, expected ${RAY_DEPTH_FORMAT}`);
    if (card.features !== RAY_FEATURE_COUNT)
      throw new InputError(
        file,
        `${card.features} features per ray, this drivekit computes ${RAY_FEATURE_COUNT}`,
      );
    const opts = { spin: false, ...(typeof runtime === 'number' ? { threads: runtime } : runtime) };
    return new RayDepthHead(file, card, await createSession(new Uint8Array(bytes), opts));
  }

  async outputs(x: Float32Array, n: number): Promise<RayDepthOutputs> {
    const F = RAY_FEATURE_COUNT;
    const out = { logRatio: new Float32Array(n), keepLogit: new Float32Array(n) };
    const chunk = 65536;
    for (let s = 0; s < n; s += chunk) {
      const m = Math.min(chunk, n - s);
      const t = new ort.Tensor('float32', x.subarray(s * F, (s + m) * F), [m, F]);
      const r = await this.session.run({ features: t });
      out.logRatio.set(r.log_ratio.data as Float32Array, s);
      out.keepLogit.set(r.keep_logit.data as Float32Array, s);
    }
    return out;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
