// Every setting of the procedural town in one typed config with documented defaults: road grid, cross
// sections, roadside objects and traffic mix (sizes and speeds follow KITTI label statistics and urban norms).

export interface TownConfig {
  seed: number;
  /** Junctions per row and per column of the (jittered) road grid. */
  gridCols: number;
  gridRows: number;
  /** Mean distance between neighbouring junctions, metres. */
  blockSizeM: number;
  /** Per-row / per-column offset of junctions (keeps grid roads straight but blocks uneven), metres. */
  lineJitterM: number;
  /** Share of junctions moved on their own (their roads become S-curves), and by how much (m). */
  nodeJitterShare: number;
  nodeJitterM: number;
  /** Share of roads bent sideways, and the largest bend (m). */
  curvedRoadShare: number;
  curveBulgeM: number;
  /** Share of interior roads removed (makes more 3-way junctions; degree ≥ 2 and connectivity kept). */
  removeRoadShare: number;
  /** Share of roads with two lanes each way (others have one). */
  multiLaneShare: number;
  laneWidthM: number;
  /** Share of road sides with a parking strip, its width and how full it is. */
  parkingShare: number;
  parkingWidthM: number;
  parkingOccupancy: number;
  sidewalkWidthM: number;
  /** Strip of the sidewalk next to the curb that holds trees and poles (pedestrians walk beside it). */
  furnitureStripM: number;
  curbHeightM: number;
  /** Junction half-size = widest half-road + this margin (room to turn), metres. */
  junctionMarginM: number;
  /** Curb chamfer at junction corners, metres. */
  cornerChamferM: number;
  crosswalkWidthM: number;
  /** Speed limits, m/s: single-lane and multi-lane roads. */
  speedLimitMps: number;
  multiLaneSpeedLimitMps: number;
  /** Buildings: distance behind the sidewalk, frontage width, depth, height, gap between (min, max). */
  buildingSetbackM: [number, number];
  buildingWidthM: [number, number];
  buildingDepthM: [number, number];
  buildingHeightM: [number, number];
  buildingGapM: [number, number];
  /** Share of frontage pieces that are a garden wall or a hedge instead of a building. */
  wallShare: number;
  hedgeShare: number;
  /** Share of buildings whose front garden is closed off at the sidewalk by a hedge or a low fence/wall. */
  frontBoundaryShare: number;
  /** Share of road sides lined with trees, and the spacing of trees (m). */
  treeSideShare: number;
  treeSpacingM: [number, number];
  /** Spacing of street lights / sign poles along a road side (m). */
  poleSpacingM: number;
  /** Bushes per 100 m of frontage. */
  bushesPer100M: number;
  /** Trees scattered inside blocks (behind the frontage), per block. */
  blockTreesPerBlock: number;
  /** Moving traffic. */
  cars: number;
  vans: number;
  trucks: number;
  cyclists: number;
  pedestrians: number;
  /** Chance a pedestrian at a crosswalk decides to cross. */
  crossingChance: number;
  /** Seconds simulated before the first recorded step (traffic settles into queues). */
  warmupS: number;
  /** Scenario step, seconds (10 Hz). */
  dtS: number;
  /** Comfortable lateral acceleration in curves, m/s². */
  lateralAccelMps2: number;
  /** Chance per second that a car on a multi-lane road changes lane when it is safe, without need. */
  laneChangeRatePerS: number;
  /** Duration of a lane change, seconds. */
  laneChangeS: number;
  /**
   * Which car records the log: the one at this quantile of ground covered among the cars — 1, the most (a
   * recording car that mostly drives, like KITTI's odometry logs); 0, the least (one that waits in a queue).
   */
  egoTravelQuantile: number;
}

export const DEFAULT_TOWN: TownConfig = {
  seed: 1,
  gridCols: 4,
  gridRows: 3,
  blockSizeM: 105,
  lineJitterM: 12,
  nodeJitterShare: 0.3,
  nodeJitterM: 8,
  curvedRoadShare: 0.35,
  curveBulgeM: 12,
  removeRoadShare: 0.12,
  multiLaneShare: 0.35,
  laneWidthM: 3.5,
  parkingShare: 0.5,
  parkingWidthM: 2.4,
  parkingOccupancy: 0.5,
  sidewalkWidthM: 3.5,
  furnitureStripM: 0.8,
  curbHeightM: 0.12,
  junctionMarginM: 6,
  cornerChamferM: 3,
  crosswalkWidthM: 4,
  speedLimitMps: 11.1,
  multiLaneSpeedLimitMps: 13.9,
  buildingSetbackM: [1, 5],
  buildingWidthM: [8, 22],
  buildingDepthM: [8, 15],
  buildingHeightM: [5, 15],
  buildingGapM: [1, 5],
  wallShare: 0.12,
  hedgeShare: 0.1,
  frontBoundaryShare: 0.6,
  treeSideShare: 0.8,
  treeSpacingM: [6, 11],
  poleSpacingM: 28,
  bushesPer100M: 12,
  blockTreesPerBlock: 20,
  cars: 38,
  vans: 4,
  trucks: 3,
  cyclists: 8,
  pedestrians: 45,
  crossingChance: 0.35,
  warmupS: 8,
  dtS: 0.1,
  lateralAccelMps2: 2.0,
  laneChangeRatePerS: 0.03,
  laneChangeS: 3.5,
  egoTravelQuantile: 1,
};

/**
 * Narrow streets: one 2.8 m lane each way, most sides lined with parked cars, 1 m sidewalks and building
 * fronts at the sidewalk's edge. A car here drives 1.5–3.5 m from parked cars and walls: the near static
 * surfaces of an old town street (KITTI raw's slow drives) that the default town's wide roads never put
 * that close to the sensor.
 */
export const NARROW_STREETS: Partial<TownConfig> = {
  laneWidthM: 2.8,
  multiLaneShare: 0,
  parkingShare: 0.8,
  parkingWidthM: 2.1,
  parkingOccupancy: 0.95,
  sidewalkWidthM: 1.0,
  furnitureStripM: 0.2,
  buildingSetbackM: [0, 0.2],
  buildingGapM: [0.2, 1.5],
  frontBoundaryShare: 1,
  treeSideShare: 0.1,
  wallShare: 0.3,
};

/** The street layouts `synth --streets` offers. */
export const STREET_LAYOUTS: Record<'default' | 'narrow', Partial<TownConfig>> = {
  default: {},
  narrow: NARROW_STREETS,
};

export function townConfig(over: Partial<TownConfig> = {}): TownConfig {
  return { ...DEFAULT_TOWN, ...over };
}

/** A small town for tests: 3×2 junctions (corners and T-junctions), few agents, short warm-up. */
export function tinyTownConfig(over: Partial<TownConfig> = {}): TownConfig {
  return townConfig({
    gridCols: 3,
    gridRows: 2,
    blockSizeM: 80,
    cars: 8,
    vans: 1,
    trucks: 1,
    cyclists: 2,
    pedestrians: 10,
    warmupS: 3,
    ...over,
  });
}
