// Metric tables of simulation rollouts: one row per scenario plus the mean, as a plain-text table for
// the terminal and a markdown table for reports, with NaN shown as "n/a".
import type { ScenarioMetrics } from '../../simulation/metrics/scenarioMetrics.ts';

export const METRIC_COLUMNS = [
  ['agents', 'agents', 0],
  ['collision_rate', 'collision', 3],
  ['offroad_rate', 'offroad', 3],
  ['red_light_rate', 'red light', 3],
  ['infeasible_rate', 'infeasible', 3],
  ['ade_m', 'ADE m', 2],
  ['fde_m', 'FDE m', 2],
  ['progress', 'progress', 3],
] as const;
// Realism is one number, the Sim Agents meta-metric (wosac/score.ts), shown in its own table.

type Row = { scenario: string } & Omit<ScenarioMetrics, 'scenario'>;

function cell(v: number, digits: number): string {
  return Number.isFinite(v) ? v.toFixed(digits) : 'n/a';
}

/** Rows of cells: header, one line per row, then the mean (when given). */
export function metricCells(
  rows: readonly Row[],
  mean?: Omit<ScenarioMetrics, 'scenario'>,
  first = 'scenario',
): string[][] {
  const header = [first, ...METRIC_COLUMNS.map((c) => c[1])];
  const line = (name: string, r: Omit<ScenarioMetrics, 'scenario'>) => [
    name,
    ...METRIC_COLUMNS.map(([k, , d]) => cell(r[k] as number, d)),
  ];
  return [header, ...rows.map((r) => line(r.scenario, r)), ...(mean ? [line('mean', mean)] : [])];
}

export function formatMetricTable(rows: readonly Row[], mean: Omit<ScenarioMetrics, 'scenario'>): string {
  const cells = metricCells(rows, mean);
  const widths = cells[0].map((_, j) => Math.max(...cells.map((r) => r[j].length)));
  return cells
    .map((r) => r.map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join('  '))
    .join('\n');
}

export function markdownMetricTable(
  rows: readonly Row[],
  mean?: Omit<ScenarioMetrics, 'scenario'>,
  first = 'scenario',
): string {
  const cells = metricCells(rows, mean, first);
  const head = `| ${cells[0].join(' | ')} |\n|${cells[0].map((_, j) => (j === 0 ? '---' : '---:')).join('|')}|`;
  return [head, ...cells.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** JSON with NaN/±Infinity written as null (JSON has no NaN). */
export function jsonWithNulls(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}
