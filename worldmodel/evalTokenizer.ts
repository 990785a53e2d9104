// How well the tokenizer reconstructs sweeps it did not train on: encode → decode → render along the
// sweep's own rays; depth L1, share within 1 m, squared Chamfer (all and near field), codebook usage.
import type { SensorFrame } from '../core/arrow/records.ts';
import { chamferSquared, cropBox } from './chamfer.ts';
import { codeUsage } from './quantizer.ts';
import { strideRays } from './gridFloor.ts';
import { type LaserBlock, raysFromLasers } from './laserLines.ts';
import { raysFromPoints } from './rays.ts';
import { sensorPoints } from './sweep.ts';
import type { Tokenizer } from './tokenizerModel.ts';
import type { SensorPoints } from './voxelize.ts';

/** 4D-Occ's near field, in the vehicle frame (m). */
export const NEAR_FIELD_HALF_M = { x: 70, y: 70, z: 4.5 };

export interface FrameReconstruction {
  tokens: Int32Array;
  /** The returns that became rays (inside the region, beyond the minimum range), vehicle frame. */
  input: SensorPoints;
  /** The decoded cloud: each ray's rendered depth along its direction, vehicle frame. */
  decoded: SensorPoints;
  /** |rendered − measured| depth per ray (m). */
  depthError: Float32Array;
  /** rendered − measured depth per ray (m): positive where the render escapes past the return. */
  depthSigned: Float32Array;
}

/**
 * Encode, decode and render one sweep (every `rayStride`-th ray); points are returned in the log's vehicle frame.
 * With `lasers`, each return is rendered along the line from its laser (laserLines.ts), else from the origin.
 */
export async function reconstructFrame(
  tok: Tokenizer,
  frame: SensorFrame,
  origin: readonly [number, number, number],
  source: string,
  rayStride = 1,
  lasers: readonly LaserBlock[] | null = null,
): Promise<FrameReconstruction> {
  const cfg = tok.config;
  const pts = sensorPoints(frame.points, origin);
  const tokens = await tok.encode(pts, source);
  const grids = await tok.decode(tokens);
  const fromOrigin = rayStride > 1 ? strideRays(cfg, pts, rayStride) : raysFromPoints(cfg, pts);
  const rays = lasers ? raysFromLasers(fromOrigin, lasers) : fromOrigin;
  const depth = await tok.render(grids, rays);
  const n = rays.count;
  const input = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
  const decoded = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
  const depthError = new Float32Array(n);
  const depthSigned = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    const i = rays.pointIndex[r];
    input.x[r] = frame.points.x[i];
    input.y[r] = frame.points.y[i];
    input.z[r] = frame.points.z[i];
    decoded.x[r] = origin[0] + rays.dirX[r] * depth[r];
    decoded.y[r] = origin[1] + rays.dirY[r] * depth[r];
    decoded.z[r] = origin[2] + (rays.originZM?.[r] ?? 0) + rays.dirZ[r] * depth[r];
    depthSigned[r] = depth[r] - rays.depthM[r];
    depthError[r] = Math.abs(depthSigned[r]);
  }
  return { tokens, input, decoded, depthError, depthSigned };
}

/** The figures `drivekit eval-tokenizer --json` prints (keys as the issue tracker and README name them). */
export interface TokenizerFigures {
  frames: number;
  depth_l1_mean_m: number;
  depth_l1_median_m: number;
  within_1m: number;
  /** Share of rays rendered more than 5 m beyond their return (light escaping through the surface). */
  too_far_5m: number;
  chamfer_m2: number;
  chamfer_near_m2: number;
  codes_used: number;
  perplexity: number;
}

/** Accumulates per-frame reconstructions into pooled figures (depth errors pooled over rays; Chamfer averaged over frames). */
export class TokenizerScore {
  private errors: Float32Array[] = [];
  private chamfers: number[] = [];
  private nearChamfers: number[] = [];
  private tokens: Int32Array[] = [];
  private tooFar = 0;

  constructor(private readonly codes: number) {}

  add(r: FrameReconstruction): void {
    this.errors.push(r.depthError);
    for (const d of r.depthSigned) if (d > 5) this.tooFar++;
    this.tokens.push(r.tokens);
    const c = chamferSquared(r.decoded, r.input);
    if (Number.isFinite(c)) this.chamfers.push(c);
    const h = NEAR_FIELD_HALF_M;
    const cn = chamferSquared(cropBox(r.decoded, h.x, h.y, h.z), cropBox(r.input, h.x, h.y, h.z));
    if (Number.isFinite(cn)) this.nearChamfers.push(cn);
  }

  figures(): TokenizerFigures {
    const n = this.errors.reduce((a, e) => a + e.length, 0);
    const all = new Float32Array(n);
    let o = 0;
    for (const e of this.errors) {
      all.set(e, o);
      o += e.length;
    }
    all.sort();
    let sum = 0;
    let within = 0;
    for (const v of all) {
      sum += v;
      if (v <= 1) within++;
    }
    const idx: number[] = [];
    for (const t of this.tokens) for (const v of t) idx.push(v);
    const usage = codeUsage(idx, this.codes);
    const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
    return {
      frames: this.tokens.length,
      depth_l1_mean_m: n ? sum / n : NaN,
      depth_l1_median_m: n ? all[Math.floor(n / 2)] : NaN,
      within_1m: n ? within / n : NaN,
      too_far_5m: n ? this.tooFar / n : NaN,
      chamfer_m2: avg(this.chamfers),
      chamfer_near_m2: avg(this.nearChamfers),
      codes_used: usage.used,
      perplexity: usage.perplexity,
    };
  }
}
