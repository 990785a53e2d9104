// The Waymo Open Sim Agents Challenge 2025 metric configuration: per-feature estimator (histogram bins
// and pseudo-counts, Bernoulli pseudo-count) and meta-metric weight, as challenge_2025_sim_agents_config.textproto.

/** The ten likelihood components of the WOSAC meta-metric (the official `*_likelihood` fields). */
export const WOSAC_COMPONENTS = [
  'linearSpeed',
  'linearAcceleration',
  'angularSpeed',
  'angularAcceleration',
  'distanceToNearestObject',
  'collisionIndication',
  'timeToCollision',
  'distanceToRoadEdge',
  'offroadIndication',
  'trafficLightViolation',
] as const;

export type WosacComponent = (typeof WOSAC_COMPONENTS)[number];

/** A histogram estimator: `numBins` equal bins over [minVal, maxVal] (values clipped into it). */
export interface HistogramEstimate {
  kind: 'histogram';
  minVal: number;
  maxVal: number;
  numBins: number;
  /** Added to every bin count before normalising, so an empty bin has a finite log-likelihood. */
  pseudoCount: number;
  /** Weight in the meta-metric. */
  weight: number;
}

/** A Bernoulli estimator over one boolean per (rollout, agent), with its own pseudo-count. */
export interface BernoulliEstimate {
  kind: 'bernoulli';
  pseudoCount: number;
  weight: number;
}

export type FeatureEstimate = HistogramEstimate | BernoulliEstimate;

export interface WosacConfig {
  /** Estimator and weight of each component (the 2025 challenge values by default). */
  features: Record<WosacComponent, FeatureEstimate>;
  /**
   * Score every simulated agent instead of the SDC + tracks_to_predict (for the "over all agents"
   * figure; the challenge scores only the latter).
   */
  scoreAllAgents: boolean;
  /** Rounded-box corners for the distance to the nearest object: 0 = rectangle, 1 = capsule. */
  cornerRoundingFactor: number;
  /**
   * Match an agent to its lane with the official point-to-segment formula, which adds the segment
   * vector instead of subtracting it (harmless on WOMD's ~0.5 m lane spacing, wrong on long
   * segments); false uses the true distance.
   */
  officialLaneDistance: boolean;
}

const histogram = (minVal: number, maxVal: number, numBins: number, weight: number): HistogramEstimate => ({
  kind: 'histogram',
  minVal,
  maxVal,
  numBins,
  pseudoCount: 0.1,
  weight,
});
const bernoulli = (weight: number): BernoulliEstimate => ({ kind: 'bernoulli', pseudoCount: 0.001, weight });

/** The 2025 Sim Agents challenge configuration (weights sum to 1). */
export const WOSAC_2025_CONFIG: WosacConfig = {
  features: {
    linearSpeed: histogram(0, 25, 10, 0.05),
    linearAcceleration: histogram(-12, 12, 11, 0.05),
    angularSpeed: histogram(-0.628, 0.628, 11, 0.05),
    angularAcceleration: histogram(-3.14, 3.14, 11, 0.05),
    distanceToNearestObject: histogram(-5, 40, 10, 0.1),
    collisionIndication: bernoulli(0.25),
    timeToCollision: histogram(0, 5, 10, 0.1),
    distanceToRoadEdge: histogram(-20, 40, 10, 0.05),
    offroadIndication: bernoulli(0.25),
    trafficLightViolation: bernoulli(0.05),
  },
  scoreAllAgents: false,
  cornerRoundingFactor: 0.7,
  officialLaneDistance: true,
};

/** The 2025 config with overrides (features merged per component). */
export function wosacConfig(over: Partial<WosacConfig> = {}): WosacConfig {
  return {
    ...WOSAC_2025_CONFIG,
    ...over,
    features: { ...WOSAC_2025_CONFIG.features, ...over.features },
  };
}
