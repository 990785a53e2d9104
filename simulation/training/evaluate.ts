// Closed-loop scores of a traffic agent on held-back scenarios: collision, off-road, red-light rates,
// progress, ADE/FDE to the log (means over rollouts), as the RTR evaluation table reports them.
import type { Policy } from '../agents/policy.ts';
import { meanMetrics, type ScenarioMetrics } from '../metrics/scenarioMetrics.ts';
import { rolloutScenarios } from '../rollout.ts';
import type { Scenario } from '../scenario.ts';

/** Every agent present at the current step is driven (the Sim Agents setting); returns copies. */
export function controlAllPresent(scenarios: readonly Scenario[]): Scenario[] {
  return scenarios.map((s) => ({
    ...s,
    controlled: Uint8Array.from(s.controlled, (_, a) => s.agents.valid[a * s.numSteps + s.currentStep]),
  }));
}

export type MeanScores = Omit<ScenarioMetrics, 'scenario'>;

/** Mean closed-loop metrics of a policy over scenarios (rollouts > 1: means over the rollouts). */
export function closedLoopScores(
  scenarios: readonly Scenario[],
  makePolicy: () => Policy,
  rollouts = 1,
): MeanScores {
  const res = rolloutScenarios(scenarios, makePolicy, { rollouts, metricRollouts: rollouts });
  return meanMetrics(res.map((r) => r.metrics));
}
