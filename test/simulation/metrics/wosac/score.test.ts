// WOSAC likelihoods against their formulas, rollout validation errors, and the meta-metric's order:
// log replay below 1 and far above agents that stand still (synthetic road; the real WOMD scenario).
import { describe, expect, it } from 'vitest';
import { realData } from '../../../../core/paths.ts';
import { InputError } from '../../../../core/errors.ts';
import {
  WOSAC_2025_CONFIG,
  WOSAC_COMPONENTS,
  wosacConfig,
} from '../../../../simulation/metrics/wosac/config.ts';
import {
  bernoulliLogLikelihood,
  histogramBin,
  histogramLogLikelihood,
} from '../../../../simulation/metrics/wosac/estimator.ts';
import {
  allocateScenarioRollouts,
  logReplayRollouts,
  type ScenarioRollouts,
  validateScenarioRollouts,
} from '../../../../simulation/metrics/wosac/rollouts.ts';
import {
  type AgentLikelihoods,
  meanWosacScores,
  scoreScenarioRollouts,
} from '../../../../simulation/metrics/wosac/score.ts';
import type { Scenario } from '../../../../simulation/scenario.ts';
import { loadScenarios } from '../../../../simulation/scenarioSources.ts';
import { describeWithSharedData, itWithSharedData } from '../../../sharedData.ts';
import { straightRoadScenario } from '../../fixtures.ts';

describe('WOSAC estimators', () => {
  const speed = WOSAC_2025_CONFIG.features.linearSpeed;
  if (speed.kind !== 'histogram') throw new Error('speed is a histogram');

  it('bins: clipped into range, last bin closed, NaN in the last bin', () => {
    expect(histogramBin(speed, 1)).toBe(0);
    expect(histogramBin(speed, -3)).toBe(0);
    expect(histogramBin(speed, 2.5)).toBe(1);
    expect(histogramBin(speed, 25)).toBe(9);
    expect(histogramBin(speed, 40)).toBe(9);
    expect(histogramBin(speed, NaN)).toBe(9);
  });

  it('histogram log-likelihood of a logged value inside and outside the sampled bins', () => {
    // 2 rollouts × 16 steps: 20 values at 1 m/s (bin 0) and 12 at 11 m/s (bin 4).
    const sim = new Float32Array(32).map((_, i) => (i < 20 ? 1 : 11));
    const log = Float32Array.of(11, 30, 0.5, 11);
    const mask = Uint8Array.of(1, 1, 1, 0);
    const acc = new Float64Array(2);
    histogramLogLikelihood(speed, sim, 0, 2, 16, 16, log, 0, mask, 0, new Float64Array(16), acc);
    const total = 32 + 10 * 0.1;
    // 11 m/s: (12 + 0.1) / 33; 30 m/s clipped into the empty last bin: 0.1 / 33; 0.5 m/s: 20.1 / 33.
    const expected = Math.log(12.1 / total) + Math.log(0.1 / total) + Math.log(20.1 / total);
    expect(acc[1]).toBe(3);
    expect(acc[0]).toBeCloseTo(expected, 12);
  });

  it('Bernoulli log-likelihood with its own pseudo-count', () => {
    const b = WOSAC_2025_CONFIG.features.collisionIndication;
    if (b.kind !== 'bernoulli') throw new Error('collision is Bernoulli');
    expect(bernoulliLogLikelihood(b, 3, 32, false)).toBeCloseTo(Math.log(29.001 / 32.002), 12);
    expect(bernoulliLogLikelihood(b, 3, 32, true)).toBeCloseTo(Math.log(3.001 / 32.002), 12);
    expect(bernoulliLogLikelihood(b, 0, 32, true)).toBeCloseTo(Math.log(0.001 / 32.002), 12);
  });

  it('2025 weights sum to 1', () => {
    const sum = WOSAC_COMPONENTS.reduce((p, c) => p + WOSAC_2025_CONFIG.features[c].weight, 0);
    expect(sum).toBeCloseTo(1, 12);
  });
});

/** The fixture road with its edges oriented as WOMD's (road on the left of each edge's direction). */
function road(): Scenario {
  const s = straightRoadScenario({ numAgents: 4, numSteps: 31 });
  s.controlled.fill(1);
  s.map.roadEdges = [
    { id: 10, xy: Float32Array.of(0, -1.75, 200, -1.75) },
    { id: 11, xy: Float32Array.of(200, 5.25, 0, 5.25) },
  ];
  return s;
}

/** Every agent stays where it is at the current step. */
function standStill(s: Scenario, n: number): ScenarioRollouts {
  const r = allocateScenarioRollouts(s, n);
  const A = r.agentRows.length;
  const T = r.numFutureSteps;
  for (let i = 0; i < n * A; i++) {
    const j = r.agentRows[i % A] * s.numSteps + s.currentStep;
    r.x.fill(s.agents.x[j], i * T, (i + 1) * T);
    r.y.fill(s.agents.y[j], i * T, (i + 1) * T);
    r.z.fill(s.agents.z[j], i * T, (i + 1) * T);
    r.yaw.fill(s.agents.yaw[j], i * T, (i + 1) * T);
  }
  return r;
}

describe('WOSAC rollout validation', () => {
  const s = road();
  const ok = logReplayRollouts(s, 2);
  const msg = (r: ScenarioRollouts) => {
    try {
      validateScenarioRollouts(s, r, 'rollouts.bin');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return (e as Error).message;
    }
    return 'no error';
  };

  it('accepts good rollouts and names the file and problem otherwise', () => {
    expect(msg(ok)).toBe('no error');
    expect(msg({ ...ok, numFutureSteps: 19 })).toMatch(
      /^rollouts\.bin: .*19 future steps, the scenario has 20/,
    );
    expect(msg({ ...ok, agentRows: Int32Array.of(0, 1, 2) })).toMatch(/not simulated \(ids 103\)/);
    expect(msg({ ...ok, agentRows: Int32Array.of(0, 1, 2, 2) })).toMatch(/agent id 102 appears twice/);
    expect(msg({ ...ok, agentRows: Int32Array.of(0, 1, 2, 9) })).toMatch(/agent row 9 is out of range/);
    const nan = { ...ok, yaw: ok.yaw.slice() };
    nan.yaw[20 * 5 + 3] = NaN;
    expect(msg(nan)).toMatch(/yaw is not finite at rollout 1, agent id 101, future step 3/);
    expect(msg({ ...ok, x: ok.x.subarray(1) })).toMatch(/x has 159 values, expected 160/);
  });

  it('rejects an agent not valid at the current step', () => {
    const t = road();
    t.agents.valid[3 * t.numSteps + t.currentStep] = 0;
    expect(() => validateScenarioRollouts(t, ok, 'r.bin')).toThrow(/agent id 103 is not a sim agent/);
  });
});

describe('WOSAC score', () => {
  it('log replay scores below 1 and above standing still; components are likelihoods', () => {
    const s = road();
    const replay = scoreScenarioRollouts(s, logReplayRollouts(s, 4));
    const still = scoreScenarioRollouts(s, standStill(s, 4));
    expect(replay.scoredAgents).toBe(4);
    expect(replay.metaMetric).toBeLessThan(1);
    // Only the speed tells them apart here (equal spacing, no leader closing in, no edge nearby).
    expect(replay.metaMetric).toBeGreaterThan(still.metaMetric + 0.04);
    for (const c of WOSAC_COMPONENTS) {
      expect(replay.components[c]).toBeGreaterThan(0);
      expect(replay.components[c]).toBeLessThanOrEqual(1);
    }
    // Everyone at 10 m/s in the log; standing still puts every sample in the 0 m/s bin.
    expect(replay.components.linearSpeed).toBeGreaterThan(0.9);
    expect(still.components.linearSpeed).toBeLessThan(0.01);
    const mean = meanWosacScores([replay, still]);
    expect(mean.metaMetric).toBeCloseTo((replay.metaMetric + still.metaMetric) / 2, 12);
  });

  it('a component without data adds nothing and nothing is rescaled', () => {
    const s = road();
    s.map.roadEdges = [];
    const r = scoreScenarioRollouts(s, logReplayRollouts(s, 2));
    expect(Number.isNaN(r.components.distanceToRoadEdge)).toBe(true);
    expect(Number.isNaN(r.components.offroadIndication)).toBe(true);
    const sum = WOSAC_COMPONENTS.filter((c) => !Number.isNaN(r.components[c])).reduce(
      (p, c) => p + WOSAC_2025_CONFIG.features[c].weight * r.components[c],
      0,
    );
    expect(r.metaMetric).toBeCloseTo(sum, 12);
    expect(r.metaMetric).toBeLessThan(0.71);
  });

  it("each scored agent's terms add up to the components, and the score is unchanged", () => {
    const s = road();
    // Half the rollouts stand still, half replay the log: every agent's terms differ from zero.
    const r = standStill(s, 4);
    const rep = logReplayRollouts(s, 4);
    const half = r.x.length / 2;
    for (const k of ['x', 'y', 'z', 'yaw'] as const) r[k].set(rep[k].subarray(half), half);
    let got: AgentLikelihoods | undefined;
    const withTerms = scoreScenarioRollouts(s, r, undefined, undefined, (t) => (got = t));
    expect(withTerms).toEqual(scoreScenarioRollouts(s, r));
    const t = got!;
    expect(Array.from(t.rows)).toEqual([0, 1, 2, 3]);
    for (const c of WOSAC_COMPONENTS) {
      const sum = t.sum[c].reduce((p, v) => p + v, 0);
      const n = t.terms[c].reduce((p, v) => p + v, 0);
      expect(Math.exp(sum / n)).toBeCloseTo(withTerms.components[c], 10);
    }
    expect(Array.from(t.simCollided)).toEqual([0, 0, 0, 0]);
  });
});

describeWithSharedData('WOSAC on the real WOMD scenario', () => {
  itWithSharedData(
    'scores the SDC + tracks_to_predict; replay above standing still',
    () => {
      const [{ scenario: s }] = loadScenarios(realData('womd', 'motion_data_one_scenario.tfrecord'));
      const replay = scoreScenarioRollouts(s, logReplayRollouts(s, 2));
      const still = scoreScenarioRollouts(s, standStill(s, 2));
      expect(replay.scoredAgents).toBe(1 + (s.tracksToPredict?.length ?? 0));
      expect(replay.metaMetric).toBeLessThan(1);
      expect(replay.metaMetric).toBeGreaterThan(still.metaMetric + 0.1);
      const all = scoreScenarioRollouts(s, logReplayRollouts(s, 2), wosacConfig({ scoreAllAgents: true }));
      expect(all.scoredAgents).toBe(50);
    },
    60_000,
  );
});
