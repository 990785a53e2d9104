// `drivekit sim --scenarios <dir|file> --agents <replay|cv|idm|still> --out <dir>`: N seeded closed-loop
// rollouts per scenario scored with the Sim Agents (WOSAC 2025) metric and the rollout metrics; writes
// rollouts.arrow (AgentStates + a rollout column), the scenarios, metrics.json / metrics.csv (one row per
// scenario) and metrics_summary.csv (the mean row); refuses an existing --out unless --force.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { ArrowFileAppender } from '../../core/arrow/ipc.ts';
import { cleanOnFailure } from '../../core/cleanOnFailure.ts';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { AGENTS, agentByName, SANITY_AGENTS, STOCHASTIC_AGENTS } from '../../simulation/agents/registry.ts';
import { rolloutBatch, SIM_FILES } from '../../simulation/export/rolloutSet.ts';
import { meanMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { meanWosacScores, scoreScenarioRollouts } from '../../simulation/metrics/wosac/score.ts';
import type { WosacScenarioScore } from '../../simulation/metrics/wosac/rollouts.ts';
import { checkSimulatable, rolloutScenarios, type ScenarioRollout } from '../../simulation/rollout.ts';
import { INTENTION_MODES, intentionScenarios } from '../../simulation/intention/intentionMode.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { loadScenariosAsync } from '../../simulation/scenarioSources.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { formatMetricTable, METRIC_COLUMNS } from '../report/simMetrics.ts';
import { formatWosacTable, wosacRow } from '../report/wosacTable.ts';
import { makeDirs } from '../../core/dirs.ts';
import { addForce, printJson, refuseExisting, snakeKeys, toJson } from '../cliOptions.ts';

export { SIM_FILES };

/** Rollouts per scenario when none is asked for: the Sim Agents challenge's 32. */
export const DEFAULT_ROLLOUTS = 32;
/** Rollouts per scenario: 32× the Sim Agents setting; every rollout of a scenario is held in memory. */
export const MAX_ROLLOUTS = 1024;

/** Agents × rollouts simulated (and held in memory) at once. */
export const CHUNK_AGENTS = 20_000;

export interface SimOptions {
  scenarios: string;
  agents: string;
  out: string;
  control?: 'scenario' | 'all';
  limit?: number;
  /** Rollouts per scenario (default 32; 1 with --deterministic). */
  rollouts?: number;
  /** Seed of the stochastic agents (default 0). */
  seed?: number;
  /** The agents' deterministic form (every rollout the same). */
  deterministic?: boolean;
  /** Learned agents: softmax temperature of the sampled actions (default: the model's own, else 1). */
  temperature?: number;
  /** Where goal-less driven agents turn at forks (intention/intentionMode.ts; default straightest). */
  intentions?: string;
  /** Agents × rollouts simulated (and held in memory) at once (default CHUNK_AGENTS). */
  chunkAgents?: number;
  /** Replace the outputs of an earlier run in --out (the CLI refuses them otherwise). */
  force?: boolean;
  json?: boolean;
}

/** The files and folders a run writes into --out: what --force replaces. */
export const simOutputs = (out: string) =>
  [SIM_FILES.rollouts, SIM_FILES.scenarios, SIM_FILES.metrics, 'metrics.csv', 'metrics_summary.csv'].map(
    (f) => path.join(out, f),
  );

const allAgentNames = () => [
  ...Object.keys(AGENTS),
  'learned',
  '<model.onnx>',
  ...Object.keys(SANITY_AGENTS),
];

export async function runSim(opts: SimOptions): Promise<Record<string, unknown>> {
  const make = agentByName(opts.agents);
  if (!make)
    throw new InputError('--agents', `unknown agent '${opts.agents}' (known: ${allAgentNames().join(', ')})`);
  const learned = opts.agents === 'learned' || opts.agents.endsWith('.onnx');
  if (opts.temperature !== undefined && !learned)
    throw new InputError(
      '--temperature',
      `is the learned agents' sampling temperature, not ${opts.agents}'s`,
    );
  const temperature = opts.temperature;
  const N = opts.rollouts ?? (opts.deterministic ? 1 : DEFAULT_ROLLOUTS);
  const seed = opts.seed ?? 0;
  // Deterministic agents (and the deterministic form) run once per scenario, copied to every rollout.
  const stochastic =
    !opts.deterministic && N > 1 && (STOCHASTIC_AGENTS.has(opts.agents) || opts.agents.endsWith('.onnx'));
  const intentions = opts.intentions ?? 'straightest';
  if (!(INTENTION_MODES as readonly string[]).includes(intentions))
    throw new InputError('--intentions', `must be one of ${INTENTION_MODES.join(', ')}, got '${intentions}'`);
  // Sampled routes differ per rollout: each one runs, whatever the agent.
  const sampled = intentions === 'head' || intentions === 'prior';
  let loaded = await loadScenariosAsync(opts.scenarios);
  if (opts.limit !== undefined) loaded = loaded.slice(0, opts.limit);
  // What was done to fit real logs to the 10 Hz batch, said rather than refused.
  const stepNotes = loaded.flatMap((l) => (l.note ? [l.note] : []));
  if (!opts.json) for (const n of stepNotes) process.stderr.write(`note: ${n}\n`);
  const scenarios = loaded.map((l) => l.scenario);
  if (opts.control === 'all') {
    // Every agent present at the current step is driven by the agent (the Sim Agents setting).
    for (const s of scenarios)
      s.controlled = Uint8Array.from(s.controlled, (_, a) => s.agents.valid[a * s.numSteps + s.currentStep]);
  }
  const files = loaded.map((l) => l.file);
  checkSimulatable(scenarios, files);
  makeDirs(opts.out);
  // A replaced run must not leave scenarios of its own beside the new ones.
  if (opts.force) fs.rmSync(path.join(opts.out, SIM_FILES.scenarios), { recursive: true, force: true });
  const meta = {
    'drivekit.agents': opts.agents,
    'drivekit.scenarios': String(scenarios.length),
    'drivekit.rollouts': String(N),
    'drivekit.seed': stochastic || sampled ? String(seed) : 'deterministic',
    'drivekit.intentions': intentions,
    ...(temperature !== undefined ? { 'drivekit.temperature': String(temperature) } : {}),
  };
  // Scenarios go in chunks of about CHUNK_AGENTS agents × rollouts, their rollouts appended to the file
  // as they come, so memory stays flat however many scenarios and rollouts are asked for.
  const bar = createProgress('sim', scenarios.length, { silent: opts.json, unit: 'scenarios' });
  const results: Omit<ScenarioRollout, 'tracks' | 'allTracks' | 'samples'>[] = [];
  const wosacRows: WosacScenarioScore[] = [];
  let appender: ArrowFileAppender | null = null;
  for (let from = 0; from < scenarios.length;) {
    let to = from + 1;
    let agents = scenarios[from].agents.ids.length * N;
    while (
      to < scenarios.length &&
      agents + scenarios[to].agents.ids.length * N <= (opts.chunkAgents ?? CHUNK_AGENTS)
    )
      agents += scenarios[to++].agents.ids.length * N;
    const part = scenarios.slice(from, to);
    const scenarioFor = await intentionScenarios(intentions, part, seed);
    const chunk = rolloutScenarios(
      part,
      () => (stochastic ? make({ seed, temperature }) : make()),
      { rollouts: N, replicate: !stochastic && !sampled, keepAllTracks: true, scenarioFor },
      files.slice(from, to),
    );
    for (const r of chunk) {
      for (const [n, t] of r.allTracks!.entries()) {
        const b = rolloutBatch(r.scenario, t, n, meta);
        appender ??= new ArrowFileAppender(path.join(opts.out, SIM_FILES.rollouts), b.schema);
        appender.append(b);
      }
      // The Sim Agents realism: likelihoods of the log under the N rollouts, SDC + tracks_to_predict scored.
      wosacRows.push(scoreScenarioRollouts(r.scenario, r.samples));
      results.push({ scenario: r.scenario, metrics: r.metrics });
    }
    bar.update(to);
    from = to;
  }
  appender!.close();
  bar.stop();
  results.forEach((r, i) =>
    saveScenario(r.scenario, path.join(opts.out, SIM_FILES.scenarios, `${String(i).padStart(4, '0')}`)),
  );
  const rows = results.map((r) => r.metrics);
  const mean = meanMetrics(rows);
  const wosac = { ...meanWosacScores(wosacRows), rows: wosacRows };
  const run = {
    scenarios: results.length,
    agents: opts.agents,
    rollouts: N,
    seed: stochastic || sampled ? seed : null,
    intentions,
    ...(stepNotes.length ? { stepAdjusted: stepNotes } : {}),
  };
  writeFileAtomicSync(path.join(opts.out, SIM_FILES.metrics), toJson({ ...run, wosac, mean, rows }) + '\n');
  // The realism column is the Sim Agents meta-metric, the one realism number of every output.
  const keys = [
    'scenario',
    ...METRIC_COLUMNS.map((c) => c[0]),
    'wosac_meta_metric',
    'log_collision_rate',
    'log_offroad_rate',
  ] as const;
  const csvRow = (r: Record<string, unknown>) =>
    keys.map((k) => (typeof r[k] === 'number' && !Number.isFinite(r[k]) ? '' : String(r[k]))).join(',');
  // One row per scenario; the mean over them in a file of its own, so a reader of metrics.csv sees only data.
  const csv = [
    keys.join(','),
    ...rows.map((r, i) => csvRow({ ...r, wosac_meta_metric: wosacRows[i].metaMetric })),
  ].join('\n');
  writeFileAtomicSync(path.join(opts.out, 'metrics.csv'), csv + '\n');
  writeFileAtomicSync(
    path.join(opts.out, 'metrics_summary.csv'),
    [keys.join(','), csvRow({ ...mean, scenario: 'mean', wosac_meta_metric: wosac.metaMetric })].join('\n') +
      '\n',
  );
  if (!opts.json)
    process.stdout.write(
      `${opts.agents}: ${N} rollout(s) per scenario (${stochastic ? `stochastic, seed ${seed}` : 'deterministic'}); rates are means over the rollouts\n\n` +
        `Sim Agents realism (WOSAC 2025 metric: meta-metric and likelihoods of the log under the rollouts)\n\n` +
        formatWosacTable(
          [
            ...wosacRows.map((w) => wosacRow(w.scenarioId, N, [w])),
            ...(wosacRows.length > 1 ? [wosacRow('mean', N, wosacRows)] : []),
          ],
          'scenario',
        ) +
        `\n\nRollout metrics\n\n` +
        formatMetricTable(rows, mean) +
        `\n\nwrote ${opts.out}\n`,
    );
  return snakeKeys({
    ...run,
    wosac: { metaMetric: wosac.metaMetric, components: wosac.components },
    mean,
  }) as Record<string, unknown>;
}

export function register(program: Command): void {
  const cmd = program
    .command('sim')
    .description(
      'N seeded closed-loop rollouts of traffic agents (replay, CV, IDM, the shipped learned agent or any agent .onnx) per scenario, scored with the Sim Agents (WOSAC 2025) realism metric and collision/off-road/ADE metrics',
    )
    .requiredOption(
      '--scenarios <path>',
      'scenario file or directory (.json, Arrow scenario dirs, WOMD .tfrecord, GPUDrive/Nocturne .json, ScenarioNet .pkl or folders, AV2 motion-forecasting folders, AV2 logs)',
    )
    .requiredOption(
      '--agents <name>',
      `traffic agents: ${Object.keys(AGENTS).join(' | ')} | learned (models/agent.onnx) | <model.onnx> (or ${Object.keys(SANITY_AGENTS).join(' | ')}: a broken agent, the sanity row)`,
    )
    .requiredOption(
      '--out <dir>',
      'output directory (rollouts.arrow, scenarios/, metrics.json, metrics.csv, metrics_summary.csv)',
    )
    .option(
      '--rollouts <n>',
      `seeded rollouts per scenario (default: ${DEFAULT_ROLLOUTS}, the Sim Agents setting; 1 with --deterministic)`,
      intOption('--rollouts', 1, MAX_ROLLOUTS),
    )
    .option(
      '--seed <s>',
      'seed of the stochastic agents (same seed, same rollouts)',
      intOption('--seed', 0),
      0,
    )
    .option('--deterministic', "the agents' deterministic form: every rollout the same")
    .option(
      '--temperature <t>',
      "learned agents: softmax temperature of the sampled actions (default: the model's settings.temperature, else 1)",
      numberOption('--temperature', { above: 0 }),
    )
    .option(
      '--control <which>',
      "agents driven: 'scenario' (its controlled flags) or 'all' present at the current step",
      'scenario',
    )
    .option('--limit <n>', 'simulate only the first n scenarios', intOption('--limit', 1))
    .option(
      '--intentions <mode>',
      `where driven agents without a goal turn at forks: ${INTENTION_MODES.join(' | ')} (head: routes sampled per rollout from models/intention.onnx; log: the lanes the log drove, an oracle)`,
      'straightest',
    )
    .option(
      '--json',
      'print {"scenarios","agents","rollouts","seed","wosac":{meta_metric,components},"mean":{…}} as one JSON line',
    );
  addForce(cmd, 'the outputs of an earlier run in --out');
  cmd.addHelpText(
    'after',
    '\nRates and the realism scores are fractions (0–1) in every output. See docs/cli.md for the JSON keys.',
  );
  cmd.action(async (opts: SimOptions) => {
    if (opts.control !== 'scenario' && opts.control !== 'all')
      throw new InputError('--control', `must be 'scenario' or 'all', got '${opts.control}'`);
    refuseExisting(simOutputs(opts.out), opts.force);
    const summary = await cleanOnFailure(opts.out, () => runSim(opts));
    if (opts.json) printJson(summary);
  });
}
