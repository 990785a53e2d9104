// The learned-agents evaluation table (RTR, Zhang et al. CoRL 2023): replay, constant velocity, IDM and
// the learned policies (BC, PPO, RTR, EMA-PG) on held-back nominal and long-tail scenarios — infraction
// rates, progress, ADE/FDE and the official WOSAC 2025 meta-metric over N seeded stochastic rollouts.
// Run: npm run agents-table -- [--rollouts N] [--metric-rollouts M] [--towns K] [--longtail-count C] [--longtail-seed S]
// [--real-count R] [--agent LABEL=model.onnx …] [--rows LABEL,…] [--sets WORD,…] [--json file]
// `--sets real`: every real scenario of ../shared/data/real/motion, one table per source (WOMD, nuScenes,
// AV2); the row `folds:<model.json>` scores each scenario with a fold model that did not train on it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { checkReportFlags, flagValue } from './reportFlags.ts';
import { createProgress } from '../../core/progress.ts';
import { agentByName } from '../../simulation/agents/registry.ts';
import { generateLongtail, LONGTAIL_KINDS } from '../../simulation/longtail/generate.ts';
import { meanMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { meanWosacScores, scoreScenarioRollouts } from '../../simulation/metrics/wosac/score.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenarios, prepareScenarioSources } from '../../simulation/scenarioSources.ts';
import { realData } from '../../core/paths.ts';
import { prepareRealMotion, readRealFolds, realScenariosBySource } from './realFolds.ts';
import { type ResultSet, resultSets } from './wosacResults.ts';

/** The real scenario sets by source (folders of ../shared/data/real/motion), in the table's order. */
export const REAL_SETS: { name: string; path: string[]; source?: string }[] = [
  { name: 'WOMD JSON (GPUDrive/Nocturne)', path: ['motion', 'womd-json'] },
  { name: 'nuScenes (ScenarioNet)', path: ['motion', 'scenarionet'], source: 'scenarionet:nuscenes' },
  { name: 'WOMD 20 s (ScenarioNet)', path: ['motion', 'scenarionet', 'overpass'] },
  { name: 'AV2 motion forecasting', path: ['motion', 'av2-motion'] },
];

/** Scenarios per real set in `npm run agents-table` (--real-count): one keeps the real sets to ~10 min. */
export const REAL_COUNT = 1;

/** Read ahead what the real sets need (AV2 motion Parquet is read asynchronously). */
export async function prepareRealSets(): Promise<void> {
  for (const r of REAL_SETS)
    if (fs.existsSync(realData(...r.path))) await prepareScenarioSources(realData(...r.path));
}

/** The real sets whose data is present, each its first `count` scenarios (0: none). */
export function realSets(count: number): ResultSet[] {
  if (count <= 0) return [];
  return REAL_SETS.flatMap((r) => {
    const dir = realData(...r.path);
    if (!fs.existsSync(dir)) return [];
    const scenarios = loadScenarios(dir)
      .map((l) => l.scenario)
      .filter((s) => r.source === undefined || s.source === r.source)
      .slice(0, count);
    return scenarios.length ? [{ name: `${r.name}: ${scenarios.length} scenario(s)`, scenarios }] : [];
  });
}

/** Name prefix of the per-source real sets (`--sets real`). */
export const REAL_SET_PREFIX = 'real';

/** Every real scenario of ../shared/data/real/motion (or of one fold), one set per source (WOMD, nuScenes, AV2). */
export function realSourceSets(fold?: string): ResultSet[] {
  let keep = (_: Scenario) => true;
  if (fold !== undefined) {
    const entries = readRealFolds().folds[fold];
    if (!entries) throw new InputError('--real-fold', `no fold '${fold}' in models/real-folds.json`);
    const ids = new Set(entries.map((e) => e.id));
    keep = (s) => ids.has(s.id);
  }
  return realScenariosBySource()
    .map(({ source, scenarios }) => ({ source, scenarios: scenarios.filter(keep) }))
    .filter(({ scenarios }) => scenarios.length > 0)
    .map(({ source, scenarios }) => ({
      name: `${REAL_SET_PREFIX} ${source}${fold === undefined ? '' : ` fold ${fold}`}: ${scenarios.length} scenario(s) (${scenarios.map((s) => s.id.slice(0, 8)).join(', ')})`,
      scenarios,
    }));
}

/** Long-tail seed of the table: training draws its long-tail scenarios from seed 1 (train-agents --seed). */
export const HELD_OUT_LONGTAIL_SEED = 1001;

/**
 * A row scored by fold models (`folds:<model.json>`): the json's `realFolds.models` lists each model with
 * the fold it trained on (models/real-folds.json); each scenario is rolled out by a model that did not train
 * on it, and scenarios every model trained on are left out of the row.
 */
export const FOLDS_AGENT_PREFIX = 'folds:';

/** The row of the shipped learned agent (`--agents learned`, models/agent.onnx: RTR's full recipe). */
export const SHIPPED_ROW = 'RTR full (shipped)';

/** Rows of the table: label → agent name of the registry or a model file (missing files are skipped). */
export const TABLE_AGENTS: Record<string, string> = {
  replay: 'replay',
  'constant velocity': 'cv',
  IDM: 'idm',
  BC: 'models/agent-bc.onnx',
  PPO: 'models/agent-ppo.onnx',
  RTR: 'models/agent-rtr.onnx',
  [SHIPPED_ROW]: 'models/agent.onnx',
  DAgger: 'models/agent-dagger.onnx',
  'RTR (λ ≤ 10)': 'models/agent-rtr-lambda10.onnx',
  'EMA-PG': 'models/agent-emapg.onnx',
};

export interface AgentsTableRow {
  agent: string;
  /** Scenarios the row was scored on (a held-out-fold row: those some fold model did not train on). */
  scenarios: number;
  collision_rate: number;
  offroad_rate: number;
  red_light_rate: number;
  progress: number;
  ade_m: number;
  fde_m: number;
  /** The Sim Agents (WOSAC 2025) meta-metric: the one realism number. */
  wosac_meta_metric: number;
  /** Per scenario: its id and the same figures. */
  per_scenario: {
    id: string;
    collision_rate: number;
    offroad_rate: number;
    progress: number;
    wosac_meta_metric: number;
  }[];
}

export interface AgentsTableSet {
  name: string;
  scenarios: number;
  nominal: boolean;
  rows: AgentsTableRow[];
}

export interface AgentsTableOptions {
  /** Seeded rollouts per scenario: the WOSAC meta-metric uses all of them. */
  rollouts: number;
  /** The rates, progress and ADE/FDE are means over the first this many (~80 ms of metrics each). */
  metricRollouts: number;
  towns: number;
  longtailCount: number;
  /** Seed of the long-tail set: the held-back 1001 for the table, another for model selection. */
  longtailSeed: number;
  /**
   * Scenarios of each real set (WOMD JSON, nuScenes, WOMD 20 s, AV2 motion); 0 leaves them out (the
   * library default, so callers that do not read AV2 Parquet ahead need not); the script's is REAL_COUNT.
   */
  realCount: number;
  seed: number;
  agents: Record<string, string>;
  /**
   * Only the sets whose name starts with one of these words (WOMD, AV2, synthetic, long-tail, real); all
   * when empty. `real` adds the per-source sets of every real scenario (left out otherwise).
   */
  sets: string[];
  /** The per-source real sets hold only this fold's scenarios (models/real-folds.json); all when absent. */
  realFold?: string;
  onSet?: (set: AgentsTableSet, seconds: number) => void;
}

export const DEFAULT_AGENTS_TABLE: AgentsTableOptions = {
  rollouts: 32,
  metricRollouts: 8,
  towns: 3,
  longtailCount: 2,
  longtailSeed: HELD_OUT_LONGTAIL_SEED,
  realCount: 0,
  seed: 0,
  agents: TABLE_AGENTS,
  sets: [],
};

/** Held-back long-tail scenarios: `count` of every kind from the held-out seed (their own controlled agents). */
export function longtailSet(count: number, seed = HELD_OUT_LONGTAIL_SEED): ResultSet {
  const scenarios: Scenario[] = [];
  for (const kind of Object.keys(LONGTAIL_KINDS))
    for (const l of generateLongtail(kind, count, seed)) scenarios.push(l.scenario);
  const which = seed === HELD_OUT_LONGTAIL_SEED ? 'held-back seed' : 'seed';
  return { name: `long-tail (${count} per kind, ${which} ${seed})`, scenarios };
}

function foldModels(spec: string): { onnx: string; trainedOn: Set<string> }[] {
  const file = spec.slice(FOLDS_AGENT_PREFIX.length);
  if (!fs.existsSync(file)) return [];
  const meta = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    realFolds?: { models: { onnx: string; trainedOn: string }[] };
  };
  if (!meta.realFolds?.models?.length) throw new InputError(file, 'no realFolds.models list');
  const folds = readRealFolds();
  return meta.realFolds.models
    .filter((m) => fs.existsSync(m.onnx))
    .map((m) => ({ onnx: m.onnx, trainedOn: new Set((folds.folds[m.trainedOn] ?? []).map((e) => e.id)) }));
}

/** One agent on some scenarios: N seeded rollouts (replay: the log, replicated), metrics and WOSAC. */
function rollScenarios(
  agent: string,
  scenarios: Scenario[],
  N: number,
  seed: number,
  metricRollouts: number,
) {
  const make = agentByName(agent);
  if (!make) throw new InputError(agent, 'unknown agent');
  const stochastic = agent !== 'replay';
  return rolloutScenarios(scenarios, () => (stochastic ? make({ seed }) : make()), {
    rollouts: N,
    replicate: !stochastic,
    metricRollouts,
  }).map((r) => ({ metrics: r.metrics, wosac: scoreScenarioRollouts(r.scenario, r.samples) }));
}

/** One agent on one set: N seeded rollouts (replay: the log, replicated), metrics and WOSAC over them. */
export function agentRow(
  label: string,
  agent: string,
  set: ResultSet,
  N: number,
  seed: number,
  metricRollouts = N,
): AgentsTableRow {
  let scenarios = set.scenarios;
  let res: ReturnType<typeof rollScenarios>;
  if (agent.startsWith(FOLDS_AGENT_PREFIX)) {
    const models = foldModels(agent);
    const pick = (s: Scenario) => models.find((m) => !m.trainedOn.has(s.id));
    scenarios = set.scenarios.filter((s) => pick(s) !== undefined);
    const byModel = new Map<string, Scenario[]>();
    for (const s of scenarios) byModel.set(pick(s)!.onnx, [...(byModel.get(pick(s)!.onnx) ?? []), s]);
    const out = new Map<Scenario, ReturnType<typeof rollScenarios>[number]>();
    for (const [onnx, list] of byModel)
      rollScenarios(onnx, list, N, seed, metricRollouts).forEach((r, i) => out.set(list[i], r));
    res = scenarios.map((s) => out.get(s)!);
  } else res = rollScenarios(agent, scenarios, N, seed, metricRollouts);
  const m = meanMetrics(res.map((r) => r.metrics));
  const w = meanWosacScores(res.map((r) => r.wosac));
  return {
    agent:
      scenarios.length === set.scenarios.length
        ? label
        : `${label} (${scenarios.length} of ${set.scenarios.length})`,
    scenarios: scenarios.length,
    collision_rate: m.collision_rate,
    offroad_rate: m.offroad_rate,
    red_light_rate: m.red_light_rate,
    progress: m.progress,
    ade_m: m.ade_m,
    fde_m: m.fde_m,
    wosac_meta_metric: w.metaMetric,
    per_scenario: res.map((r, i) => ({
      id: scenarios[i].id,
      collision_rate: r.metrics.collision_rate,
      offroad_rate: r.metrics.offroad_rate,
      progress: r.metrics.progress,
      wosac_meta_metric: r.wosac.metaMetric,
    })),
  };
}

/** The whole table: the nominal sets of wosacResults (WOMD, AV2, held-back towns) and the long-tail set. */
export function agentsTable(over: Partial<AgentsTableOptions> = {}): AgentsTableSet[] {
  const o = { ...DEFAULT_AGENTS_TABLE, ...over };
  const agents = Object.entries(o.agents).filter(
    ([, a]) =>
      (!a.endsWith('.onnx') && !a.startsWith(FOLDS_AGENT_PREFIX)) ||
      fs.existsSync(a.startsWith(FOLDS_AGENT_PREFIX) ? a.slice(FOLDS_AGENT_PREFIX.length) : a),
  );
  // The per-source real sets (every scenario) only when asked for: `--sets real`.
  const wantReal = o.sets.some((w) => REAL_SET_PREFIX.startsWith(w) || w.startsWith(REAL_SET_PREFIX));
  const sets: { set: ResultSet; nominal: boolean }[] = [
    ...resultSets(o.towns).map((set) => ({ set, nominal: true })),
    ...realSets(o.realCount).map((set) => ({ set, nominal: true })),
    ...(wantReal ? realSourceSets(o.realFold) : []).map((set) => ({ set, nominal: true })),
    ...(o.longtailCount > 0 ? [{ set: longtailSet(o.longtailCount, o.longtailSeed), nominal: false }] : []),
  ].filter(({ set }) => o.sets.length === 0 || o.sets.some((w) => set.name.startsWith(w)));
  const bar = createProgress('agents table', sets.length * agents.length);
  const out: AgentsTableSet[] = [];
  for (const { set, nominal } of sets) {
    const t0 = performance.now();
    const rows = agents.map(([label, agent]) => {
      const r = agentRow(label, agent, set, o.rollouts, o.seed, o.metricRollouts);
      bar.tick(1, `${label} on ${set.name}`);
      return r;
    });
    const s = { name: set.name, scenarios: set.scenarios.length, nominal, rows };
    o.onSet?.(s, (performance.now() - t0) / 1000);
    out.push(s);
  }
  bar.stop();
  return out;
}

/** Markdown: rates in percent, ADE/FDE only on nominal sets (the long-tail logs are oracle plans). */
export function markdownAgentsTable(set: AgentsTableSet): string {
  const pct = (v: number) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : 'n/a');
  const f = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
  const head =
    '| agent | collision | off-road | red light | progress | ADE (m) | FDE (m) | WOSAC meta |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|';
  const rows = set.rows.map(
    (r) =>
      `| ${r.agent} | ${pct(r.collision_rate)} | ${pct(r.offroad_rate)} | ${pct(r.red_light_rate)} | ${f(r.progress, 2)} | ${set.nominal ? f(r.ade_m, 2) : '–'} | ${set.nominal ? f(r.fde_m, 2) : '–'} | ${f(r.wosac_meta_metric, 3)} |`,
  );
  return [head, ...rows].join('\n');
}

function argValue(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0)
    throw new InputError(name, `'${process.argv[i + 1]}' is not a whole number`);
  return v;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkReportFlags(
    process.argv,
    'usage: npm run agents-table -- [--rollouts N] [--metric-rollouts M] [--towns K] [--longtail-count C]\n' +
      '  [--longtail-seed S] [--real-count R] [--agent LABEL=model.onnx|folds:<json> …] [--rows LABEL,…]\n' +
      '  [--sets WORD,…] [--real-fold A|B] [--json file]',
    [
      '--rollouts',
      '--metric-rollouts',
      '--towns',
      '--longtail-count',
      '--longtail-seed',
      '--real-count',
      '--agent',
      '--rows',
      '--sets',
      '--real-fold',
      '--json',
    ],
  );
  const rollouts = Math.max(1, argValue('--rollouts', DEFAULT_AGENTS_TABLE.rollouts));
  const j = process.argv.indexOf('--json');
  const json = j > 0 ? process.argv[j + 1] : undefined;
  // --agent LABEL=PATH (repeatable) adds or replaces a row, e.g. a candidate model of a training run.
  let agents: Record<string, string> = { ...TABLE_AGENTS };
  process.argv.forEach((a, i) => {
    if (a !== '--agent') return;
    const [label, file] = (process.argv[i + 1] ?? '').split('=');
    if (!label || !file) throw new InputError('--agent', `'${process.argv[i + 1]}' is not LABEL=PATH`);
    agents[label] = file;
  });
  // --rows LABEL,… keeps only those rows; --sets WORD,… only those sets (to split a long run in parts).
  const list = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? (process.argv[i + 1] ?? '').split(',').filter(Boolean) : [];
  };
  const only = list('--rows');
  if (only.length) agents = Object.fromEntries(Object.entries(agents).filter(([k]) => only.includes(k)));
  const metricRollouts = Math.min(
    rollouts,
    argValue('--metric-rollouts', DEFAULT_AGENTS_TABLE.metricRollouts),
  );
  await prepareRealSets();
  await prepareRealMotion();
  const sets = agentsTable({
    realCount: argValue('--real-count', REAL_COUNT),
    rollouts,
    agents,
    sets: list('--sets'),
    realFold: flagValue('--real-fold'),
    metricRollouts,
    towns: argValue('--towns', DEFAULT_AGENTS_TABLE.towns),
    longtailCount: argValue('--longtail-count', DEFAULT_AGENTS_TABLE.longtailCount),
    longtailSeed: argValue('--longtail-seed', DEFAULT_AGENTS_TABLE.longtailSeed),
    onSet: (s, sec) =>
      process.stdout.write(
        `${s.name}: ${s.scenarios} scenario(s), N = ${rollouts} seeded rollouts (rates over the first ${metricRollouts}), seed 0 (${sec.toFixed(0)} s)\n\n${markdownAgentsTable(s)}\n\n`,
      ),
  });
  if (json) writeFileAtomicSync(json, JSON.stringify({ rollouts, sets }, null, 1) + '\n');
}
