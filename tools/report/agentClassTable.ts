// The learned-agents table per agent class: moving vehicles, parked (stationary) vehicles, pedestrians and
// cyclists — collision, off-road and progress of each class, beside the overall row with the WOSAC 2025 meta-metric.
// Run: node --import tsx tools/report/agentClassTable.ts --towns 301-310 [--rollouts N] [--metric-rollouts M]
// [--agent LABEL=NAME|model.onnx|log-expert …] [--intentions straightest|head|prior|log] [--temperature T] [--json file]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { checkReportFlags } from './reportFlags.ts';
import { agentByName } from '../../simulation/agents/registry.ts';
import { mapIndex } from '../../simulation/map/mapIndex.ts';
import { collidedAgents } from '../../simulation/metrics/collision.ts';
import { offroadAgents } from '../../simulation/metrics/offroad.ts';
import { progressRatio } from '../../simulation/metrics/progress.ts';
import { evaluatedAgents, meanMetrics, scenarioMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { type Trajectories, trajectoryFeatures } from '../../simulation/metrics/trajectoryFeatures.ts';
import { meanWosacScores, scoreScenarioRollouts } from '../../simulation/metrics/wosac/score.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { type LogExpertConfig, LogExpertPolicy, withLogRoutes } from '../../simulation/training/logExpert.ts';
import { intentionScenarios, type ScenarioFor } from '../../simulation/intention/intentionMode.ts';

/** The agent name of DAgger's log-conditioned expert (scored on the scenarios with their log routes). */
export const LOG_EXPERT_AGENT = 'log-expert';

export const AGENT_CLASSES = ['moving vehicles', 'parked vehicles', 'pedestrians', 'cyclists'] as const;
export type AgentClass = (typeof AGENT_CLASSES)[number];

/** A vehicle whose whole log never moves faster than this is parked (stationary), m/s. */
export const PARKED_SPEED_MPS = 0.3;

/** Class of agent row a by its type and its logged track (−1: other objects, in no class). */
export function agentClass(s: Scenario, a: number): number {
  const t = s.agents.types[a];
  if (t === 'pedestrian') return 2;
  if (t === 'cyclist') return 3;
  if (t !== 'vehicle') return -1;
  const T = s.numSteps;
  for (let k = a * T; k < (a + 1) * T; k++)
    if (s.agents.valid[k] && Math.hypot(s.agents.vx[k], s.agents.vy[k]) > PARKED_SPEED_MPS) return 0;
  return 1;
}

/** Sums per class over rollouts: evaluated agents, collided, off-road (vehicles), progress. */
export interface ClassCounts {
  agents: number[];
  collided: number[];
  offroad: number[];
  offroadRated: number[];
  progressSum: number[];
  progressRated: number[];
}

export function emptyClassCounts(): ClassCounts {
  const z = () => AGENT_CLASSES.map(() => 0);
  return {
    agents: z(),
    collided: z(),
    offroad: z(),
    offroadRated: z(),
    progressSum: z(),
    progressRated: z(),
  };
}

/** Add one rollout of scenario s (its simulated tracks) to the class counts. */
export function addClassCounts(c: ClassCounts, s: Scenario, sim: Trajectories): void {
  const T = s.numSteps;
  const from = s.currentStep + 1;
  const evaluated = evaluatedAgents(s);
  const m = mapIndex(s.map);
  const f = trajectoryFeatures(s, sim, evaluated, from, T, m);
  const isVehicle = Uint8Array.from(s.agents.types, (t) => (t === 'vehicle' ? 1 : 0));
  const coll = collidedAgents(f, T, evaluated, from, T);
  const off = offroadAgents(f, isVehicle, T, evaluated, from, T, m.field.source !== 'none');
  const prog = progressRatio(s, sim, evaluated, from, T);
  for (let a = 0; a < evaluated.length; a++) {
    if (!evaluated[a]) continue;
    const k = agentClass(s, a);
    if (k < 0) continue;
    c.agents[k]++;
    c.collided[k] += coll[a];
    if (!Number.isNaN(off[a])) {
      c.offroad[k] += off[a];
      c.offroadRated[k]++;
    }
    if (!Number.isNaN(prog[a])) {
      c.progressSum[k] += prog[a];
      c.progressRated[k]++;
    }
  }
}

export interface ClassTableRow {
  agent: string;
  collision_rate: number;
  offroad_rate: number;
  progress: number;
  realism_meta: number;
  classes: Record<
    AgentClass,
    { agents: number; collision_rate: number; offroad_rate: number; progress: number }
  >;
}

/** One agent on the scenarios: N seeded rollouts, the overall rates and WOSAC, and the per-class rates. */
export function classTableRow(
  label: string,
  agent: string,
  scenarios: readonly Scenario[],
  N: number,
  metricRollouts: number,
  seed = 0,
  scenarioFor?: ScenarioFor,
  temperature?: number,
  expertCfg: Partial<LogExpertConfig> = {},
): ClassTableRow {
  // The expert is the ceiling DAgger imitates: it follows each logged agent's own lanes.
  const expert = agent === LOG_EXPERT_AGENT;
  const make = expert ? () => new LogExpertPolicy(expertCfg) : agentByName(agent);
  if (!make) throw new InputError(agent, `unknown agent (or ${LOG_EXPERT_AGENT})`);
  const stochastic = agent !== 'replay';
  const M = Math.min(N, metricRollouts);
  const played = expert ? scenarios.map((s) => withLogRoutes(s)) : scenarios;
  const res = rolloutScenarios(played, () => (stochastic ? make({ seed, temperature }) : make()), {
    rollouts: N,
    replicate: !stochastic,
    metricRollouts: M,
    keepAllTracks: true,
    scenarioFor,
  });
  // Scored on the scenarios as given: progress runs along the logged path there, not the log routes.
  const m = expert
    ? meanMetrics(
        res.flatMap((r, i) =>
          Array.from({ length: M }, (_, n) => scenarioMetrics(scenarios[i], r.allTracks?.[n] ?? r.tracks)),
        ),
      )
    : meanMetrics(res.map((r) => r.metrics));
  const w = meanWosacScores(res.map((r, i) => scoreScenarioRollouts(scenarios[i], r.samples)));
  const c = emptyClassCounts();
  for (const [i, r] of res.entries())
    for (let n = 0; n < M; n++) addClassCounts(c, scenarios[i], r.allTracks?.[n] ?? r.tracks);
  const ratio = (a: number, b: number) => (b > 0 ? a / b : NaN);
  const classes = Object.fromEntries(
    AGENT_CLASSES.map((name, k) => [
      name,
      {
        agents: c.agents[k] / M,
        collision_rate: ratio(c.collided[k], c.agents[k]),
        offroad_rate: ratio(c.offroad[k], c.offroadRated[k]),
        progress: ratio(c.progressSum[k], c.progressRated[k]),
      },
    ]),
  ) as ClassTableRow['classes'];
  return {
    agent: label,
    collision_rate: m.collision_rate,
    offroad_rate: m.offroad_rate,
    progress: m.progress,
    realism_meta: w.metaMetric,
    classes,
  };
}

/** Markdown: the overall table, then one table per class. */
export function markdownClassTable(rows: readonly ClassTableRow[]): string {
  const pct = (v: number) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : 'n/a');
  const f = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
  const out = [
    '| agent | collision | off-road | progress | WOSAC meta |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.agent} | ${pct(r.collision_rate)} | ${pct(r.offroad_rate)} | ${f(r.progress, 2)} | ${f(r.realism_meta, 3)} |`,
    ),
    '',
    '| agent | ' + AGENT_CLASSES.map((k) => `${k}: collision / off-road / progress`).join(' | ') + ' |',
    '|---|' + AGENT_CLASSES.map(() => '---:').join('|') + '|',
    ...rows.map(
      (r) =>
        `| ${r.agent} | ` +
        AGENT_CLASSES.map((k) => {
          const c = r.classes[k];
          return `${pct(c.collision_rate)} / ${pct(c.offroad_rate)} / ${f(c.progress, 2)}`;
        }).join(' | ') +
        ' |',
    ),
  ];
  return out.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkReportFlags(
    process.argv,
    'usage: node --import tsx tools/report/agentClassTable.ts [--towns 301-310] [--rollouts N] [--metric-rollouts M]\n' +
      '  [--agent LABEL=NAME|model.onnx|log-expert …] [--intentions straightest|head|prior|log] [--temperature T]\n' +
      '  [--expert-catch-up S] [--expert-leader-on-route] [--expert-plan-frame-extents] [--expert-yield-horizon S]\n' +
      '  [--json file]',
    [
      '--towns',
      '--rollouts',
      '--metric-rollouts',
      '--agent',
      '--intentions',
      '--temperature',
      '--expert-catch-up',
      '--expert-yield-horizon',
      '--json',
    ],
    ['--expert-leader-on-route', '--expert-plan-frame-extents'],
  );
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const whole = (name: string, fallback: number) => {
    const v = Number(arg(name) ?? fallback);
    if (!Number.isInteger(v) || v < 1) throw new InputError(name, `'${arg(name)}' is not a whole number ≥ 1`);
    return v;
  };
  const spec = arg('--towns') ?? '301-303';
  const scenarios = scenariosFromSpec(`town:${spec}`, '--towns');
  const N = whole('--rollouts', 32);
  const M = whole('--metric-rollouts', 8);
  const agents: [string, string][] = [];
  process.argv.forEach((a, i) => {
    if (a !== '--agent') return;
    const [label, name] = (process.argv[i + 1] ?? '').split('=');
    if (!label || !name) throw new InputError('--agent', `'${process.argv[i + 1]}' is not LABEL=NAME`);
    agents.push([label, name]);
  });
  if (!agents.length) agents.push(['replay', 'replay'], ['IDM', 'idm'], ['learned', 'models/agent.onnx']);
  const intentions = arg('--intentions') ?? 'straightest';
  const tArg = arg('--temperature');
  const temperature = tArg === undefined ? undefined : Number(tArg);
  if (temperature !== undefined && !(temperature > 0))
    throw new InputError('--temperature', `'${tArg}' is not a number > 0`);
  // Settings of the log expert (`log-expert` rows): LogExpertConfig.catchUpS, .yieldHorizonS, .leaderOnRoute,
  // .planFrameExtents.
  const expertCfg: Partial<LogExpertConfig> = {};
  for (const [flag, key] of [
    ['--expert-catch-up', 'catchUpS'],
    ['--expert-yield-horizon', 'yieldHorizonS'],
  ] as const) {
    const v = arg(flag);
    if (v === undefined) continue;
    expertCfg[key] = Number(v);
    if (!(expertCfg[key] >= 0)) throw new InputError(flag, `'${v}' is not a number ≥ 0`);
  }
  if (process.argv.includes('--expert-leader-on-route')) expertCfg.leaderOnRoute = true;
  if (process.argv.includes('--expert-plan-frame-extents')) expertCfg.planFrameExtents = true;
  const scenarioFor = await intentionScenarios(intentions, scenarios);
  const rows: ClassTableRow[] = [];
  for (const [label, name] of agents) {
    const t0 = performance.now();
    rows.push(classTableRow(label, name, scenarios, N, M, 0, scenarioFor, temperature, expertCfg));
    process.stdout.write(`${label}: ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  process.stdout.write(
    `\ntowns ${spec}, N = ${N} seeded rollouts (WOSAC over all, rates over the first ${M}), seed 0, intentions ${intentions}${temperature !== undefined ? `, learned agents at temperature ${temperature}` : ''}\n\n${markdownClassTable(rows)}\n`,
  );
  const json = arg('--json');
  if (json)
    writeFileAtomicSync(
      json,
      JSON.stringify(
        { towns: spec, rollouts: N, metricRollouts: M, intentions, temperature, rows },
        null,
        1,
      ) + '\n',
    );
}
