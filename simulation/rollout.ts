// Closed-loop rollouts of a policy over many scenarios, batched into environments of bounded size:
// the recorded trajectories (as AgentStates rows) and the metrics of every scenario.
import type { AgentStates } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { type Policy, runPolicy } from './agents/policy.ts';
import { type EnvConfig, SimEnv } from './env.ts';
import { evaluatedAgents, type ScenarioMetrics, scenarioMetrics } from './metrics/scenarioMetrics.ts';
import type { Scenario } from './scenario.ts';
import { scenarioToAgentStates } from './scenarioTables.ts';
import { SpatialGrid } from './spatialGrid.ts';

export interface RolloutOptions {
  /** Agents per environment batch: scenarios are grouped up to this many agents. */
  batchAgents?: number;
  env?: Partial<EnvConfig>;
  /** Called after each batch with the number of scenarios done. */
  onProgress?: (done: number) => void;
}

export interface ScenarioRollout {
  scenario: Scenario;
  /** The rollout in the scenario's track layout (history from the log, future simulated). */
  tracks: Scenario['agents'];
  metrics: ScenarioMetrics;
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
  scenarios.forEach((s, i) => {
    if (!evaluatedAgents(s).some((v) => v === 1))
      throw new InputError(
        files[i] ?? s.id,
        `scenario '${s.id}': no controlled agent is valid at the current step ${s.currentStep}`,
      );
  });
  const out: ScenarioRollout[] = [];
  const grid = new SpatialGrid();
  for (const batch of batchScenarios(scenarios, opts.batchAgents ?? 20_000)) {
    const env = new SimEnv(batch, opts.env);
    runPolicy(env, makePolicy());
    batch.forEach((s, i) => {
      const r = env.rolloutOf(i);
      const tracks = {
        ...s.agents,
        x: r.x.slice(),
        y: r.y.slice(),
        z: r.z.slice(),
        yaw: r.yaw.slice(),
        vx: r.vx.slice(),
        vy: r.vy.slice(),
        valid: r.valid.slice(),
      };
      out.push({ scenario: s, tracks, metrics: scenarioMetrics(s, tracks, grid) });
    });
    opts.onProgress?.(out.length);
  }
  return out;
}

/** A rollout as AgentStates rows (agent-major, every step of every agent, invalid ones included). */
export function rolloutToAgentStates(s: Scenario, tracks: Scenario['agents']): AgentStates {
  return scenarioToAgentStates({ ...s, agents: tracks });
}
