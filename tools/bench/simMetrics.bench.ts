// Sim Agents metric benchmark (issue 14, point 6): agent-steps per second of N = 32 seeded rollouts of
// 100 synthetic scenarios × 100 agents (stepping) plus every official feature and likelihood (scoring).
import { AGENTS } from '../../simulation/agents/registry.ts';
import { runPolicy } from '../../simulation/agents/policy.ts';
import { SimEnv } from '../../simulation/env.ts';
import { allocateScenarioRollouts, type ScenarioRollouts } from '../../simulation/metrics/wosac/rollouts.ts';
import { meanWosacScores, scoreScenarioRollouts } from '../../simulation/metrics/wosac/score.ts';
import { LIGHT, type Scenario } from '../../simulation/scenario.ts';
import type { Benchmark } from './benchmark.ts';
import { benchBatch, SIM_BENCH } from './sim.bench.ts';

/** Settings: the sim bench's 4-lane roads (100 agents each), 32 rollouts, every agent scored. */
export const SIM_METRICS_BENCH = { scenarios: 100, agentsPerScenario: 100, rollouts: 32 };

/**
 * The sim bench scenarios with what the metric needs on top: road edges along each road (road on
 * their left, as WOMD orients them) and a light per lane turning red halfway.
 */
function metricScenarios(): Scenario[] {
  const { scenarios, agentsPerScenario } = SIM_METRICS_BENCH;
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
function collect(env: SimEnv, scenarios: Scenario[], out: ScenarioRollouts[], n: number): void {
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

export const benchmarks: Benchmark[] = [
  {
    names: ['sim_rollouts_metrics'],
    async run(emit) {
      const { rollouts: N } = SIM_METRICS_BENCH;
      const scenarios = metricScenarios();
      const samples = scenarios.map((s) => allocateScenarioRollouts(s, N));
      const cpu = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e6;
      };
      const c0 = cpu();
      const t0 = performance.now();
      for (let n = 0; n < N; n++) {
        // One seeded stochastic IDM; the environment's rollout index picks each rollout's draws.
        const env = new SimEnv(scenarios, {}, new Int32Array(scenarios.length).fill(n));
        runPolicy(env, AGENTS.idm({ seed: 1 }));
        collect(env, scenarios, samples, n);
      }
      const t1 = performance.now();
      const c1 = cpu();
      const scores = scenarios.map((s, i) => scoreScenarioRollouts(s, samples[i]));
      const t2 = performance.now();
      const c2 = cpu();
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
        agentStepsPerSec: Math.round(agentSteps / ((t2 - t0) / 1000)),
        steppingAgentStepsPerSec: Math.round(agentSteps / ((t1 - t0) / 1000)),
        metricsAgentStepsPerSec: Math.round(agentSteps / ((t2 - t1) / 1000)),
        // CPU seconds of this process: the figure on one core when the machine is shared.
        agentStepsPerCpuSec: Math.round(agentSteps / (c2 - c0)),
        steppingCpuS: +(c1 - c0).toFixed(2),
        metricsCpuS: +(c2 - c1).toFixed(2),
        steppingS: +((t1 - t0) / 1000).toFixed(2),
        metricsS: +((t2 - t1) / 1000).toFixed(2),
        metaMetric: +mean.metaMetric.toFixed(4),
        target: 1_000_000,
      });
    },
  },
];
