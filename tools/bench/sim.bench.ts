// Simulation benchmarks: agent-steps per second of the batched environment with IDM agents and every
// metric on (1, 100 and 10,000 agents in total, many scenarios batched), the core step alone
// (dynamics + collision + off-road) at 10,000 agents, and how the step cost grows with agents per
// scenario at a fixed total (it should not, thanks to the spatial grid).
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { ACTION_STRIDE, SimEnv } from '../../simulation/env.ts';
import { scenarioMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { allocateAgentTracks, emptyMap, type RoadMap, type Scenario } from '../../simulation/scenario.ts';
import { SpatialGrid } from '../../simulation/spatialGrid.ts';
import { type Benchmark, type Figure, peakRssMb } from './benchmark.ts';

/** Settings: 91 steps (80 simulated, as WOMD), agents every 25 m of lane on 4-lane roads. */
export const SIM_BENCH = {
  numSteps: 91,
  currentStep: 10,
  lanes: 4,
  laneWidthM: 3.6,
  spacingM: 25,
  roadsGapM: 40,
};

/** Parallel straight 4-lane roads long enough for `agents` cars at the bench spacing. */
function benchMap(agents: number): { map: RoadMap; roads: number; lengthM: number } {
  const { lanes, laneWidthM: w, spacingM } = SIM_BENCH;
  const perLane = Math.ceil(agents / lanes);
  const roads = Math.max(1, Math.ceil((perLane * spacingM) / 2000));
  const lengthM = Math.ceil(perLane / roads) * spacingM + 200;
  const map = emptyMap();
  for (let r = 0; r < roads; r++) {
    const y0 = r * (lanes * w + SIM_BENCH.roadsGapM);
    for (let k = 0; k < lanes; k++) {
      const id = r * lanes + k + 1;
      const pts: number[] = [];
      for (let x = 0; x <= lengthM; x += 50) pts.push(x, y0 + k * w);
      map.lanes.push({
        id,
        xy: Float32Array.from(pts),
        widthM: w,
        speedLimitMps: 15,
        successors: [],
        predecessors: [],
        leftNeighbors: k < lanes - 1 ? [id + 1] : [],
        rightNeighbors: k > 0 ? [id - 1] : [],
        inIntersection: false,
      });
    }
    const bottom = y0 - w / 2;
    const top = y0 + (lanes - 0.5) * w;
    map.drivableAreas.push({
      id: 1000 + r,
      xy: Float32Array.of(0, bottom, lengthM, bottom, lengthM, top, 0, top),
    });
  }
  return { map, roads, lengthM };
}

/** A scenario of `agents` controlled cars with varied speeds (a constant-speed log). */
function benchScenario(id: string, agents: number, map: ReturnType<typeof benchMap>): Scenario {
  const { numSteps: T, currentStep, lanes, laneWidthM: w, spacingM } = SIM_BENCH;
  const a = allocateAgentTracks(agents, T);
  for (let i = 0; i < agents; i++) {
    const lane = i % lanes;
    const road = Math.floor(i / lanes) % map.roads;
    const slot = Math.floor(i / (lanes * map.roads));
    const v = 8 + ((i * 7919) % 60) / 10;
    const y = road * (lanes * w + SIM_BENCH.roadsGapM) + lane * w;
    const x0 = 60 + slot * spacingM + (lane % 2) * 7;
    a.ids[i] = i;
    a.length[i] = 4.5;
    a.width[i] = 1.9;
    a.height[i] = 1.5;
    for (let t = 0; t < T; t++) {
      const k = i * T + t;
      a.x[k] = x0 + v * (t - currentStep) * 0.1;
      a.y[k] = y;
      a.z[k] = 0.75;
      a.vx[k] = v;
      a.valid[k] = 1;
    }
  }
  return {
    id,
    dtS: 0.1,
    numSteps: T,
    currentStep,
    map: map.map,
    agents: a,
    egoIndex: 0,
    controlled: new Uint8Array(agents).fill(1),
    goalX: new Float32Array(agents).fill(NaN),
    goalY: new Float32Array(agents).fill(NaN),
    routes: Array.from({ length: agents }, () => []),
    source: 'bench',
  };
}

/** `scenarios` scenarios of `perScenario` agents sharing one map (its index is built once). */
export function benchBatch(scenarios: number, perScenario: number): Scenario[] {
  const map = benchMap(perScenario);
  return Array.from({ length: scenarios }, (_, i) => benchScenario(`bench-${i}`, perScenario, map));
}

interface EnvRun {
  steps: number;
  agents: number;
  policyMs: number;
  stepMs: number;
  metricsMs: number;
  setupMs: number;
}

/** One rollout of IDM agents with env checks every step, then every metric of every scenario. */
function runIdm(scenarios: Scenario[]): EnvRun {
  const t0 = performance.now();
  const env = new SimEnv(scenarios);
  const policy = new IdmPolicy();
  const setupMs = performance.now() - t0;
  let policyMs = 0;
  let stepMs = 0;
  env.reset();
  policy.reset(env);
  while (!env.done) {
    const a = performance.now();
    policy.act(env);
    const b = performance.now();
    env.step();
    stepMs += performance.now() - b;
    policyMs += b - a;
  }
  const m0 = performance.now();
  const grid = new SpatialGrid();
  scenarios.forEach((s, i) => scenarioMetrics(s, env.rolloutOf(i), grid));
  return { steps: env.horizon, agents: env.n, policyMs, stepMs, metricsMs: performance.now() - m0, setupMs };
}

function envFigure(name: string, scenarios: number, perScenario: number): Figure {
  runIdm(benchBatch(Math.min(scenarios, 2), Math.min(perScenario, 200))); // warm-up (JIT)
  const r = runIdm(benchBatch(scenarios, perScenario));
  const agentSteps = r.agents * r.steps;
  const total = r.policyMs + r.stepMs + r.metricsMs;
  return {
    name,
    agent_steps_per_s: Math.round(agentSteps / (total / 1000)),
    agents: r.agents,
    scenarios,
    agents_per_scenario: perScenario,
    steps: r.steps,
    env_step_agent_steps_per_s: Math.round(agentSteps / (r.stepMs / 1000)),
    idm_ms_per_step: +(r.policyMs / r.steps).toFixed(3),
    env_ms_per_step: +(r.stepMs / r.steps).toFixed(3),
    metrics_ms: +r.metricsMs.toFixed(1),
    setup_ms: +r.setupMs.toFixed(1),
    peak_rss_mb: Math.round(peakRssMb()),
  };
}

export const benchmarks: Benchmark[] = [
  {
    names: ['sim_env_1agents', 'sim_env_100agents', 'sim_env_10000agents'],
    async run(emit) {
      emit(envFigure('sim_env_1agents', 1, 1));
      emit(envFigure('sim_env_100agents', 4, 25));
      emit(envFigure('sim_env_10000agents', 100, 100));
    },
  },
  {
    names: ['sim_core_10000agents'],
    async run(emit) {
      // Dynamics (bicycle) + collision (grid) + off-road (field) only: constant actions, no policy.
      const scenarios = benchBatch(100, 100);
      const env = new SimEnv(scenarios);
      env.setDynamics('bicycle');
      for (let g = 0; g < env.n; g++) {
        env.actions[g * ACTION_STRIDE] = 0.2;
        env.actions[g * ACTION_STRIDE + 1] = 0.001;
      }
      const times: number[] = [];
      for (let rep = 0; rep < 5; rep++) {
        env.reset();
        env.setDynamics('bicycle');
        const t = performance.now();
        while (!env.done) env.step();
        times.push(performance.now() - t);
      }
      const best = Math.min(...times);
      emit({
        name: 'sim_core_10000agents',
        agent_steps_per_s: Math.round((env.n * env.horizon) / (best / 1000)),
        agents: env.n,
        steps: env.horizon,
        ms_per_step: +(best / env.horizon).toFixed(3),
        target_agent_steps_per_s: 1_000_000,
      });
    },
  },
  {
    names: ['sim_env_growth'],
    async run(emit) {
      // 10,000 agents in total, from many small scenarios to one big one: the step cost per agent
      // should stay flat (grid neighbour search), where all-pairs checks would grow linearly.
      const rows: number[][] = [];
      for (const per of [10, 100, 1000, 10000]) {
        const f = envFigure('growth', 10000 / per, per);
        rows.push([
          per,
          f.agent_steps_per_s as number,
          f.env_step_agent_steps_per_s as number,
          f.idm_ms_per_step as number,
        ]);
      }
      emit({
        name: 'sim_env_growth',
        agents: 10000,
        agents_per_scenario: rows.map((r) => r[0]),
        agent_steps_per_s: rows.map((r) => r[1]),
        env_step_agent_steps_per_s: rows.map((r) => r[2]),
        idm_ms_per_step: rows.map((r) => r[3]),
      });
    },
  },
];
