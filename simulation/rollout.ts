// Closed-loop rollouts of a policy over many scenarios, batched into environments of bounded size (N
// seeded rollouts of a scenario are N copies of it in a batch): trajectories and metrics of each scenario.
import type { AgentStates } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { type Policy, runPolicy } from './agents/policy.ts';
import { type EnvConfig, SimEnv } from './env.ts';
import {
  evaluatedAgents,
  meanMetrics,
  type ScenarioMetrics,
  scenarioMetrics,
} from './metrics/scenarioMetrics.ts';
import { allocateScenarioRollouts, type ScenarioRollouts } from './metrics/wosac/rollouts.ts';
import type { AgentTracks, Scenario } from './scenario.ts';
import { scenarioToAgentStates } from './scenarioTables.ts';
import { SpatialGrid } from './spatialGrid.ts';

export interface RolloutOptions {
  /** Agents per environment batch: scenarios are grouped up to this many agents. */
  batchAgents?: number;
  env?: Partial<EnvConfig>;
  /** Called after each batch with the number of scenarios done (all their rollouts run). */
  onProgress?: (done: number) => void;
  /** Rollouts per scenario (default 1); the policy tells them apart by env.rollout. */
  rollouts?: number;
  /** Keep every rollout's tracks in `allTracks` (default false: only rollout 0's, in `tracks`). */
  keepAllTracks?: boolean;
  /**
   * The policy is deterministic: each scenario runs once and its rollout is copied to the N rollouts
   * (the same result as N runs, N times cheaper).
   */
  replicate?: boolean;
  /** The rollout metrics are means over the first this many rollouts (default all; they cost ~80 ms each). */
  metricRollouts?: number;
  /**
   * The scenario rollout n of scenario si runs on (default: s itself), e.g. with routes sampled for that
   * rollout (intention/sampleIntentions.ts); metrics are scored against s and its log.
   */
  scenarioFor?: (s: Scenario, si: number, n: number) => Scenario;
}

export interface ScenarioRollout {
  scenario: Scenario;
  /** Rollout 0 in the scenario's track layout (history from the log, future simulated). */
  tracks: AgentTracks;
  /** Every rollout's tracks (when asked for with keepAllTracks), rollout n at index n. */
  allTracks?: AgentTracks[];
  /** The rollout metrics, means over the rollouts. */
  metrics: ScenarioMetrics;
  /**
   * The future of every agent valid at the current step in every rollout (the Sim Agents layout); an
   * agent the policy lets go invalid (log replay) keeps the log's values at those steps.
   */
  samples: ScenarioRollouts;
}

/** Group scenarios into batches of about `maxAgents` agents (a scenario is never split). */
export function batchScenarios<T extends { agents: { ids: ArrayLike<number> } }>(
  items: readonly T[],
  maxAgents: number,
): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let count = 0;
  for (const s of items) {
    const n = s.agents.ids.length;
    if (cur.length > 0 && count + n > maxAgents) {
      out.push(cur);
      cur = [];
      count = 0;
    }
    cur.push(s);
    count += n;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Refuse scenarios without a controlled agent valid at their current step (nothing to simulate). */
export function checkSimulatable(scenarios: readonly Scenario[], files: readonly string[] = []): void {
  scenarios.forEach((s, i) => {
    if (!evaluatedAgents(s).some((v) => v === 1))
      throw new InputError(
        files[i] ?? s.id,
        `scenario '${s.id}': no controlled agent is valid at the current step ${s.currentStep}`,
      );
  });
}

/**
 * Roll `makePolicy()` out on every scenario (one policy instance per batch) and score each rollout.
 * `files` names each scenario's source for errors (a scenario without a controlled agent valid at
 * its current step cannot be simulated).
 */
export function rolloutScenarios(
  scenarios: readonly Scenario[],
  makePolicy: () => Policy,
  opts: RolloutOptions = {},
  files: readonly string[] = [],
): ScenarioRollout[] {
  checkSimulatable(scenarios, files);
  const N = opts.rollouts ?? 1;
  if (!Number.isInteger(N) || N < 1)
    throw new InputError('--rollouts', `must be a whole number ≥ 1, got ${N}`);
  const grid = new SpatialGrid();
  const samples = scenarios.map((s) => allocateScenarioRollouts(s, N));
  const M = Math.max(1, Math.min(N, opts.metricRollouts ?? N));
  const perRollout = scenarios.map(() => new Array<ScenarioMetrics>(M));
  const tracksOf = scenarios.map(() => new Array<AgentTracks>(N));
  // Copies are batched like scenarios: a scenario's rollouts may span batches (each copy stands alone).
  const runs = opts.replicate ? 1 : N;
  const copies = scenarios.flatMap((s, si) =>
    Array.from({ length: runs }, (_, n) => ({ agents: s.agents, si, n })),
  );
  const left = Int32Array.from(scenarios, () => runs);
  let done = 0;
  for (const batch of batchScenarios(copies, opts.batchAgents ?? 20_000)) {
    const env = new SimEnv(
      batch.map((c) => (opts.scenarioFor ? opts.scenarioFor(scenarios[c.si], c.si, c.n) : scenarios[c.si])),
      opts.env,
      batch.map((c) => c.n),
    );
    runPolicy(env, makePolicy());
    batch.forEach(({ si, n }, i) => {
      const s = scenarios[si];
      const r = env.rolloutOf(i);
      const tracks: AgentTracks = {
        ...s.agents,
        x: r.x.slice(),
        y: r.y.slice(),
        z: r.z.slice(),
        yaw: r.yaw.slice(),
        vx: r.vx.slice(),
        vy: r.vy.slice(),
        valid: r.valid.slice(),
      };
      const metrics = n < M ? scenarioMetrics(s, tracks, grid) : null;
      // A replicated run stands for every rollout (they would all be equal).
      for (let m = n; m < (opts.replicate ? N : n + 1); m++) {
        fillSamples(s, tracks, samples[si], m);
        if (m < M) perRollout[si][m] = metrics!;
        if (m === 0 || opts.keepAllTracks) tracksOf[si][m] = tracks;
      }
      if (--left[si] === 0) done++;
    });
    opts.onProgress?.(done);
  }
  return scenarios.map((s, si) => ({
    scenario: s,
    tracks: tracksOf[si][0],
    ...(opts.keepAllTracks ? { allTracks: tracksOf[si] } : {}),
    metrics: M === 1 ? perRollout[si][0] : { ...meanMetrics(perRollout[si]), scenario: s.id },
    samples: samples[si],
  }));
}

/**
 * Copy rollout n's future of the simulated agents into `out` as recorded: an agent the policy lets go
 * invalid (log replay) keeps the log's values there, as the official logged oracle does (the metric
 * masks those steps by the log's validity).
 */
function fillSamples(s: Scenario, tr: AgentTracks, out: ScenarioRollouts, n: number): void {
  const A = out.agentRows.length;
  const T = out.numFutureSteps;
  for (let a = 0; a < A; a++) {
    const from = out.agentRows[a] * s.numSteps + s.currentStep + 1;
    const o = (n * A + a) * T;
    out.x.set(tr.x.subarray(from, from + T), o);
    out.y.set(tr.y.subarray(from, from + T), o);
    out.z.set(tr.z.subarray(from, from + T), o);
    out.yaw.set(tr.yaw.subarray(from, from + T), o);
  }
}

/** A rollout as AgentStates rows (agent-major, every step of every agent, invalid ones included). */
export function rolloutToAgentStates(s: Scenario, tracks: Scenario['agents']): AgentStates {
  return scenarioToAgentStates({ ...s, agents: tracks });
}
