// CLI start-up benchmark: wall time of `drivekit --version`, `--help` and `sim --help` as a user runs them
// (a fresh process each), from the compiled tree (dist/) and from the sources through tsx, cold and warm.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../core/paths.ts';
import { median } from '../../core/stats.ts';
import { compile } from '../build/compile.ts';
import type { Benchmark } from './benchmark.ts';

/** Settings: timed runs per command and mode, fresh builds for the compiled cold runs (medians reported). */
export const CLI_BENCH = { reps: 7, coldBuilds: 3 };

const BIN = path.join(REPO_ROOT, 'bin', 'drivekit.js');

/** Milliseconds of one `drivekit <args>` run to its exit (a failure aborts the bench). */
function timeOnce(args: string[], env: NodeJS.ProcessEnv): number {
  const t = process.hrtime.bigint();
  const p = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (p.status !== 0) throw new Error(`drivekit ${args.join(' ')} exited ${p.status}: ${p.stderr.trim()}`);
  return ms;
}

const round = (ms: number) => Math.round(ms);

export const benchmarks: Benchmark[] = [
  {
    names: ['cli_start'],
    async run(emit) {
      // The user's environment, less this process's own loader and malloc settings.
      const base: NodeJS.ProcessEnv = { ...process.env };
      for (const k of ['NODE_OPTIONS', 'DRIVEKIT_FROM_SOURCE', 'MALLOC_TRIM_THRESHOLD_']) delete base[k];
      const compiled = base;
      const source = { ...base, DRIVEKIT_FROM_SOURCE: '1' };
      const figure: Record<string, number> = {};
      for (const [cmd, args] of [
        ['version', ['--version']],
        ['help', ['--help']],
        // A command's own help loads its module tree: the start-up of a real command.
        ['sim_help', ['sim', '--help']],
      ] as const) {
        // Cold: the first run after the build (compiled) / with an empty tsx cache (sources): what a
        // fresh clone sees. tsx keeps its cache under the temp folder, so a fresh one empties it.
        const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-clibench-'));
        try {
          const colds: number[] = [];
          for (let i = 0; i < CLI_BENCH.reps; i++) {
            const fresh = path.join(tmp, String(i));
            fs.mkdirSync(fresh);
            colds.push(timeOnce([...args], { ...source, TMPDIR: fresh }));
          }
          figure[`${cmd}_ms_source_cold`] = round(median(colds));
        } finally {
          fs.rmSync(tmp, { recursive: true, force: true });
        }
        const runs = (env: NodeJS.ProcessEnv) =>
          Array.from({ length: CLI_BENCH.reps }, () => timeOnce([...args], env));
        timeOnce([...args], source); // fills the tsx cache
        figure[`${cmd}_ms_source_warm`] = round(median(runs(source)));
        const compiledColds: number[] = [];
        for (let i = 0; i < CLI_BENCH.coldBuilds; i++) {
          await compile(REPO_ROOT);
          compiledColds.push(timeOnce([...args], compiled));
        }
        figure[`${cmd}_ms_compiled_cold`] = round(median(compiledColds));
        figure[`${cmd}_ms_compiled_warm`] = round(median(runs(compiled)));
      }
      emit({
        name: 'cli_start',
        reps: CLI_BENCH.reps,
        // Start-up is CPU-bound: on a shared machine the figure scales with the load.
        load1: Number(os.loadavg()[0].toFixed(1)),
        ...figure,
        target_ms: 1000,
        met: ['version', 'help', 'sim_help'].every((c) => figure[`${c}_ms_compiled_warm`] < 1000),
      });
    },
  },
];
