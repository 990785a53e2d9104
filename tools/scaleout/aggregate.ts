// The flow's parent job: once every child (one per input) has finished, one result over all of them —
// totals, a pooled evaluation (one AP curve over all logs' frames), or one metrics table over all rollouts.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { readBoxSource } from '../../perception/eval/boxSources.ts';
import { type EvalSet, evaluateSets } from '../../perception/eval/evaluate.ts';
import { meanMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { fillGtPointCounts } from '../commands/eval.ts';
import { jsonWithNulls } from '../report/simMetrics.ts';
import type { Aggregation } from './jobCommands.ts';
import { makeDirs } from '../../core/dirs.ts';

/** What a child job returns (processor.ts). */
export interface ChildResult {
  input: string;
  outDir: string | null;
  skipped: boolean;
  result: unknown;
}

export interface AggregateResult {
  command: string;
  jobs: number;
  completed: number;
  failed: number;
  skipped: number;
  failures: { job: string; error: string }[];
  /** Numeric top-level fields of the children's summaries, summed. */
  totals: Record<string, number>;
  /** The pooled evaluation or the joint metrics table, per the command's aggregation. */
  pooled?: unknown;
  files?: Record<string, string>;
}

function sumNumbers(results: unknown[]): Record<string, number> {
  // Counts add up across inputs (frames, detections, …) and so do seconds; shares and rates do not.
  const totals: Record<string, number> = {};
  for (const r of results) {
    if (typeof r !== 'object' || r === null) continue;
    for (const [k, v] of Object.entries(r))
      if (typeof v === 'number' && (Number.isInteger(v) || k === 'seconds')) totals[k] = (totals[k] ?? 0) + v;
  }
  return totals;
}

/** One AP / DTC evaluation over all logs at once (frames pooled), with the eval job's options. */
async function pooledEval(logs: string[], options: Record<string, string | true>): Promise<unknown> {
  const sets: EvalSet[] = [];
  for (const log of logs.sort()) {
    const pred = await readBoxSource(log, ['tracks', 'detections']);
    const truth = await readBoxSource(log, ['labels']);
    const gt = truth.logDir ? await fillGtPointCounts(truth.boxes, truth.logDir) : truth.boxes;
    let gtIgnore: Uint8Array | null = null;
    if (typeof options['--classes'] === 'string') {
      const keep = new Set(options['--classes'].split(',').map((s) => s.trim().toLowerCase()));
      gtIgnore = Uint8Array.from(gt.label, (l) => (keep.has(l.toLowerCase()) ? 0 : 1));
    }
    sets.push({ pred: pred.boxes, gt, ego: truth.ego ?? pred.ego, gtIgnore });
  }
  const num = (f: string) => (typeof options[f] === 'string' ? Number(options[f]) : undefined);
  const fov = num('--fov');
  const minGtPoints = num('--min-gt-points');
  return evaluateSets(sets, {
    ap: {
      halfFovDeg: fov !== undefined ? fov / 2 : null,
      ...(minGtPoints !== undefined ? { minGtPoints } : {}),
    },
    dtcScoreThreshold: num('--dtc-score') ?? null,
  });
}

/** All rollouts' per-scenario rows in one table, with the mean over every scenario. */
export function metricsTable(
  children: ChildResult[],
  outRoot: string,
): { pooled: unknown; files: Record<string, string> } {
  const rows: Record<string, unknown>[] = [];
  const wosacRows: { meta_metric: number | null; components: Record<string, number | null> }[] = [];
  let agents: unknown = null;
  for (const c of [...children].sort((a, b) => a.input.localeCompare(b.input))) {
    if (!c.outDir) continue;
    const m = JSON.parse(fs.readFileSync(path.join(c.outDir, 'metrics.json'), 'utf8')) as {
      agents: unknown;
      rows: Record<string, unknown>[];
      wosac?: { rows?: typeof wosacRows };
    };
    agents = m.agents;
    for (const r of m.rows) rows.push({ ...r, source: c.input });
    wosacRows.push(...(m.wosac?.rows ?? []));
  }
  const mean = meanMetrics(rows as unknown as Parameters<typeof meanMetrics>[0]);
  // The one realism number, pooled as meanWosacScores does: the plain mean over scenarios, each
  // component's mean skipping the scenarios where it is undefined (null in JSON).
  const meanOf = (vs: (number | null | undefined)[]) => {
    const ok = vs.filter((v): v is number => typeof v === 'number');
    return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : null;
  };
  const components: Record<string, number | null> = {};
  for (const k of Object.keys(wosacRows[0]?.components ?? {}))
    components[k] = meanOf(wosacRows.map((w) => w.components[k]));
  const wosac = { meta_metric: meanOf(wosacRows.map((w) => w.meta_metric)), components };
  const table = { scenarios: rows.length, agents, wosac, mean, rows };
  const file = path.join(outRoot, 'metrics.json');
  makeDirs(outRoot);
  writeFileAtomicSync(file, jsonWithNulls(table) + '\n');
  return { pooled: { scenarios: rows.length, agents, wosac, mean }, files: { metrics: file } };
}

export async function aggregate(
  command: string,
  how: Aggregation,
  options: Record<string, string | true>,
  children: Record<string, ChildResult>,
  failures: Record<string, string>,
): Promise<AggregateResult> {
  const done = Object.values(children);
  const failed = Object.entries(failures).map(([job, error]) => ({ job, error: error.split('\n')[0] }));
  const out: AggregateResult = {
    command,
    jobs: done.length + failed.length,
    completed: done.length,
    failed: failed.length,
    skipped: done.filter((c) => c.skipped).length,
    failures: failed,
    totals: sumNumbers(done.map((c) => c.result)),
  };
  if (done.length === 0) return out;
  if (how === 'pooled-eval')
    out.pooled = await pooledEval(
      done.map((c) => c.input),
      options,
    );
  if (how === 'metrics-table' && typeof options['--out'] === 'string') {
    const t = metricsTable(done, options['--out']);
    out.pooled = t.pooled;
    out.files = t.files;
  }
  return out;
}
