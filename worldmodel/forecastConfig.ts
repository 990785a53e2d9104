// The forecaster's settings in one typed object: frames and timing, the spatio-temporal transformer's sizes,
// Copilot4D's discrete-diffusion training and sampling. Defaults train on 2 cores; PAPER_* is Copilot4D's.

export interface ForecastFramesConfig {
  /** Observed frames given to the model (the last one is t0). */
  past: number;
  /** Frames predicted by one forward rollout chunk. */
  future: number;
  /** Time between the model's frames (s); 0.2 s = every second sweep of a 10 Hz log. */
  frameDtS: number;
}

export interface ForecasterNetworkConfig {
  /** Tokens merged into one transformer position: `merge` × `merge` of them (4: 64² tokens → 16² positions). */
  merge: number;
  /** Width of the transformer. */
  width: number;
  /** Width of a token's embedding before merging (merge² of them are concatenated, then projected). */
  tokenDim: number;
  /** Spatio-temporal blocks: each one full spatial attention layer and one causal temporal layer. */
  blocks: number;
  heads: number;
  /** MLP width as a multiple of `width`. */
  mlpRatio: number;
  /**
   * Give every future frame the last observed sweep re-encoded in that frame (the copy-last sweep as
   * tokens) as a second embedding: a geometric ego-motion prior beside the learned pose conditioning.
   */
  egoPrior: boolean;
}

export interface DiffusionConfig {
  /** Largest share of the kept tokens replaced by random codes (Copilot4D: up to 20 %). */
  maxNoise: number;
  /** Shares of the three objectives: future prediction, joint denoising, per-frame (unconditional). */
  mix: readonly [number, number, number];
  labelSmoothing: number;
}

export interface ForecastTrainConfig {
  /** Peak learning rate (AdamW β₂ 0.95, warm-up then cosine decay). */
  lr: number;
  beta2: number;
  weightDecay: number;
  warmupSteps: number;
  /** Global gradient-norm clip (Copilot4D: 5.0 for the world model). */
  clipGradNorm: number;
  /** Windows per step. */
  batch: number;
  /** Tokens per frame scored by the loss each step (a uniform sample; the output head is the costliest part). */
  lossTokens: number;
}

export interface SamplingConfig {
  /** Denoising steps (1 = one-shot argmax). */
  steps: number;
  /** Classifier-free guidance weight w: logits = cond + w·(cond − uncond); 0 = no guidance. */
  guidance: number;
  /** Scale of the Gumbel noise added to the log-confidence, annealed to 0 over the steps. */
  temperature: number;
}

export interface ForecasterConfig {
  frames: ForecastFramesConfig;
  network: ForecasterNetworkConfig;
  diffusion: DiffusionConfig;
  train: ForecastTrainConfig;
  sampling: SamplingConfig;
}

export const DEFAULT_FORECAST_FRAMES: ForecastFramesConfig = { past: 3, future: 3, frameDtS: 0.2 };

export const DEFAULT_FORECASTER_NETWORK: ForecasterNetworkConfig = {
  // 4 × 4 tokens per position (16 × 16 positions of 5 m): measured on the shared 2-core machine, 2 × 2
  // (32 × 32) with 2 blocks took 11 s a step — 200 steps in 40 minutes. Detail comes back through the
  // per-token skip (forecasterNetwork.ts).
  merge: 4,
  width: 128,
  tokenDim: 64,
  blocks: 4,
  heads: 4,
  mlpRatio: 2,
  egoPrior: true,
};

export const DEFAULT_DIFFUSION: DiffusionConfig = {
  maxNoise: 0.2,
  mix: [0.5, 0.4, 0.1],
  labelSmoothing: 0.1,
};

export const DEFAULT_FORECAST_TRAIN: ForecastTrainConfig = {
  lr: 1e-3,
  beta2: 0.95,
  weightDecay: 1e-4,
  warmupSteps: 50,
  clipGradNorm: 5,
  batch: 1,
  lossTokens: 1024,
};

export const DEFAULT_SAMPLING: SamplingConfig = { steps: 10, guidance: 1, temperature: 1 };

export const DEFAULT_FORECASTER_CONFIG: ForecasterConfig = {
  frames: DEFAULT_FORECAST_FRAMES,
  network: DEFAULT_FORECASTER_NETWORK,
  diffusion: DEFAULT_DIFFUSION,
  train: DEFAULT_FORECAST_TRAIN,
  sampling: DEFAULT_SAMPLING,
};

/** Copilot4D's scale (REFERENCES.md): 5 past + 5 future frames, width 256, more blocks (≈ 39M parameters
 * with its U-Net levels; here one level), batch 8, paper tokenizer's 128 × 128 grid merged 2 × 2. */
export const PAPER_FORECASTER_CONFIG: ForecasterConfig = {
  ...DEFAULT_FORECASTER_CONFIG,
  frames: { past: 5, future: 5, frameDtS: 0.2 },
  network: {
    ...DEFAULT_FORECASTER_NETWORK,
    merge: 2,
    width: 256,
    tokenDim: 128,
    blocks: 8,
    heads: 8,
    mlpRatio: 4,
  },
  train: { ...DEFAULT_FORECAST_TRAIN, batch: 8, warmupSteps: 2000 },
};

type Sections = { [K in keyof ForecasterConfig]?: Partial<ForecasterConfig[K]> };

/** A config with `over`'s fields replacing `base`'s, section by section. */
export function forecasterConfig(
  over: Sections = {},
  base: ForecasterConfig = DEFAULT_FORECASTER_CONFIG,
): ForecasterConfig {
  return {
    frames: { ...base.frames, ...over.frames },
    network: { ...base.network, ...over.network },
    diffusion: { ...base.diffusion, ...over.diffusion },
    train: { ...base.train, ...over.train },
    sampling: { ...base.sampling, ...over.sampling },
  };
}
