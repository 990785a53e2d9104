// The Sim Agents realism meta-metric of N rollouts of a scenario (metrics.py): per-feature likelihoods
// of the logged values under the rollouts' distributions, weighted by the 2025 challenge config.
import type { Scenario } from '../../scenario.ts';
import {
  type HistogramEstimate,
  WOSAC_2025_CONFIG,
  WOSAC_COMPONENTS,
  type WosacComponent,
  type WosacConfig,
} from './config.ts';
import { bernoulliLogLikelihood, histogramBin } from './estimator.ts';
import { allocateFeatures, type FeatureArrays, type SceneContext, sceneFeatures } from './features.ts';
import { InteractionFrame } from './interactionFrame.ts';
import { kinematicValidity } from './kinematics.ts';
import { roadEdgeIndexOf } from './roadEdge.ts';
import type { ScenarioRollouts, WosacScenarioScore } from './rollouts.ts';
import { lightIndexOf } from './trafficLight.ts';

/**
 * Local indices (into rollouts.agentRows) of the scored agents: the ego (SDC) plus tracks_to_predict
 * when the scenario names them, else every controlled agent; all simulated agents with scoreAllAgents.
 */
export function scoredAgentIndices(s: Scenario, agentRows: Int32Array, scoreAll: boolean): Int32Array {
  const local = new Map<number, number>();
  agentRows.forEach((row, i) => local.set(row, i));
  if (scoreAll) return Int32Array.from(agentRows.keys());
  const rows = new Set<number>();
  if (s.egoIndex >= 0) rows.add(s.egoIndex);
  if (s.tracksToPredict) for (const r of s.tracksToPredict) rows.add(r);
  else for (const r of agentRows) if (s.controlled[r]) rows.add(r);
  const out: number[] = [];
  for (const r of rows) {
    const i = local.get(r);
    if (i !== undefined) out.push(i);
  }
  return Int32Array.from(out.sort((p, q) => p - q));
}

/**
 * The nearest-object search radius that leaves every likelihood unchanged: the histogram's maxVal
 * (all values from there up share its last bin), never below 0 (the collision flag needs d < 0);
 * no cap unless that feature is a histogram.
 */
export function nearestObjectCap(config: WosacConfig): number {
  const h = config.features.distanceToNearestObject;
  return h.kind === 'histogram' ? Math.max(h.maxVal, 0) : Infinity;
}

const HISTOGRAM_FEATURES: [WosacComponent, keyof FeatureArrays, 'speed' | 'accel' | 'valid' | 'vehicle'][] = [
  ['linearSpeed', 'linearSpeed', 'speed'],
  ['linearAcceleration', 'linearAcceleration', 'accel'],
  ['angularSpeed', 'angularSpeed', 'speed'],
  ['angularAcceleration', 'angularAcceleration', 'accel'],
  ['distanceToNearestObject', 'distanceToNearestObject', 'valid'],
  ['timeToCollision', 'timeToCollision', 'vehicle'],
  ['distanceToRoadEdge', 'distanceToRoadEdge', 'valid'],
];

type Indication = 'collision' | 'offroad' | 'redLight';

/** Whether scored agent e's features flag `kind` at some log-valid step (red lights: vehicles only). */
function indication(
  feats: FeatureArrays,
  e: number,
  T: number,
  kind: Indication,
  logValid: Uint8Array,
  isVehicle: Uint8Array,
): boolean {
  const o = e * T;
  if (kind === 'collision') {
    const d = feats.distanceToNearestObject;
    for (let t = 0; t < T; t++) if (logValid[o + t] && d[o + t] < 0) return true;
  } else if (kind === 'offroad') {
    const d = feats.distanceToRoadEdge;
    for (let t = 0; t < T; t++) if (logValid[o + t] && d[o + t] > 0) return true;
  } else if (isVehicle[e]) {
    const red = feats.redLight;
    for (let t = 0; t < T; t++) if (logValid[o + t] && red[o + t]) return true;
  }
  return false;
}

/**
 * Add E agents' T values each (`values[e·T + t]`) to their histograms: counts[off + e·stride + bin].
 * The bin as histogramBin, with the estimate's fields hoisted out of the loop.
 */
function countBins(
  h: HistogramEstimate,
  values: Float32Array,
  n: number,
  counts: Int32Array,
  off: number,
  T: number,
  stride: number,
): void {
  const lo = h.minVal;
  const hi = h.maxVal;
  const range = hi - lo;
  const nb = h.numBins;
  for (let e = 0, q = 0; q < n; e++) {
    const o = off + e * stride;
    for (const end = q + T; q < end; q++) {
      const v = values[q];
      let b: number;
      if (v !== v)
        b = nb - 1; // NaN: the last bin
      else {
        const c = v < lo ? lo : v > hi ? hi : v;
        b = Math.floor(((c - lo) / range) * nb);
        if (b >= nb) b = nb - 1;
      }
      counts[o + b]++;
    }
  }
}

/**
 * Each scored agent's share of the components (to find which agents a score is lost on): per component,
 * the sum of its log-likelihood terms and how many terms it has (0 where the component has no data).
 */
export interface AgentLikelihoods {
  /** Rows into scenario.agents of the scored agents. */
  rows: Int32Array;
  sum: Record<WosacComponent, Float64Array>;
  terms: Record<WosacComponent, Int32Array>;
  /** Whether the log has the agent in a collision, and the share of rollouts that do. */
  logCollided: Uint8Array;
  simCollided: Float64Array;
}

/**
 * Score N rollouts of a scenario (checked with validateScenarioRollouts first). Features are
 * computed for the log and for every rollout (history from the log, future simulated and always
 * valid); each component is exp(mean log-likelihood) over the scored agents' valid steps (time
 * series) or over the scored agents (collision, off-road, red light), as the official code pools them.
 * `nearestObjectCapM` bounds the nearest-object search (default: nearestObjectCap, which changes no
 * score; Infinity measures every distance, as tests do to check that). `perAgent`, when given, receives
 * each scored agent's terms (the score is the same).
 */
export function scoreScenarioRollouts(
  s: Scenario,
  r: ScenarioRollouts,
  config: WosacConfig = WOSAC_2025_CONFIG,
  nearestObjectCapM: number = nearestObjectCap(config),
  perAgent?: (a: AgentLikelihoods) => void,
): WosacScenarioScore {
  const F = s.numSteps;
  const H = s.currentStep + 1;
  const T = F - H;
  const A = r.agentRows.length;
  const N = r.numRollouts;
  const scored = scoredAgentIndices(s, r.agentRows, config.scoreAllAgents);
  const E = scored.length;
  const ag = s.agents;
  const isVehicle = Uint8Array.from(scored, (i) => (ag.types[r.agentRows[i]] === 'vehicle' ? 1 : 0));
  const ctx: SceneContext = {
    scenario: s,
    agentRows: r.agentRows,
    scored,
    isVehicle,
    roadEdges: roadEdgeIndexOf(s.map.roadEdges),
    lights: lightIndexOf(s.map, config.officialLaneDistance),
    cornerRoundingFactor: config.cornerRoundingFactor,
    nearestObjectCapM,
    frame: new InteractionFrame(
      Float64Array.from(r.agentRows, (row) => ag.length[row]),
      Float64Array.from(r.agentRows, (row) => ag.width[row]),
    ),
  };
  // Scene buffers: the log for every step, then each rollout's future over the same history.
  const x = new Float64Array(A * F);
  const y = new Float64Array(A * F);
  const z = new Float64Array(A * F);
  const yaw = new Float64Array(A * F);
  const valid = new Uint8Array(A * F);
  for (let a = 0; a < A; a++) {
    const src = r.agentRows[a] * F;
    x.set(ag.x.subarray(src, src + F), a * F);
    y.set(ag.y.subarray(src, src + F), a * F);
    z.set(ag.z.subarray(src, src + F), a * F);
    yaw.set(ag.yaw.subarray(src, src + F), a * F);
    valid.set(ag.valid.subarray(src, src + F), a * F);
  }
  const logF = allocateFeatures(E * T);
  sceneFeatures(ctx, x, y, z, yaw, valid, logF, 0);

  // Validity masks from the log, per scored agent over the future.
  const logValid = new Uint8Array(E * T);
  const speedValid = new Uint8Array(E * T);
  const accelValid = new Uint8Array(E * T);
  const vehicleValid = new Uint8Array(E * T);
  for (let e = 0; e < E; e++) {
    const row = r.agentRows[scored[e]];
    const lv = logValid.subarray(e * T, (e + 1) * T);
    lv.set(ag.valid.subarray(row * F + H, row * F + F));
    kinematicValidity(lv, speedValid.subarray(e * T, (e + 1) * T), accelValid.subarray(e * T, (e + 1) * T));
    if (isVehicle[e]) vehicleValid.set(lv, e * T);
  }
  const masks = { speed: speedValid, accel: accelValid, valid: logValid, vehicle: vehicleValid };
  const estimates = HISTOGRAM_FEATURES.map(([name]) => {
    const est = config.features[name];
    if (est.kind !== 'histogram') throw new Error(`WOSAC config: ${name} must be a histogram estimate`);
    return est;
  });
  const bins = Math.max(...estimates.map((h) => h.numBins));
  const bernoulli: [WosacComponent, Indication][] = [
    ['collisionIndication', 'collision'],
    ['offroadIndication', 'offroad'],
    ['trafficLightViolation', 'redLight'],
  ];

  // Each rollout's features (history from the log, future simulated and always valid) go straight
  // into per-agent histogram counts and indication tallies; no N-rollout feature arrays are kept.
  for (let a = 0; a < A; a++) valid.fill(1, a * F + H, (a + 1) * F);
  const simF = allocateFeatures(E * T);
  const counts = new Int32Array(HISTOGRAM_FEATURES.length * E * bins);
  const trues = new Int32Array(bernoulli.length * E);
  for (let n = 0; n < N; n++) {
    for (let a = 0; a < A; a++) {
      const src = (n * A + a) * T;
      const dst = a * F + H;
      for (let t = 0; t < T; t++) {
        x[dst + t] = r.x[src + t];
        y[dst + t] = r.y[src + t];
        z[dst + t] = r.z[src + t];
        yaw[dst + t] = r.yaw[src + t];
      }
    }
    sceneFeatures(ctx, x, y, z, yaw, valid, simF, 0);
    HISTOGRAM_FEATURES.forEach(([, key], fi) =>
      countBins(estimates[fi], simF[key] as Float32Array, E * T, counts, fi * E * bins, T, bins),
    );
    bernoulli.forEach(([, kind], bi) => {
      for (let e = 0; e < E; e++) if (indication(simF, e, T, kind, logValid, isVehicle)) trues[bi * E + e]++;
    });
  }

  // Histogram likelihoods of the logged values, summed agent by agent, step by step.
  const components = {} as Record<WosacComponent, number>;
  const agentTerms: AgentLikelihoods | null = perAgent
    ? {
        rows: Int32Array.from(scored, (i) => r.agentRows[i]),
        sum: Object.fromEntries(WOSAC_COMPONENTS.map((c) => [c, new Float64Array(E)])) as Record<
          WosacComponent,
          Float64Array
        >,
        terms: Object.fromEntries(WOSAC_COMPONENTS.map((c) => [c, new Int32Array(E)])) as Record<
          WosacComponent,
          Int32Array
        >,
        logCollided: new Uint8Array(E),
        simCollided: new Float64Array(E),
      }
    : null;
  HISTOGRAM_FEATURES.forEach(([name, key, maskName], fi) => {
    const h = estimates[fi];
    const logV = logF[key] as Float32Array;
    const mask = masks[maskName];
    const total = N * T + h.numBins * h.pseudoCount;
    let sum = 0;
    let m = 0;
    for (let e = 0; e < E; e++) {
      const c0 = (fi * E + e) * bins;
      const sum0 = sum;
      const m0 = m;
      for (let t = 0; t < T; t++) {
        if (!mask[e * T + t]) continue;
        sum += Math.log((counts[c0 + histogramBin(h, logV[e * T + t])] + h.pseudoCount) / total);
        m += 1;
      }
      if (agentTerms) {
        agentTerms.sum[name][e] = sum - sum0;
        agentTerms.terms[name][e] = m - m0;
      }
    }
    components[name] = m > 0 ? Math.exp(sum / m) : NaN;
  });
  const noEdges = ctx.roadEdges.sx.length === 0;
  if (noEdges) {
    components.distanceToRoadEdge = NaN;
    agentTerms?.sum.distanceToRoadEdge.fill(0);
    agentTerms?.terms.distanceToRoadEdge.fill(0);
  }

  // Per-agent indications over the log-valid steps (red lights: vehicles only), scored as Bernoulli.
  bernoulli.forEach(([name, kind], bi) => {
    const est = config.features[name];
    if (est.kind !== 'bernoulli') throw new Error(`WOSAC config: ${name} must be a Bernoulli estimate`);
    if (E === 0 || (kind === 'offroad' && noEdges)) {
      components[name] = NaN;
      return;
    }
    let sum = 0;
    for (let e = 0; e < E; e++) {
      const logTrue = indication(logF, e, T, kind, logValid, isVehicle);
      const ll = bernoulliLogLikelihood(est, trues[bi * E + e], N, logTrue);
      sum += ll;
      if (agentTerms) {
        agentTerms.sum[name][e] = ll;
        agentTerms.terms[name][e] = 1;
        if (kind === 'collision') {
          agentTerms.logCollided[e] = logTrue ? 1 : 0;
          agentTerms.simCollided[e] = trues[bi * E + e] / N;
        }
      }
    }
    components[name] = Math.exp(sum / E);
  });

  if (agentTerms) perAgent!(agentTerms);
  // Meta-metric: weighted sum; a component without data adds nothing and nothing is rescaled.
  let metaMetric = 0;
  for (const c of WOSAC_COMPONENTS)
    if (!Number.isNaN(components[c])) metaMetric += config.features[c].weight * components[c];
  return { scenarioId: s.id, metaMetric, components, scoredAgents: E };
}

/** Scores averaged over scenarios (the official aggregate): components skip scenarios without data. */
export interface WosacAggregate {
  scenarios: number;
  metaMetric: number;
  components: Record<WosacComponent, number>;
}

export function meanWosacScores(rows: readonly WosacScenarioScore[]): WosacAggregate {
  const components = {} as Record<WosacComponent, number>;
  for (const c of WOSAC_COMPONENTS) {
    const vals = rows.map((r) => r.components[c]).filter((v) => !Number.isNaN(v));
    components[c] = vals.length ? vals.reduce((p, q) => p + q, 0) / vals.length : NaN;
  }
  return {
    scenarios: rows.length,
    metaMetric: rows.length ? rows.reduce((p, r) => p + r.metaMetric, 0) / rows.length : NaN,
    components,
  };
}
