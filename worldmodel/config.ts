// The tokenizer's settings in one typed object: region and voxel grid, token grid, network widths,
// codebook, rendering and loss weights. Defaults train on 2 cores; PAPER_TOKENIZER_CONFIG is Copilot4D's.
import type { ConfigRanges } from '../core/configSchema.ts';

/** The voxelised region around the sensor, in metres, in the sensor-centred vehicle frame. */
export interface GridConfig {
  /** Half side of the square region in x and y (the region is ±rangeM). */
  rangeM: number;
  /** Lowest z kept, relative to the sensor (ground is about −1.7 m below a roof-mounted LiDAR). */
  zMinM: number;
  /** Highest z kept, relative to the sensor. */
  zMaxM: number;
  /** Voxels along x and along y (square cells of 2·rangeM / cellsXY). */
  cellsXY: number;
  /** Voxels along z. */
  cellsZ: number;
}

export interface NetworkConfig {
  /** Width of the per-voxel PointNet. */
  pointFeatures: number;
  /** Channels of the BEV map after pillar pooling (voxel features + height embedding, summed per pillar). */
  bevChannels: number;
  /** Width after the first stride-2 convolution. */
  stemChannels: number;
  /** Width at token resolution (encoder and decoder trunks). */
  trunkChannels: number;
  /** Residual blocks at token resolution, in the encoder and again in the decoder. */
  residualBlocks: number;
  /** Width of the decoder's half-resolution (stride 2) stage. */
  upChannels: number;
  /** Width before the voxel heads at full resolution. */
  headChannels: number;
}

export interface QuantizerConfig {
  /** Number of codes. */
  codes: number;
  /** Dimension of a code (vectors are compared by cosine: both sides are L2-normalised). */
  codeDim: number;
  /** Weight of ‖sg(z) − e‖² (moves the codes); Copilot4D: 0.25. */
  codebookWeight: number;
  /** Weight of ‖z − sg(e)‖² (keeps the encoder near its codes); Copilot4D: 1.0. */
  commitmentWeight: number;
  /** Steps trained as a plain autoencoder before the codebook is initialised by k-means on the bank. */
  warmupSteps: number;
  /** Re-initialise codes unused in the last `reinitEvery` steps from the memory bank. */
  reinitEvery: number;
  /** Encoder vectors kept in the memory bank (k-means and dead-code re-initialisation draw from it). */
  memoryBank: number;
}

export interface RenderConfig {
  /** Spacing of the samples along a ray (a quarter of the default 0.3125 m cell, so the surface is resolved). */
  stepM: number;
  /** Rays sampled per sweep per training step. */
  raysPerFrame: number;
  /** Points closer than this to the sensor are not rendered (returns from the car itself). */
  minRangeM: number;
  /** Samples whose predicted occupancy probability is below this get α = 0 (empty space skipped). */
  skipOccupancyBelow: number;
}

export interface LossConfig {
  depthL1: number;
  /** Surface concentration Σ 1(|hᵢ − d| > marginM)·wᵢ² (Copilot4D / UltraLiDAR). */
  surface: number;
  surfaceMarginM: number;
  occupancyBce: number;
  /** UnO-style free-space loss along each ray: BCE of the density logits, samples before the return free, those near it occupied (0 = off). */
  freeSpace: number;
  /** Samples closer than this before the return are not labelled free (m). */
  freeSpaceMarginM: number;
}

export interface TokenizerConfig {
  grid: GridConfig;
  /** Token grid side = cellsXY / downsample (4 → 64 × 64 tokens of 1.25 m at the default grid). */
  downsample: number;
  /** Points per voxel kept for the PointNet (the rest are dropped at random). */
  maxPointsPerVoxel: number;
  network: NetworkConfig;
  quantizer: QuantizerConfig;
  render: RenderConfig;
  loss: LossConfig;
}

export const DEFAULT_GRID_CONFIG: GridConfig = { rangeM: 40, zMinM: -3, zMaxM: 3, cellsXY: 256, cellsZ: 16 };

export const DEFAULT_NETWORK_CONFIG: NetworkConfig = {
  pointFeatures: 16,
  bevChannels: 32,
  // Sized so a training step (≈ 9 GFLOP forward + backward) fits an hour of training on 2 cores.
  stemChannels: 32,
  trunkChannels: 64,
  residualBlocks: 1,
  upChannels: 32,
  headChannels: 32,
};

export const DEFAULT_QUANTIZER_CONFIG: QuantizerConfig = {
  codes: 512,
  codeDim: 32,
  codebookWeight: 0.25,
  commitmentWeight: 1.0,
  warmupSteps: 200,
  // skr3178's reproduction: re-initialising every ~100 steps (not every step) stopped the collapse.
  reinitEvery: 100,
  memoryBank: 16384,
};

export const DEFAULT_RENDER_CONFIG: RenderConfig = {
  stepM: 0.2,
  raysPerFrame: 2048,
  minRangeM: 2.5,
  skipOccupancyBelow: 0.01,
};

export const DEFAULT_LOSS_CONFIG: LossConfig = {
  depthL1: 1,
  surface: 1,
  surfaceMarginM: 0.4,
  occupancyBce: 1,
  // Off by default so tokenizers trained before it (models/tokenizer) keep their settings.
  freeSpace: 0,
  freeSpaceMarginM: 0.4,
};

export const DEFAULT_TOKENIZER_CONFIG: TokenizerConfig = {
  grid: DEFAULT_GRID_CONFIG,
  downsample: 4,
  maxPointsPerVoxel: 8,
  network: DEFAULT_NETWORK_CONFIG,
  quantizer: DEFAULT_QUANTIZER_CONFIG,
  render: DEFAULT_RENDER_CONFIG,
  loss: DEFAULT_LOSS_CONFIG,
};

/** Copilot4D's scale (REFERENCES.md): ±80 m, 1024 × 1024 × 64 voxels, 128 × 128 tokens, 1024 codes. */
const count = (min: number) => ({ integer: true, min });

/** Allowed values of each field (core/configSchema.ts checks --config overrides against them). */
export const TOKENIZER_CONFIG_RANGES: ConfigRanges<TokenizerConfig> = {
  grid: { rangeM: { above: 0 }, cellsXY: count(1), cellsZ: count(1) },
  downsample: count(1),
  maxPointsPerVoxel: count(1),
  network: {
    pointFeatures: count(1),
    bevChannels: count(1),
    stemChannels: count(1),
    trunkChannels: count(1),
    residualBlocks: count(0),
    upChannels: count(1),
    headChannels: count(1),
  },
  quantizer: {
    codes: count(2),
    codeDim: count(1),
    codebookWeight: { min: 0 },
    commitmentWeight: { min: 0 },
    warmupSteps: count(0),
    reinitEvery: count(0),
    memoryBank: count(1),
  },
  render: {
    stepM: { above: 0 },
    raysPerFrame: count(1),
    minRangeM: { min: 0 },
    skipOccupancyBelow: { min: 0, max: 1 },
  },
  loss: {
    depthL1: { min: 0 },
    surface: { min: 0 },
    surfaceMarginM: { min: 0 },
    occupancyBce: { min: 0 },
    freeSpace: { min: 0 },
    freeSpaceMarginM: { min: 0 },
  },
};

export const PAPER_TOKENIZER_CONFIG: TokenizerConfig = {
  ...DEFAULT_TOKENIZER_CONFIG,
  grid: { rangeM: 80, zMinM: -4.5, zMaxM: 4.5, cellsXY: 1024, cellsZ: 64 },
  downsample: 8,
  network: { ...DEFAULT_NETWORK_CONFIG, bevChannels: 64, stemChannels: 64, trunkChannels: 256 },
  quantizer: { ...DEFAULT_QUANTIZER_CONFIG, codes: 1024 },
  render: { ...DEFAULT_RENDER_CONFIG, stepM: 0.1 },
};

/** A config with `over`'s fields replacing `base`'s (default: the defaults), section by section. */
export function tokenizerConfig(
  over: DeepPartial<TokenizerConfig> = {},
  base: TokenizerConfig = DEFAULT_TOKENIZER_CONFIG,
): TokenizerConfig {
  return {
    grid: { ...base.grid, ...over.grid },
    downsample: over.downsample ?? base.downsample,
    maxPointsPerVoxel: over.maxPointsPerVoxel ?? base.maxPointsPerVoxel,
    network: { ...base.network, ...over.network },
    quantizer: { ...base.quantizer, ...over.quantizer },
    render: { ...base.render, ...over.render },
    loss: { ...base.loss, ...over.loss },
  };
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? Partial<T[K]> : T[K] };

/** Derived sizes every module needs. */
export interface GridGeometry {
  cellM: number;
  cellZM: number;
  cellsXY: number;
  cellsZ: number;
  tokensXY: number;
  tokenM: number;
}

export function gridGeometry(cfg: TokenizerConfig): GridGeometry {
  const g = cfg.grid;
  if (g.cellsXY % cfg.downsample !== 0)
    throw new Error(
      `tokenizer config: cellsXY ${g.cellsXY} is not a multiple of downsample ${cfg.downsample}`,
    );
  const cellM = (2 * g.rangeM) / g.cellsXY;
  return {
    cellM,
    cellZM: (g.zMaxM - g.zMinM) / g.cellsZ,
    cellsXY: g.cellsXY,
    cellsZ: g.cellsZ,
    tokensXY: g.cellsXY / cfg.downsample,
    tokenM: cellM * cfg.downsample,
  };
}
