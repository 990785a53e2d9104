// Where one traffic agent gains or loses Sim Agents realism (WOSAC 2025) against another: the per-agent
// log-likelihood terms of every component, summed by agent type and by whether the log moves the agent.
// Run: node --import tsx tools/report/wosacByAgentType.ts --scenarios <path> [--agent learned] [--against idm]
// [--rollouts 32] [--seed 0]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../core/errors.ts';
import { agentByName, STOCHASTIC_AGENTS } from '../../simulation/agents/registry.ts';
import { WOSAC_COMPONENTS, type WosacComponent } from '../../simulation/metrics/wosac/config.ts';
import { type AgentLikelihoods, scoreScenarioRollouts } from '../../simulation/metrics/wosac/score.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenariosAsync } from '../../simulation/scenarioSources.ts';
import { checkReportFlags } from './reportFlags.ts';

/** A logged agent that moves at least this far from its current position over the future "moves", metres. */
export const MOVES_M = 1;

/** Per scored agent (keyed scenario id / agent id): its group and its terms under one traffic agent. */
export interface AgentTerms {
  group: string;
  sum: Record<WosacComponent, number>;
  terms: Record<WosacComponent, number>;
  logCollided: boolean;
  simCollided: number;
}

/** The group of agent row a: its type, and whether the log moves it ≥ MOVES_M after the current step. */
export function agentGroup(s: Scenario, a: number): string {
  const T = s.numSteps;
  const ag = s.agents;
  const k0 = a * T + s.currentStep;
  let moved = 0;
  for (let t = s.currentStep + 1; t < T; t++) {
    const k = a * T + t;
    if (ag.valid[k]) moved = Math.max(moved, Math.hypot(ag.x[k] - ag.x[k0], ag.y[k] - ag.y[k0]));
  }
  return `${ag.types[a]}, ${moved >= MOVES_M ? 'moving' : 'standing'}`;
}

/** Every scored agent's WOSAC terms under `agent` (N seeded rollouts of each scenario). */
export function agentTerms(
  scenarios: readonly Scenario[],
  agent: string,
  rollouts: number,
  seed: number,
): Map<string, AgentTerms> {
  const make = agentByName(agent);
  if (!make) throw new InputError('--agent', `unknown agent '${agent}'`);
  const stochastic = rollouts > 1 && (STOCHASTIC_AGENTS.has(agent) || agent.endsWith('.onnx'));
  const out = new Map<string, AgentTerms>();
  const results = rolloutScenarios(scenarios, () => (stochastic ? make({ seed }) : make()), {
    rollouts,
    replicate: !stochastic,
    metricRollouts: 1,
  });
  for (const r of results) {
    const s = r.scenario;
    scoreScenarioRollouts(s, r.samples, undefined, undefined, (t: AgentLikelihoods) => {
      t.rows.forEach((row, e) => {
        const sum = {} as Record<WosacComponent, number>;
        const terms = {} as Record<WosacComponent, number>;
        for (const c of WOSAC_COMPONENTS) {
          sum[c] = t.sum[c][e];
          terms[c] = t.terms[c][e];
        }
        out.set(`${s.id}/${s.agents.ids[row]}`, {
          group: agentGroup(s, row),
          sum,
          terms,
          logCollided: t.logCollided[e] === 1,
          simCollided: t.simCollided[e],
        });
      });
    });
  }
  return out;
}

/** One row per group: agents, then per component the mean difference (agent − against) per term, in nats. */
export interface GroupRow {
  group: string;
  agents: number;
  /** Mean log-likelihood difference per term; NaN where the group has no terms. */
  perTerm: Record<WosacComponent, number>;
  /** Summed difference over the group's terms (what the group adds to the scenarios' means, before the exp). */
  total: Record<WosacComponent, number>;
}

export function compareByGroup(a: Map<string, AgentTerms>, b: Map<string, AgentTerms>): GroupRow[] {
  const rows = new Map<string, GroupRow & { n: Record<WosacComponent, number> }>();
  for (const [key, ta] of a) {
    const tb = b.get(key);
    if (!tb) continue;
    let row = rows.get(ta.group);
    if (!row) {
      const zero = () =>
        Object.fromEntries(WOSAC_COMPONENTS.map((c) => [c, 0])) as Record<WosacComponent, number>;
      row = { group: ta.group, agents: 0, perTerm: zero(), total: zero(), n: zero() };
      rows.set(ta.group, row);
    }
    row.agents++;
    for (const c of WOSAC_COMPONENTS) {
      row.total[c] += ta.sum[c] - tb.sum[c];
      row.n[c] += ta.terms[c];
    }
  }
  return [...rows.values()]
    .map(({ n, ...r }) => ({
      ...r,
      perTerm: Object.fromEntries(
        WOSAC_COMPONENTS.map((c) => [c, n[c] > 0 ? r.total[c] / n[c] : NaN]),
      ) as Record<WosacComponent, number>,
    }))
    .sort((p, q) => p.group.localeCompare(q.group));
}

export function markdownGroupRows(rows: readonly GroupRow[]): string {
  const cols = WOSAC_COMPONENTS.filter((c) => rows.some((r) => !Number.isNaN(r.perTerm[c])));
  const head = `| group | agents | ${cols.join(' | ')} |\n|---|---:|${cols.map(() => '---:').join('|')}|`;
  const body = rows.map(
    (r) =>
      `| ${r.group} | ${r.agents} | ${cols.map((c) => (Number.isNaN(r.perTerm[c]) ? '–' : r.perTerm[c].toFixed(3))).join(' | ')} |`,
  );
  return [head, ...body].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkReportFlags(
    process.argv,
    'usage: node --import tsx tools/report/wosacByAgentType.ts --scenarios <path> [--agent learned|idm|model.onnx]\n' +
      '  [--against idm] [--rollouts 32] [--seed 0]',
    ['--scenarios', '--agent', '--against', '--rollouts', '--seed'],
  );
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const input = arg('--scenarios');
  if (!input) throw new InputError('--scenarios', 'is required (a scenario file or folder)');
  const agent = arg('--agent') ?? 'learned';
  const against = arg('--against') ?? 'idm';
  const rollouts = Number(arg('--rollouts') ?? 32);
  const seed = Number(arg('--seed') ?? 0);
  if (!Number.isInteger(rollouts) || rollouts < 1)
    throw new InputError('--rollouts', `'${arg('--rollouts')}' is not a whole number ≥ 1`);
  const scenarios = (await loadScenariosAsync(input)).map((l) => l.scenario);
  const rows = compareByGroup(
    agentTerms(scenarios, agent, rollouts, seed),
    agentTerms(scenarios, against, rollouts, seed),
  );
  process.stdout.write(
    `${agent} against ${against} on ${scenarios.length} scenario(s), N = ${rollouts}: mean log-likelihood difference per term (nats; > 0: ${agent} closer to the log)\n\n${markdownGroupRows(rows)}\n`,
  );
}
