// Markdown table of the self-training rounds for the demo report and the README: AP at BEV IoU 0.3 and 0.5
// by range bucket (near range the seed labels cover, and beyond it) and DTC, one row per method and round.
import type { EvalReport } from '../../perception/eval/evaluate.ts';

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
