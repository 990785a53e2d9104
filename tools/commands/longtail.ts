// `drivekit longtail --kind <kind> --count N --seed S`: hard but solvable scenarios (cut-in,
// hard-brake, jaywalker, red-light-runner, merge, unprotected-left, occluded-pedestrian), each checked
// by the full-knowledge oracle, saved as scenarios, with the collision rate of the built-in agents.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { AGENTS } from '../../simulation/agents/registry.ts';
import { generateLongtail, LONGTAIL_KINDS } from '../../simulation/longtail/generate.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { intOption } from '../numberOption.ts';
import { addForce, printJson, refuseExisting } from '../cliOptions.ts';

export interface LongtailOptions {
  kind: string;
  count: number;
  seed: number;
  out?: string;
  force?: boolean;
  json?: boolean;
}

export interface KindReport {
  kind: string;
  count: number;
  seed: number;
  /** Every scenario passed the oracle check (a collision-free plan with braking ≤ 6 m/s² exists). */
  solvable: number;
  /** Draws rejected as too easy (constant speed does not collide) or unsolvable. */
  rejected: number;
  oracle_mean_brake_mps2: number;
  /** Collision rate of the ego when driven by each built-in agent (replay = the oracle's plan). */
  collision_rate: Record<string, number>;
  progress: Record<string, number>;
  out: string;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export function runLongtailKind(
  kind: string,
  count: number,
  seed: number,
  outRoot: string,
  silent = false,
): KindReport {
  const set = generateLongtail(kind, count, seed);
  const out = path.join(outRoot, kind);
  set.forEach((x, i) => saveScenario(x.scenario, path.join(out, String(i).padStart(4, '0'))));
  const collision_rate: Record<string, number> = {};
  const progress: Record<string, number> = {};
  const bar = createProgress(`longtail ${kind}`, Object.keys(AGENTS).length, { silent });
  for (const [name, make] of Object.entries(AGENTS)) {
    const r = rolloutScenarios(
      set.map((x) => x.scenario),
      make,
    );
    collision_rate[name] = mean(r.map((x) => x.metrics.collision_rate));
    progress[name] = mean(r.map((x) => x.metrics.progress).filter(Number.isFinite));
    bar.tick();
  }
  bar.stop();
  const report: KindReport = {
    kind,
    count,
    seed,
    solvable: set.length,
    rejected: set.reduce((a, x) => a + x.rejected, 0),
    oracle_mean_brake_mps2: mean(set.map((x) => x.oracleBrakeMps2)),
    collision_rate,
    progress,
    out,
  };
  writeFileAtomicSync(
    path.join(out, 'longtail.json'),
    JSON.stringify({ ...report, params: set.map((x) => x.params) }, null, 1) + '\n',
  );
  return report;
}

export function formatLongtailTable(reports: readonly KindReport[]): string {
  const agents = Object.keys(AGENTS);
  const head = ['kind', 'count', 'rejected', 'oracle brake', ...agents.map((a) => `${a} collision`)];
  const rows = reports.map((r) => [
    r.kind,
    String(r.count),
    String(r.rejected),
    r.oracle_mean_brake_mps2.toFixed(2),
    ...agents.map((a) => r.collision_rate[a].toFixed(2)),
  ]);
  const all = [head, ...rows];
  const widths = head.map((_, j) => Math.max(...all.map((r) => r[j].length)));
  return all
    .map((r) => r.map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join('  '))
    .join('\n');
}

/** Scenarios per kind: each is generated, checked by the oracle and scored by every built-in agent. */
export const MAX_LONGTAIL_COUNT = 10_000;

export function register(program: Command): void {
  const cmd = program
    .command('longtail')
    .description(
      'generate hard but solvable scenarios (oracle-checked) and score the built-in agents on them',
    )
    .requiredOption('--kind <kind>', `${Object.keys(LONGTAIL_KINDS).join(' | ')} | all`)
    .option(
      '--count <n>',
      `scenarios per kind (at most ${MAX_LONGTAIL_COUNT})`,
      intOption('--count', 1, MAX_LONGTAIL_COUNT),
      20,
    )
    .option('--seed <s>', 'random seed', intOption('--seed', 0), 1)
    .option(
      '--out <dir>',
      'output folder, relative to the current directory: <out>/<kind>/0000, 0001, … (a scenario directory each) and <out>/<kind>/longtail.json',
      'out/longtail',
    )
    .option('--json', 'print the per-kind reports as JSON (snake_case keys, rates as fractions)');
  addForce(cmd, 'the folder of a kind already in --out').action((opts: LongtailOptions) => {
    const kinds = opts.kind === 'all' ? Object.keys(LONGTAIL_KINDS) : [opts.kind];
    for (const k of kinds)
      if (!LONGTAIL_KINDS[k])
        throw new InputError(
          '--kind',
          `unknown kind '${k}' (known: ${Object.keys(LONGTAIL_KINDS).join(', ')}, all)`,
        );
    if (!(opts.count >= 1)) throw new InputError('--count', 'must be a positive integer');
    const outRoot = opts.out ?? 'out/longtail';
    const dirs = kinds.map((k) => path.join(outRoot, k));
    refuseExisting(dirs, opts.force);
    // Replaced whole: a smaller --count must not leave the last run's extra scenarios beside the new ones.
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    const reports = kinds.map((k) => runLongtailKind(k, opts.count, opts.seed, outRoot, opts.json));
    if (opts.json) printJson(reports.length === 1 ? reports[0] : reports);
    else process.stdout.write(formatLongtailTable(reports) + '\n');
  });
}
