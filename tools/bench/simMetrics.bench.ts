// Sim Agents metric benchmark (issue 14, point 6): agent-steps per second of N = 32 seeded rollouts of
// 100 synthetic scenarios × 100 agents (stepping) plus every official feature and likelihood (scoring).
import os from 'node:os';
import type { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { AGENTS } from '../../simulation/agents/registry.ts';
import type { NoisyPolicy } from '../../simulation/agents/stochastic.ts';
import { runPolicy } from '../../simulation/agents/policy.ts';
import { ACTION_STRIDE, SimEnv } from '../../simulation/env.ts';
import { allocateScenarioRollouts, type ScenarioRollouts } from '../../simulation/metrics/wosac/rollouts.ts';
import { meanWosacScores, scoreScenarioRollouts } from '../../simulation/metrics/wosac/score.ts';
import { LIGHT, type Scenario } from '../../simulation/scenario.ts';
import type { Benchmark } from './benchmark.ts';
import { benchBatch, SIM_BENCH } from './sim.bench.ts';

/**
 * Settings: the sim bench's 4-lane roads (100 agents each), 32 rollouts, every agent scored. The
 * reported figure is the 100 scenarios; SIM_METRICS_SCENARIOS=<n> runs fewer for a quick
 * figure on a loaded machine (scenarios are independent, so the per-agent-step cost is the same).
 */
export const SIM_METRICS_BENCH = { scenarios: 100, agentsPerScenario: 100, rollouts: 32 };

function scenarioCount(): number {
  const v = process.env.SIM_METRICS_SCENARIOS;
  if (v === undefined || v === '') return SIM_METRICS_BENCH.scenarios;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`SIM_METRICS_SCENARIOS must be a positive integer (got '${v}')`);
  return n;
}

/**
 * The sim bench scenarios with what the metric needs on top: road edges along each road (road on
 * their left, as WOMD orients them) and a light per lane turning red halfway.
 */
export function metricScenarios(scenarios: number): Scenario[] {
  const { agentsPerScenario } = SIM_METRICS_BENCH;
  const batch = benchBatch(scenarios, agentsPerScenario);
  const map = batch[0].map; // shared by every scenario of the batch
  for (const area of map.drivableAreas) {
    const [x0, bottom, x1, , , top] = area.xy;
    const edge = (from: number, to: number, y: number) => {
      const pts: number[] = [];
      const step = from < to ? 25 : -25;
      for (let x = from; step > 0 ? x <= to : x >= to; x += step) pts.push(x, y);
      return Float32Array.from(pts);
    };
    map.roadEdges.push(
      { id: 2000 + area.id, xy: edge(x0, x1, bottom) },
      { id: 3000 + area.id, xy: edge(x1, x0, top) },
    );
  }
  const T = SIM_BENCH.numSteps;
  for (const lane of map.lanes) {
    const states = new Uint8Array(T).fill(LIGHT.green);
    states.fill(LIGHT.red, T >> 1);
    map.trafficLights.push({ laneId: lane.id, stopX: 400, stopY: lane.xy[1], states });
  }
  for (const s of batch) s.controlled.fill(1);
  return batch;
}

/** Copy rollout n of every scenario of the environment into its ScenarioRollouts. */
export function collect(env: SimEnv, scenarios: Scenario[], out: ScenarioRollouts[], n: number): void {
  scenarios.forEach((s, i) => {
    const r = env.rolloutOf(i);
    const o = out[i];
    const A = o.agentRows.length;
    const T = o.numFutureSteps;
    for (let a = 0; a < A; a++) {
      const src = o.agentRows[a] * s.numSteps + s.currentStep + 1;
      const dst = (n * A + a) * T;
      o.x.set(r.x.subarray(src, src + T), dst);
      o.y.set(r.y.subarray(src, src + T), dst);
      o.z.set(r.z.subarray(src, src + T), dst);
      o.yaw.set(r.yaw.subarray(src, src + T), dst);
    }
  });
}

/** Seconds of CPU this process has used (user + system): the figure on one core when the machine is shared. */
function cpuS(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * N seeded stochastic IDM rollouts of every scenario (the environment's rollout index picks each one's draws);
 * `batched` false scans neighbours with the per-neighbour reference (the same trajectories, slower).
 */
export function idmRollouts(scenarios: Scenario[], N: number, batched = true): ScenarioRollouts[] {
  const samples = scenarios.map((s) => allocateScenarioRollouts(s, N));
  for (let n = 0; n < N; n++) {
    const env = new SimEnv(scenarios, {}, new Int32Array(scenarios.length).fill(n));
    const policy = AGENTS.idm({ seed: 1 }) as NoisyPolicy;
    (policy.base as IdmPolicy).batched = batched;
    runPolicy(env, policy);
    collect(env, scenarios, samples, n);
  }
  return samples;
}

/** The anchor: the core alone (bicycle dynamics + collision + off-road, constant actions) over the same scenarios, N times. */
function coreRollouts(scenarios: Scenario[], N: number): void {
  for (let n = 0; n < N; n++) {
    const env = new SimEnv(scenarios, {}, new Int32Array(scenarios.length).fill(n));
    env.reset();
    env.setDynamics('bicycle');
    for (let g = 0; g < env.n; g++) {
      env.actions[g * ACTION_STRIDE] = 0.2;
      env.actions[g * ACTION_STRIDE + 1] = 0.001;
    }
    while (!env.done) env.step();
  }
}

/** Rollouts of the anchors (core, per-neighbour reference): fewer than N, the rate per agent-step is the same. */
const ANCHOR_ROLLOUTS = 4;

export const benchmarks: Benchmark[] = [
  {
    names: ['sim_rollouts_metrics'],
    async run(emit) {
      const { rollouts: N } = SIM_METRICS_BENCH;
      // Warm-up (JIT) on one scenario with every rollout, untimed.
      const warm = metricScenarios(1);
      idmRollouts(warm, N).forEach((r, i) => scoreScenarioRollouts(warm[i], r));
      const scenarios = metricScenarios(scenarioCount());
      const c0 = cpuS();
      const t0 = performance.now();
      const samples = idmRollouts(scenarios, N);
      const t1 = performance.now();
      const c1 = cpuS();
      const scores = scenarios.map((s, i) => scoreScenarioRollouts(s, samples[i]));
      const t2 = performance.now();
      const c2 = cpuS();
      // Anchors in the same run: the core stepping simple agents, and the per-neighbour reference scan.
      const nA = Math.min(N, ANCHOR_ROLLOUTS);
      coreRollouts(warm, 1);
      const c3 = cpuS();
      coreRollouts(scenarios, nA);
      const c4 = cpuS();
      idmRollouts(scenarios, nA, false);
      const c5 = cpuS();
      const agents = scenarios.reduce((p, s) => p + s.agents.ids.length, 0);
      const steps = SIM_BENCH.numSteps - SIM_BENCH.currentStep - 1;
      const agentSteps = agents * steps * N;
      const mean = meanWosacScores(scores);
      emit({
        name: 'sim_rollouts_metrics',
        scenarios: scenarios.length,
        agents,
        rollouts: N,
        steps,
        scoredAgents: scores.reduce((p, r) => p + r.scoredAgents, 0),
        // Per CPU second of this process: meaningful on one core when the machine is shared.
        agentStepsPerCpuSec: Math.round(agentSteps / (c2 - c0)),
        steppingAgentStepsPerCpuSec: Math.round(agentSteps / (c1 - c0)),
        metricsAgentStepsPerCpuSec: Math.round(agentSteps / (c2 - c1)),
        metricsUsPerAgentStep: +(((c2 - c1) / agentSteps) * 1e6).toFixed(3),
        steppingCpuS: +(c1 - c0).toFixed(2),
        // Anchors (same scenarios, nA rollouts): the core alone, and IDM with the per-neighbour reference scan.
        coreAgentStepsPerCpuSec: Math.round((agentSteps * nA) / N / (c4 - c3)),
        referenceSteppingAgentStepsPerCpuSec: Math.round((agentSteps * nA) / N / (c5 - c4)),
        // Rates as a share of the core's (1 = as fast as stepping simple agents).
        steppingOverCore: +((c4 - c3) / nA / ((c1 - c0) / N)).toFixed(3),
        overallOverCore: +((c4 - c3) / nA / ((c2 - c0) / N)).toFixed(3),
        steppingSpeedupVsReference: +((c5 - c4) / nA / ((c1 - c0) / N)).toFixed(2),
        metricsCpuS: +(c2 - c1).toFixed(2),
        // Wall clock (shared machine: includes time other processes held the core).
        agentStepsPerSec: Math.round(agentSteps / ((t2 - t0) / 1000)),
        steppingS: +((t1 - t0) / 1000).toFixed(2),
        metricsS: +((t2 - t1) / 1000).toFixed(2),
        loadAverage1m: +os.loadavg()[0].toFixed(1),
        metaMetric: +mean.metaMetric.toFixed(4),
        target: 1_000_000,
      });
    },
  },
];
