// The self-training table, as Markdown (demo report, docs) and as aligned text (the selftrain command):
// AP at BEV IoU 0.3 and 0.5 per range bucket (seed range and beyond) and DTC, per method and round.
import type { EvalReport } from '../../perception/eval/evaluate.ts';
import type { SelfTrainRow } from '../../perception/selftrain.ts';

export interface TableRow {
  /** Row label, e.g. 'detector r2'. */
  name: string;
  report: Pick<EvalReport, 'ap' | 'dtc'>;
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : (100 * v).toFixed(1));
const m = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(2));

/** AP (%) at BEV IoU 0.3 and 0.5 for each bucket and overall, then DTC |error| mean / p95 and rates. */
export function selfTrainMarkdownTable(rows: readonly TableRow[], bucketsM: [number, number][]): string {
  const cols = [...bucketsM.map(([a, b]) => `${a}-${b}`), 'all'];
  const label = (c: string) => (c === 'all' ? 'all' : `${c.replace('-', '–')} m`);
  const head = `| | ${['0.3', '0.5'].flatMap((t) => cols.map((c) => `BEV@${t} ${label(c)}`)).join(' | ')} | DTC \\|err\\| mean / p95 (m) | phantom | missed |`;
  const sep = `|---|${cols
    .map(() => '---:|')
    .join('')
    .repeat(2)}---:|---:|---:|`;
  const lines = rows.map(({ name, report: r }) => {
    const ap = ['0.3', '0.5'].flatMap((t) => cols.map((c) => pct(r.ap.bev[t]?.[c])));
    const d = r.dtc;
    return `| ${name} | ${ap.join(' | ')} | ${m(d.mean_abs_err_m)} / ${m(d.p95_abs_err_m)} | ${pct(d.phantom_rate)}% | ${pct(d.missed_rate)}% |`;
  });
  return [head, sep, ...lines].join('\n');
}

const fmtAp = (v: number | null | undefined) =>
  v === null || v === undefined ? '    –' : v.toFixed(3).padStart(5);

/** The per-round table as aligned text: AP at BEV IoU 0.3 and 0.5 by range, and DTC. */
export function formatSelfTrainTable(rows: readonly SelfTrainRow[], buckets: [number, number][]): string {
  const cols = [...buckets.map(([a, b]) => `${a}-${b}`), 'all'];
  const lines: string[] = [];
  for (const set of ['train', 'held-out'] as const) {
    const mine = rows.filter((r) => r.set === set);
    if (mine.length === 0) continue;
    lines.push(
      set === 'train' ? 'logs self-trained on (auto-labelling):' : 'held-out logs (never trained on):',
    );
    const head = [
      'method'.padEnd(26),
      ...['0.3', '0.5'].flatMap((t) => cols.map((c) => `${t}@${c}`.padStart(11))),
    ];
    lines.push(head.join('') + '  DTC |err| mean/p95 m, phantom, missed');
    for (const r of mine) {
      const name = (r.round > 0 ? `${r.method} r${r.round}` : r.method).padEnd(26);
      const ap = ['0.3', '0.5'].flatMap((t) => cols.map((c) => fmtAp(r.report.ap.bev[t]?.[c]).padStart(11)));
      const d = r.report.dtc;
      const dtc =
        d.mean_abs_err_m === null
          ? '  n/a'
          : `  ${d.mean_abs_err_m.toFixed(2)}/${d.p95_abs_err_m!.toFixed(2)}, ${(100 * d.phantom_rate!).toFixed(1)}%, ${(100 * d.missed_rate!).toFixed(1)}%`;
      lines.push(name + ap.join('') + dtc);
    }
  }
  return lines.join('\n');
}
