// Markdown tables of evaluation reports side by side (one row per method or data set): AP by range at
// BEV IoU 0.3, AP overall at BEV 0.5 and 3D 0.3, best-F1 and DTC — for the demo report and docs/discovery.md.
import type { EvalReport } from '../../perception/eval/evaluate.ts';

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : (100 * v).toFixed(1));
const m = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(2));

export interface NamedReport {
  name: string;
  report: EvalReport;
}

/** AP (percent) by range at BEV IoU 0.3 and overall at the other thresholds, one row per report. */
export function apMarkdownTable(rows: readonly NamedReport[]): string {
  const head =
    '| | BEV@0.3 0–30 m | 30–50 m | 50–80 m | all | BEV@0.5 0–30 m | all | 3D@0.3 0–30 m | all | best F1 (BEV@0.3) | GT boxes |';
  const sep = '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const lines = rows.map(({ name, report: r }) => {
    const b3 = r.ap.bev['0.3'] ?? {};
    const b5 = r.ap.bev['0.5'] ?? {};
    const d3 = r.ap['3d']['0.3'] ?? {};
    return `| ${name} | ${pct(b3['0-30'])} | ${pct(b3['30-50'])} | ${pct(b3['50-80'])} | ${pct(b3.all)} | ${pct(b5['0-30'])} | ${pct(b5.all)} | ${pct(d3['0-30'])} | ${pct(d3.all)} | ${pct(r.best_f1.bev['0.3']?.f1)} | ${r.counts.gt_boxes} |`;
  });
  return [head, sep, ...lines].join('\n');
}

/** DTC figures, one row per report. */
export function dtcMarkdownTable(rows: readonly NamedReport[]): string {
  const head = '| | frames | \\|DTC err\\| mean (m) | p95 (m) | phantom braking | missed obstacle |';
  const sep = '|---|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    ({ name, report: { dtc: d } }) =>
      `| ${name} | ${d.frames} | ${m(d.mean_abs_err_m)} | ${m(d.p95_abs_err_m)} | ${pct(d.phantom_rate)}% | ${pct(d.missed_rate)}% |`,
  );
  return [head, sep, ...lines].join('\n');
}
