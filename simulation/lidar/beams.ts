// Spinning LiDAR models and the sensor config: beam elevations of the Velodyne HDL-64E (KITTI), Velodyne
// VLP-32C and Ouster OS1-128 (from their datasheets), azimuth resolution, range, noise, dropout and mounting.

export type LidarModel = 'hdl64' | 'vlp32' | 'os128';

export const LIDAR_MODELS: readonly LidarModel[] = ['hdl64', 'vlp32', 'os128'];

export interface LidarConfig {
  model: LidarModel;
  /** Human-readable sensor name written to the log's meta. */
  name: string;
  /** Beam elevations in degrees, top beam first; ring = index in this list. */
  elevationsDeg: number[];
  /** Firing columns per revolution (azimuth resolution = 360° / azimuthSteps). */
  azimuthSteps: number;
  rateHz: number;
  minRangeM: number;
  maxRangeM: number;
  /** Height of the sensor's origin above the ground (KITTI: 1.73 m). Points are in the sensor frame. */
  mountHeightM: number;
  /** Standard deviation of the range noise, metres: drawn afresh for every return. */
  rangeNoiseM: number;
  /**
   * Standard deviation of each beam's own range offset, metres (a laser's distance calibration error): drawn once
   * per beam from noiseSeed and the same in every sweep, so a surface seen again by the same beam repeats its error.
   */
  rangeBiasM: number;
  /**
   * Height of each laser above the points' origin, metres, one per beam (top beam first); null: every beam fires
   * from the origin. A real HDL-64E's lasers sit in two blocks above the frame its points are given in, so a
   * laser's ground returns drift in apparent elevation with range (HDL64_KITTI_APEX_M, fitted on KITTI).
   */
  beamApexM: number[] | null;
  /** Chance that a return is lost for no reason (random dropout). */
  dropoutProb: number;
  /**
   * Weakest detectable return: a hit is kept when reflectivity · cos(incidence) · (10 m / range)² ≥ this. With
   * 1.5e-4, asphalt (ρ 0.12) seen at the grazing angles of the upper beams fades out at 40–50 m and dark cars
   * stay visible beyond 100 m, roughly as in KITTI.
   */
  minReturn: number;
  /** Let the ego and the agents move while the sensor spins (rolling-shutter effect, per-point t_offset). */
  motion: boolean;
  /** Seed of the per-ray noise (combined with the frame index, so frames are independent and reproducible). */
  noiseSeed: number;
  /**
   * The recording car's own body below the sensor, as a box in the sensor frame; rays into it return nothing
   * (null: no self-occlusion). The default is fitted to KITTI 0048, where beams below −17.5° are missing behind the
   * car, below about −21° in front, and none to the sides.
   */
  egoBody: { xMinM: number; xMaxM: number; halfWidthM: number; topM: number } | null;
}

function linspace(a: number, b: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => a + ((b - a) * i) / (n - 1));
}

/** HDL-64E: upper block of 32 lasers +2° … −8.33° (1/3° apart), lower block −8.83° … −24.9° (about ½°). */
const HDL64_ELEVATIONS = [...linspace(2.0, -8.33, 32), ...linspace(-8.83, -24.9, 32)];

/**
 * The HDL-64E's lasers above KITTI's velodyne origin, as `tools/models/beamApex.ts` fits them on kitti-raw-78 and
 * KITTI 0048 (both logs agree to 1 mm): the upper block 0.198 m, the lower block 0.116–0.126 m, here its median.
 */
export const HDL64_KITTI_APEX_M: readonly number[] = [
  ...Array.from({ length: 32 }, () => 0.198),
  ...Array.from({ length: 32 }, () => 0.121),
];

/** VLP-32C: 40° field, dense around the horizon (datasheet table). */
const VLP32_ELEVATIONS = [
  15, 10.333, 7, 4.667, 3.333, 2.333, 1.667, 1.333, 1, 0.667, 0.333, 0, -0.333, -0.667, -1, -1.333, -1.667,
  -2, -2.333, -2.667, -3, -3.333, -3.667, -4, -4.667, -5.333, -6.148, -7.254, -8.843, -11.31, -15.639, -25,
];

/** OS1-128: 128 beams spread evenly over 45° (±22.5°). */
const OS128_ELEVATIONS = linspace(22.5, -22.5, 128);

const BASE: Omit<
  LidarConfig,
  'model' | 'name' | 'elevationsDeg' | 'azimuthSteps' | 'maxRangeM' | 'rangeNoiseM'
> = {
  rateHz: 10,
  minRangeM: 1.0,
  mountHeightM: 1.73,
  dropoutProb: 0.01,
  rangeBiasM: 0,
  beamApexM: null,
  minReturn: 1.5e-4,
  motion: true,
  noiseSeed: 1,
  // 0.5 m below the sensor, 1.6 m back, 1.3 m forward, 0.9 m to each side: tan⁻¹(0.5/1.6) = 17.4° behind,
  // tan⁻¹(0.5/1.3) = 21° ahead, tan⁻¹(0.5/0.9) = 29° to the sides (below every beam).
  egoBody: { xMinM: -1.6, xMaxM: 1.3, halfWidthM: 0.9, topM: -0.5 },
};

export const LIDAR_PRESETS: Record<LidarModel, LidarConfig> = {
  hdl64: {
    ...BASE,
    model: 'hdl64',
    name: 'Velodyne HDL-64E (simulated)',
    elevationsDeg: HDL64_ELEVATIONS,
    azimuthSteps: 2048,
    maxRangeM: 120,
    rangeNoiseM: 0.02,
  },
  vlp32: {
    ...BASE,
    model: 'vlp32',
    name: 'Velodyne VLP-32C (simulated)',
    elevationsDeg: VLP32_ELEVATIONS,
    azimuthSteps: 1800,
    maxRangeM: 200,
    rangeNoiseM: 0.03,
  },
  os128: {
    ...BASE,
    model: 'os128',
    name: 'Ouster OS1-128 (simulated)',
    elevationsDeg: OS128_ELEVATIONS,
    azimuthSteps: 2048,
    maxRangeM: 120,
    rangeNoiseM: 0.03,
  },
};

export function lidarConfig(model: LidarModel, over: Partial<LidarConfig> = {}): LidarConfig {
  const preset = LIDAR_PRESETS[model];
  if (!preset) throw new Error(`unknown LiDAR model '${model}' (expected ${LIDAR_MODELS.join(', ')})`);
  const egoBody = over.egoBody === undefined ? preset.egoBody : over.egoBody;
  return {
    ...preset,
    ...over,
    elevationsDeg: [...(over.elevationsDeg ?? preset.elevationsDeg)],
    beamApexM: over.beamApexM ? [...over.beamApexM] : null,
    egoBody: egoBody && { ...egoBody },
  };
}

/** Each beam's apex height (zeros when cfg.beamApexM is null); throws when the list does not match the beams. */
export function beamApexHeights(cfg: LidarConfig): Float64Array {
  const nb = cfg.elevationsDeg.length;
  if (cfg.beamApexM === null) return new Float64Array(nb);
  if (cfg.beamApexM.length !== nb || !cfg.beamApexM.every(Number.isFinite))
    throw new Error(`beamApexM needs ${nb} finite heights (one per beam), got ${cfg.beamApexM.length}`);
  return Float64Array.from(cfg.beamApexM);
}

export function beamCount(cfg: LidarConfig): number {
  return cfg.elevationsDeg.length;
}

/** Seconds of one revolution. */
export function sweepPeriodS(cfg: LidarConfig): number {
  return 1 / cfg.rateHz;
}
