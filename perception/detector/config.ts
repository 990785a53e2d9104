// The detector's whole configuration in one typed object (grid, features, network, targets, loss,
// augmentation, decoding, training), gathering each module's documented defaults.
import { type AugmentConfig, DEFAULT_AUGMENT_CONFIG } from './augment.ts';
import {
  type BevFeatureConfig,
  DEFAULT_BEV_FEATURE_CONFIG,
  DEFAULT_GROUND_LEVEL_CONFIG,
  type GroundLevelConfig,
} from './bevGrid.ts';
import { type DecodeConfig, DEFAULT_DECODE_CONFIG } from './decode.ts';
import { DEFAULT_LOSS_CONFIG, type LossConfig } from './losses.ts';
import { DEFAULT_NETWORK_CONFIG, type NetworkConfig } from './network.ts';
import { DEFAULT_TARGET_CONFIG, type TargetConfig } from './targets.ts';
import type { ConfigRanges } from '../../core/configSchema.ts';

export interface GridConfig {
  /** Half side of the square inference grid around the ego (default ±51.2 m). */
  rangeM: number;
  /** BEV cell size (default 0.2 m → 512 × 512 cells). */
  cellM: number;
}

export const DEFAULT_GRID_CONFIG: GridConfig = { rangeM: 51.2, cellM: 0.2 };

export interface TrainConfig {
  /** Optimizer steps in total. */
  steps: number;
  batchSize: number;
  /** Side of the square training crop in input cells (256 at 0.2 m = 51.2 m); a multiple of 8. */
  cropCells: number;
  /** Peak learning rate of the warm-up + cosine schedule (AdamW). */
  lr: number;
  warmupSteps: number;
  /** Final learning rate as a share of the peak. */
  minLrRatio: number;
  weightDecay: number;
  /** Global gradient-norm clip. */
  clipGradNorm: number;
  /** Save a checkpoint every this many steps (and at the end). */
  checkpointEvery: number;
  /** Seed of the initial weights and of the data sampler. */
  seed: number;
  /** onnxruntime intra-op threads (0: all cores). */
  threads: number;
  /** Use every n-th frame of each log (neighbouring sweeps are near-duplicates; saves memory). */
  frameStride: number;
  /**
   * Labels with fewer LiDAR points than this are not trained on (a box nothing hit teaches noise). Boxes
   * whose count is unknown (−1) are kept.
   */
  minLabelPoints: number;
}

export const DEFAULT_TRAIN_CONFIG: TrainConfig = {
  steps: 3000,
  batchSize: 4,
  cropCells: 256,
  lr: 2e-3,
  warmupSteps: 100,
  minLrRatio: 0.05,
  weightDecay: 1e-4,
  clipGradNorm: 10,
  checkpointEvery: 100,
  seed: 1,
  threads: 0,
  frameStride: 2,
  minLabelPoints: 5,
};

/** Allowed values of the grid and training fields (core/configSchema.ts checks user overrides). */
export const GRID_CONFIG_RANGES: ConfigRanges<GridConfig> = { rangeM: { above: 0 }, cellM: { above: 0 } };
export const TRAIN_CONFIG_RANGES: ConfigRanges<TrainConfig> = {
  steps: { integer: true, min: 1 },
  batchSize: { integer: true, min: 1 },
  cropCells: { integer: true, min: 8 },
  lr: { above: 0 },
  warmupSteps: { integer: true, min: 0 },
  minLrRatio: { min: 0, max: 1 },
  weightDecay: { min: 0 },
  clipGradNorm: { above: 0 },
  checkpointEvery: { integer: true, min: 1 },
  seed: { integer: true, min: 0 },
  threads: { integer: true, min: 0 },
  frameStride: { integer: true, min: 1 },
  minLabelPoints: { integer: true, min: 0 },
};

export interface DetectorConfig {
  grid: GridConfig;
  features: BevFeatureConfig;
  groundLevel: GroundLevelConfig;
  network: NetworkConfig;
  targets: TargetConfig;
  loss: LossConfig;
  augment: AugmentConfig;
  decode: DecodeConfig;
  train: TrainConfig;
}

export const DEFAULT_DETECTOR_CONFIG: DetectorConfig = {
  grid: DEFAULT_GRID_CONFIG,
  features: DEFAULT_BEV_FEATURE_CONFIG,
  groundLevel: DEFAULT_GROUND_LEVEL_CONFIG,
  network: DEFAULT_NETWORK_CONFIG,
  targets: DEFAULT_TARGET_CONFIG,
  loss: DEFAULT_LOSS_CONFIG,
  augment: DEFAULT_AUGMENT_CONFIG,
  decode: DEFAULT_DECODE_CONFIG,
  train: DEFAULT_TRAIN_CONFIG,
};

/** Ranges of the detector config's fields; other sections are type-checked only. */
export const DETECTOR_CONFIG_RANGES: ConfigRanges<DetectorConfig> = {
  grid: GRID_CONFIG_RANGES,
  train: TRAIN_CONFIG_RANGES,
};

export type DetectorConfigInput = {
  [K in Exclude<keyof DetectorConfig, 'augment'>]?: Partial<DetectorConfig[K]>;
} & { augment?: AugmentConfigInput };

/** Augmentation overrides: each sub-section (ray dropping, beam halving, …) partial too. */
export type AugmentConfigInput = Partial<Omit<AugmentConfig, AugmentSection>> & {
  [K in AugmentSection]?: Partial<AugmentConfig[K]>;
};
type AugmentSection = 'rayDrop' | 'beamHalving' | 'rangeDropout' | 'heightJitter';

/** Partial configs merged over the defaults, one level deep (the augmentation's sub-sections two). */
export function resolveDetectorConfig(
  input: DetectorConfigInput = {},
  base: DetectorConfig = DEFAULT_DETECTOR_CONFIG,
): DetectorConfig {
  return {
    grid: { ...base.grid, ...input.grid },
    features: { ...base.features, ...input.features },
    groundLevel: { ...base.groundLevel, ...input.groundLevel },
    network: { ...base.network, ...input.network },
    targets: { ...base.targets, ...input.targets },
    loss: { ...base.loss, ...input.loss },
    augment: {
      ...base.augment,
      ...input.augment,
      rayDrop: { ...base.augment.rayDrop, ...input.augment?.rayDrop },
      beamHalving: { ...base.augment.beamHalving, ...input.augment?.beamHalving },
      rangeDropout: { ...base.augment.rangeDropout, ...input.augment?.rangeDropout },
      heightJitter: { ...base.augment.heightJitter, ...input.augment?.heightJitter },
    },
    decode: { ...base.decode, ...input.decode },
    train: { ...base.train, ...input.train },
  };
}
