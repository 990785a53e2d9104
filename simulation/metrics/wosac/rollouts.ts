// N stochastic rollouts of one scenario in the layout the Sim Agents metric scores (the public
// sim_agents_submission.proto ScenarioRollouts: every agent valid at the current step, x/y/z/heading).
import { InputError } from '../../../core/errors.ts';
import type { Scenario } from '../../scenario.ts';
import type { WosacComponent } from './config.ts';

/**
 * N rollouts of the A simulated agents over the T future steps of a scenario. Arrays are indexed
 * `((n * A) + a) * T + t` for rollout n, agent a (row `agentRows[a]` of `scenario.agents`) and step
 * `currentStep + 1 + t`.
 */
export interface ScenarioRollouts {
  scenarioId: string;
  numRollouts: number;
  /** Rows into scenario.agents of the simulated agents: exactly those valid at the current step. */
  agentRows: Int32Array;
  /** T: the steps currentStep+1 … currentStep+T of the scenario (80 for WOMD). */
  numFutureSteps: number;
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  yaw: Float32Array;
}

/** The WOSAC score of one scenario: the meta-metric and its ten likelihood components. */
export interface WosacScenarioScore {
  scenarioId: string;
  /** Σ weight × component over the components with data (no rescaling when one has none). */
  metaMetric: number;
  /** Each component's likelihood in [0, 1]; NaN when the scenario gives it no valid sample. */
  components: Record<WosacComponent, number>;
  /** Number of agents scored (the SDC + tracks_to_predict, or every simulated agent). */
  scoredAgents: number;
}

/** Rows of the agents the Sim Agents challenge simulates: every agent valid at the current step. */
export function simulatedAgentRows(s: Scenario): Int32Array {
  const rows: number[] = [];
  for (let a = 0; a < s.agents.ids.length; a++)
    if (s.agents.valid[a * s.numSteps + s.currentStep]) rows.push(a);
  return Int32Array.from(rows);
}

/** Allocate rollouts of every simulated agent (zeros), to be filled by a simulator. */
export function allocateScenarioRollouts(s: Scenario, numRollouts: number): ScenarioRollouts {
  const agentRows = simulatedAgentRows(s);
  const numFutureSteps = s.numSteps - s.currentStep - 1;
  const n = numRollouts * agentRows.length * numFutureSteps;
  return {
    scenarioId: s.id,
    numRollouts,
    agentRows,
    numFutureSteps,
    x: new Float32Array(n),
    y: new Float32Array(n),
    z: new Float32Array(n),
    yaw: new Float32Array(n),
  };
}

/** `numRollouts` identical copies of the logged future (log replay; invalid log states copied as is). */
export function logReplayRollouts(s: Scenario, numRollouts: number): ScenarioRollouts {
  const r = allocateScenarioRollouts(s, numRollouts);
  const A = r.agentRows.length;
  const T = r.numFutureSteps;
  const a0 = s.agents;
  for (let n = 0; n < numRollouts; n++)
    for (let a = 0; a < A; a++) {
      const src = r.agentRows[a] * s.numSteps + s.currentStep + 1;
      const dst = (n * A + a) * T;
      r.x.set(a0.x.subarray(src, src + T), dst);
      r.y.set(a0.y.subarray(src, src + T), dst);
      r.z.set(a0.z.subarray(src, src + T), dst);
      r.yaw.set(a0.yaw.subarray(src, src + T), dst);
    }
  return r;
}

/**
 * Check rollouts against their scenario as the official submission check does: the same scenario,
 * every agent valid at the current step present once and no other, the whole future, finite values.
 * Throws an InputError naming `file` and the first problem.
 */
export function validateScenarioRollouts(s: Scenario, r: ScenarioRollouts, file: string): void {
  const bad = (problem: string): never => {
    throw new InputError(file, `scenario '${s.id}': ${problem}`);
  };
  if (r.scenarioId !== s.id) bad(`rollouts are for scenario '${r.scenarioId}'`);
  if (!Number.isInteger(r.numRollouts) || r.numRollouts < 1)
    bad(`numRollouts must be a positive integer (got ${r.numRollouts})`);
  const T = s.numSteps - s.currentStep - 1;
  if (r.numFutureSteps !== T)
    bad(`rollouts have ${r.numFutureSteps} future steps, the scenario has ${T} after step ${s.currentStep}`);
  const nAgents = s.agents.ids.length;
  const seen = new Set<number>();
  for (const row of r.agentRows) {
    if (!Number.isInteger(row) || row < 0 || row >= nAgents)
      bad(`agent row ${row} is out of range (the scenario has ${nAgents} agents)`);
    const id = s.agents.ids[row];
    if (seen.has(row)) bad(`agent id ${id} appears twice`);
    seen.add(row);
    if (!s.agents.valid[row * s.numSteps + s.currentStep])
      bad(`agent id ${id} is not a sim agent (not valid at the current step ${s.currentStep})`);
  }
  const missing = Array.from(simulatedAgentRows(s)).filter((row) => !seen.has(row));
  if (missing.length)
    bad(
      `${missing.length} agent(s) valid at the current step are not simulated (ids ${missing
        .slice(0, 5)
        .map((row) => s.agents.ids[row])
        .join(', ')}${missing.length > 5 ? ', …' : ''})`,
    );
  const n = r.numRollouts * r.agentRows.length * T;
  for (const [name, arr] of [
    ['x', r.x],
    ['y', r.y],
    ['z', r.z],
    ['yaw', r.yaw],
  ] as const) {
    if (arr.length !== n)
      bad(
        `${name} has ${arr.length} values, expected ${n} (${r.numRollouts} rollouts × ${r.agentRows.length} agents × ${T} steps)`,
      );
    for (let i = 0; i < n; i++)
      if (!Number.isFinite(arr[i])) {
        const t = i % T;
        const a = Math.floor(i / T) % r.agentRows.length;
        bad(
          `${name} is not finite at rollout ${Math.floor(i / T / r.agentRows.length)}, agent id ${s.agents.ids[r.agentRows[a]]}, future step ${t}`,
        );
      }
  }
}
