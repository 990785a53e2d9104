// The Sim Agents realism table: each agent's N seeded rollouts on a set of scenarios scored with the
// official WOSAC 2025 metric (meta-metric and its ten likelihoods), as terminal text or markdown.
import { agentByName, STOCHASTIC_AGENTS } from '../../simulation/agents/registry.ts';
import { WOSAC_COMPONENTS, type WosacComponent } from '../../simulation/metrics/wosac/config.ts';
import type { WosacScenarioScore } from '../../simulation/metrics/wosac/rollouts.ts';
import { meanWosacScores, scoreScenarioRollouts } from '../../simulation/metrics/wosac/score.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { Scenario } from '../../simulation/scenario.ts';

/** Short column names of the components, in the official order. */
export const WOSAC_COLUMNS: Record<WosacComponent, string> = {
  linearSpeed: 'speed',
  linearAcceleration: 'accel',
  angularSpeed: 'ang speed',
  angularAcceleration: 'ang accel',
  distanceToNearestObject: 'nearest',
  collisionIndication: 'collision',
  timeToCollision: 'TTC',
  distanceToRoadEdge: 'road edge',
  offroadIndication: 'off-road',
  trafficLightViolation: 'light',
};

/** One agent's WOSAC scores over the scenarios (means over scenarios, as the official aggregate). */
export interface WosacRow {
  agent: string;
  rollouts: number;
  scenarios: number;
  /** Scored agents per scenario (SDC + tracks_to_predict, or every controlled agent). */
  scoredAgents: number;
  metaMetric: number;
  components: Record<WosacComponent, number>;
}

/** The WOSAC scores of N rollouts of a policy (stochastic form with `seed`, else deterministic copies). */
export function wosacScores(
  scenarios: readonly Scenario[],
  agent: string,
  rollouts: number,
  seed: number,
): WosacScenarioScore[] {
  const make = agentByName(agent);
  if (!make) throw new Error(`unknown agent '${agent}'`);
  const stochastic = rollouts > 1 && STOCHASTIC_AGENTS.has(agent);
  const results = rolloutScenarios(scenarios, () => (stochastic ? make({ seed }) : make()), {
    rollouts,
    replicate: !stochastic,
    metricRollouts: 1,
  });
  return results.map((r) => scoreScenarioRollouts(r.scenario, r.samples));
}

/** A row of the table from per-scenario scores. */
export function wosacRow(agent: string, rollouts: number, scores: readonly WosacScenarioScore[]): WosacRow {
  const mean = meanWosacScores(scores);
  const scored = scores.reduce((p, s) => p + s.scoredAgents, 0) / Math.max(1, scores.length);
  return {
    agent,
    rollouts,
    scenarios: scores.length,
    scoredAgents: scored,
    metaMetric: mean.metaMetric,
    components: mean.components,
  };
}

function cells(rows: readonly WosacRow[], first: string): string[][] {
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
  return [
    [first, 'meta', ...WOSAC_COMPONENTS.map((c) => WOSAC_COLUMNS[c])],
    ...rows.map((r) => [r.agent, f(r.metaMetric), ...WOSAC_COMPONENTS.map((c) => f(r.components[c]))]),
  ];
}

export function formatWosacTable(rows: readonly WosacRow[], first = 'agent'): string {
  const c = cells(rows, first);
  const widths = c[0].map((_, j) => Math.max(...c.map((r) => r[j].length)));
  return c
    .map((r) => r.map((v, j) => (j === 0 ? v.padEnd(widths[j]) : v.padStart(widths[j]))).join('  '))
    .join('\n');
}

export function markdownWosacTable(rows: readonly WosacRow[], first = 'agent'): string {
  const c = cells(rows, first);
  const head = `| ${c[0].join(' | ')} |\n|${c[0].map((_, j) => (j === 0 ? '---' : '---:')).join('|')}|`;
  return [head, ...c.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
