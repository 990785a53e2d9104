// The forecaster's feeds: a window of past and future token grids, relative ego poses, the ego-motion prior and
// the temporal attention mask, corrupted for one of Copilot4D's three objectives (training) or as sampling sees it.
import type { Feeds } from '../core/nn/graphSession.ts';
import type { Rng } from '../core/rng.ts';
import type { ForecasterConfig } from './forecastConfig.ts';
import { maskId, noPriorId, POSE_FEATURES, POSE_TRANSLATION_SCALE_M } from './forecasterNetwork.ts';
import { relativePose, type LogTokens } from './forecastTokens.ts';
import { corruptFrame, type Objective } from './maskSchedule.ts';

/** The network's 12 pose numbers of frame `frame` relative to frame `ref` (translations scaled). */
export function poseFeatures(poses: Float64Array, ref: number, frame: number): Float32Array {
  const m = relativePose(poses, ref, frame);
  const f = new Float32Array(POSE_FEATURES);
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 4; c++)
      f[r * 4 + c] = c === 3 ? m[r * 4 + c] / POSE_TRANSLATION_SCALE_M : m[r * 4 + c];
  return f;
}

/** [P, 1, T, T] bools: causal (frame i sees frames ≤ i) or each frame only itself (per-frame objective). */
export function temporalMask(T: number, positions: number, kind: 'causal' | 'self'): Uint8Array {
  const one = new Uint8Array(T * T);
  for (let i = 0; i < T; i++)
    for (let j = 0; j < T; j++) one[i * T + j] = (kind === 'causal' ? j <= i : j === i) ? 1 : 0;
  const out = new Uint8Array(positions * T * T);
  for (let p = 0; p < positions; p++) out.set(one, p * T * T);
  return out;
}

/** One window as the network sees it (batch entries are concatenated). */
export interface WindowInput {
  tokens: Int32Array;
  prior: Int32Array;
  pose: Float32Array;
  maskRatio: Float32Array;
  temporal: Uint8Array;
}

export interface TrainingWindow extends WindowInput {
  targets: Int32Array;
  weights: Float32Array;
  /** Per future token: 1 where the true column is occupied. */
  occupied: Uint8Array;
  /** Per future token: 1 where the true token differs from the ego-motion prior's. */
  changed: Uint8Array;
}

/** Raw frame indices of a window whose last observed frame is `t0` (frames `stride` apart). */
export function windowFrames(cfg: ForecasterConfig, t0: number, stride: number): number[] {
  const { past, future } = cfg.frames;
  const out: number[] = [];
  for (let k = -(past - 1); k <= future; k++) out.push(t0 + k * stride);
  return out;
}

/** A training window of `lt` ending its past at raw frame `t0`, corrupted for `objective`. */
export function trainingWindow(
  cfg: ForecasterConfig,
  lt: LogTokens,
  t0: number,
  stride: number,
  codes: number,
  objective: Objective,
  rng: Rng,
): TrainingWindow {
  const { past, future } = cfg.frames;
  const T = past + future;
  const g = lt.tokensXY * lt.tokensXY;
  const P = g / cfg.network.merge ** 2;
  const frames = windowFrames(cfg, t0, stride);
  const w: TrainingWindow = {
    tokens: new Int32Array(T * g),
    prior: new Int32Array(T * g).fill(noPriorId(codes)),
    pose: new Float32Array(T * POSE_FEATURES),
    maskRatio: new Float32Array(T),
    temporal: temporalMask(T, P, objective === 'frame' ? 'self' : 'causal'),
    targets: new Int32Array(T * g),
    weights: new Float32Array(T * g),
    occupied: new Uint8Array(future * g),
    changed: new Uint8Array(future * g),
  };
  frames.forEach((f, i) => {
    const truth = lt.tokens.subarray(f * g, (f + 1) * g);
    w.targets.set(truth, i * g);
    w.pose.set(poseFeatures(lt.poses, t0, f), i * POSE_FEATURES);
    const isFuture = i >= past;
    const prior = isFuture ? lt.priors.get(`${t0},${f}`) : undefined;
    if (isFuture) {
      w.occupied.set(lt.occupied.subarray(f * g, (f + 1) * g), (i - past) * g);
      for (let k = 0; k < g; k++) w.changed[(i - past) * g + k] = prior && prior[k] === truth[k] ? 0 : 1;
    }
    // The per-frame objective is the unconditional branch of guidance: no past, no prior.
    if (prior && objective !== 'frame') w.prior.set(prior, i * g);
    const denoised = objective !== 'future' || isFuture;
    if (denoised) {
      const c = corruptFrame(truth, maskId(codes), cfg.diffusion.maxNoise, rng);
      w.tokens.set(c.tokens, i * g);
      w.maskRatio[i] = c.maskRatio;
      w.weights.fill(1, i * g, (i + 1) * g);
    } else w.tokens.set(truth, i * g);
  });
  return w;
}

/** Concatenate windows into the network's feeds (graph batch = windows.length). */
export function windowFeeds(ws: readonly WindowInput[], T: number, tokensXY: number): Feeds {
  const B = ws.length;
  const cat = <A extends Int32Array | Float32Array | Uint8Array>(
    pick: (w: WindowInput) => A,
    make: (n: number) => A,
  ) => {
    const n = pick(ws[0]).length;
    const out = make(B * n);
    ws.forEach((w, b) => out.set(pick(w) as never, b * n));
    return out;
  };
  const P = ws[0].temporal.length / (T * T);
  return {
    tokens: {
      data: cat(
        (w) => w.tokens,
        (n) => new Int32Array(n),
      ),
      dims: [B, T, tokensXY, tokensXY],
    },
    prior: {
      data: cat(
        (w) => w.prior,
        (n) => new Int32Array(n),
      ),
      dims: [B, T, tokensXY, tokensXY],
    },
    pose: {
      data: cat(
        (w) => w.pose,
        (n) => new Float32Array(n),
      ),
      dims: [B, T, POSE_FEATURES],
    },
    mask_ratio: {
      data: cat(
        (w) => w.maskRatio,
        (n) => new Float32Array(n),
      ),
      dims: [B, T, 1],
    },
    temporal_mask: {
      data: cat(
        (w) => w.temporal,
        (n) => new Uint8Array(n),
      ),
      dims: [B * P, 1, T, T],
    },
  };
}

/** The loss's feeds: `perFrame` tokens of every frame drawn uniformly (flat indices into B·T·t²). */
export function lossFeeds(ws: readonly TrainingWindow[], T: number, perFrame: number, rng: Rng): Feeds {
  const g = ws[0].targets.length / T;
  const N = ws.length * T * perFrame;
  const positions = new BigInt64Array(N);
  const targets = new Int32Array(N);
  const weights = new Float32Array(N);
  const pick = new Int32Array(g);
  let k = 0;
  ws.forEach((w, b) => {
    for (let f = 0; f < T; f++) {
      for (let i = 0; i < g; i++) pick[i] = i;
      for (let i = 0; i < perFrame; i++) {
        const j = i + rng.int(g - i);
        const t = pick[i];
        pick[i] = pick[j];
        pick[j] = t;
        const at = f * g + pick[i];
        positions[k] = BigInt(b * T * g + at);
        targets[k] = w.targets[at];
        weights[k] = w.weights[at];
        k++;
      }
    }
  });
  return { positions, targets, weights };
}
