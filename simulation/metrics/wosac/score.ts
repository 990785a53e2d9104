// The Sim Agents realism meta-metric of N rollouts of a scenario (metrics.py): per-feature likelihoods
// of the logged values under the rollouts' distributions, weighted by the 2025 challenge config.
import type { Scenario } from '../../scenario.ts';
import { WOSAC_2025_CONFIG, WOSAC_COMPONENTS, type WosacComponent, type WosacConfig } from './config.ts';
import { bernoulliLogLikelihood, histogramLogLikelihood } from './estimator.ts';
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

const HISTOGRAM_FEATURES: [WosacComponent, keyof FeatureArrays, 'speed' | 'accel' | 'valid' | 'vehicle'][] = [
  ['linearSpeed', 'linearSpeed', 'speed'],
  ['linearAcceleration', 'linearAcceleration', 'accel'],
  ['angularSpeed', 'angularSpeed', 'speed'],
  ['angularAcceleration', 'angularAcceleration', 'accel'],
  ['distanceToNearestObject', 'distanceToNearestObject', 'valid'],
  ['timeToCollision', 'timeToCollision', 'vehicle'],
  ['distanceToRoadEdge', 'distanceToRoadEdge', 'valid'],
];

/**
 * Score N rollouts of a scenario (checked with validateScenarioRollouts first). Features are
 * computed for the log and for every rollout (history from the log, future simulated and always
 * valid); each component is exp(mean log-likelihood) over the scored agents' valid steps (time
 * series) or over the scored agents (collision, off-road, red light), as the official code pools them.
 */
export function scoreScenarioRollouts(
  s: Scenario,
  r: ScenarioRollouts,
  config: WosacConfig = WOSAC_2025_CONFIG,
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
  for (let a = 0; a < A; a++) valid.fill(1, a * F + H, (a + 1) * F);
  const simF = allocateFeatures(N * E * T);
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
    sceneFeatures(ctx, x, y, z, yaw, valid, simF, n);
  }

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

  const components = {} as Record<WosacComponent, number>;
  const counts = new Float64Array(64);
  for (const [name, key, maskName] of HISTOGRAM_FEATURES) {
    const est = config.features[name];
    if (est.kind !== 'histogram') throw new Error(`WOSAC config: ${name} must be a histogram estimate`);
    if (counts.length < est.numBins) throw new Error(`WOSAC config: ${name} has too many bins`);
    const acc = new Float64Array(2);
    const simV = simF[key] as Float32Array;
    const logV = logF[key] as Float32Array;
    for (let e = 0; e < E; e++)
      histogramLogLikelihood(est, simV, e * T, N, E * T, T, logV, e * T, masks[maskName], e * T, counts, acc);
    components[name] = acc[1] > 0 ? Math.exp(acc[0] / acc[1]) : NaN;
  }
  const noEdges = ctx.roadEdges.sx.length === 0;
  if (noEdges) components.distanceToRoadEdge = NaN;

  // Per-agent indications over the log-valid steps (red lights: vehicles only), scored as Bernoulli.
  const indication = (feats: FeatureArrays, scene: number, e: number, kind: string): boolean => {
    const o = (scene * E + e) * T;
    for (let t = 0; t < T; t++) {
      if (!logValid[e * T + t]) continue;
      if (
        kind === 'collision'
          ? feats.distanceToNearestObject[o + t] < 0
          : kind === 'offroad'
            ? feats.distanceToRoadEdge[o + t] > 0
            : isVehicle[e] && feats.redLight[o + t]
      )
        return true;
    }
    return false;
  };
  const bernoulli: [WosacComponent, string][] = [
    ['collisionIndication', 'collision'],
    ['offroadIndication', 'offroad'],
    ['trafficLightViolation', 'redLight'],
  ];
  for (const [name, kind] of bernoulli) {
    const est = config.features[name];
    if (est.kind !== 'bernoulli') throw new Error(`WOSAC config: ${name} must be a Bernoulli estimate`);
    if (E === 0 || (kind === 'offroad' && noEdges)) {
      components[name] = NaN;
      continue;
    }
    let sum = 0;
    for (let e = 0; e < E; e++) {
      let trues = 0;
      for (let n = 0; n < N; n++) if (indication(simF, n, e, kind)) trues++;
      sum += bernoulliLogLikelihood(est, trues, N, indication(logF, 0, e, kind));
    }
    components[name] = Math.exp(sum / E);
  }

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
