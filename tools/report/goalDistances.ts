// How far away the goals the agents observe lie, in the scenarios a model trains or is scored on: per scenario,
// the moving agents with a goal (their log covers ≥ 2 m from the current step on, as progress scores them) and
// their distance to it at the current step and at their log's last valid step.
// Run: node --import tsx tools/report/goalDistances.ts [--scenarios town:1-20|<path>,…] [--longtail kind:count,…]
import { median } from '../../core/stats.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenarios, prepareScenarioSources } from '../../simulation/scenarioSources.ts';
import { longtailFromSpec, scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { checkReportFlags, flagValue, isMain } from './reportFlags.ts';

export interface GoalDistances {
  scenario: string;
  agents: number;
  /** Moving agents with a goal; the ego's index if it has a goal, else −1. */
  withGoal: number;
  ego: number;
  /** Over the moving agents with a goal: the least and median distance to it, at the current step and at the log's end, m. */
  nowMinM: number;
  nowMedianM: number;
  endMinM: number;
  endMedianM: number;
}

/** The goal distances of one scenario's moving agents (NaN figures when none has a goal). */
export function goalDistances(s: Scenario, minMoveM = 2): GoalDistances {
  const T = s.numSteps;
  const now: number[] = [];
  const end: number[] = [];
  for (let a = 0; a < s.agents.ids.length; a++) {
    if (!Number.isFinite(s.goalX[a]) || !Number.isFinite(s.goalY[a])) continue;
    const k0 = a * T + s.currentStep;
    if (!s.agents.valid[k0]) continue;
    let last = -1;
    for (let t = T - 1; t > s.currentStep && last < 0; t--) if (s.agents.valid[a * T + t]) last = t;
    if (last < 0) continue;
    const k1 = a * T + last;
    if (Math.hypot(s.agents.x[k1] - s.agents.x[k0], s.agents.y[k1] - s.agents.y[k0]) < minMoveM) continue;
    const at = (k: number) => Math.hypot(s.goalX[a] - s.agents.x[k], s.goalY[a] - s.agents.y[k]);
    now.push(at(k0));
    end.push(at(k1));
  }
  const min = (v: number[]) => (v.length ? Math.min(...v) : NaN);
  const med = (v: number[]) => (v.length ? median(v) : NaN);
  return {
    scenario: s.id,
    agents: s.agents.ids.length,
    withGoal: end.length,
    ego: Number.isFinite(s.goalX[s.egoIndex] ?? NaN) ? s.egoIndex : -1,
    nowMinM: min(now),
    nowMedianM: med(now),
    endMinM: min(end),
    endMedianM: med(end),
  };
}

if (isMain(import.meta.url)) {
  const usage =
    'usage: node --import tsx tools/report/goalDistances.ts [--scenarios town:1-20|<path>,…] [--longtail kind:count,…]\n' +
    'Per scenario: moving agents (≥ 2 m logged from the current step) with a goal, and the least / median\n' +
    'distance to it now and at the log’s end (m).';
  checkReportFlags(process.argv, usage, ['--scenarios', '--longtail']);
  const spec = flagValue('--scenarios') ?? 'town:1-20';
  const scenarios: Scenario[] = [];
  // Long-tail scenarios as train-agents --longtail draws them (seed 1).
  const longtail = flagValue('--longtail');
  if (longtail) scenarios.push(...longtailFromSpec(longtail, 1));
  for (const part of spec.split(',').filter(Boolean)) {
    if (part.startsWith('town:')) scenarios.push(...scenariosFromSpec(part, '--scenarios'));
    else {
      await prepareScenarioSources(part);
      scenarios.push(...loadScenarios(part).map((l) => l.scenario));
    }
  }
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');
  process.stdout.write(
    '| scenario | agents | moving, with a goal | now: least / median (m) | log end: least / median (m) |\n|---|---:|---:|---:|---:|\n',
  );
  for (const s of scenarios) {
    const g = goalDistances(s);
    process.stdout.write(
      `| ${g.scenario} | ${g.agents} | ${g.withGoal}${g.ego >= 0 && g.withGoal === 1 ? ' (the ego)' : ''} | ` +
        `${f(g.nowMinM)} / ${f(g.nowMedianM)} | ${f(g.endMinM)} / ${f(g.endMedianM)} |\n`,
    );
  }
}
