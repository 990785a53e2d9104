// The Markdown of a run folder that has no report.md of its own: what `drivekit sim`, `selftrain`,
// `longtail` or an evaluation folder of logs wrote, as tables, for `drivekit report <dir>` (docs/cli.md).
import fs from 'node:fs';
import path from 'node:path';

/** The kinds of run folder recognised, each by the file that marks it. */
export const RUN_KINDS = {
  sim: 'metrics_summary.csv (drivekit sim)',
  selftrain: 'results.json with rounds (drivekit selftrain)',
  longtail: '<kind>/longtail.json (drivekit longtail)',
  logs: 'logs (folders with meta.json, e.g. an evaluation folder)',
} as const;

export type RunKind = keyof typeof RUN_KINDS;

const cell = (v: unknown): string => {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  return String(v).replace(/\|/g, '\\|');
};

function table(head: string[], rows: unknown[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, j) => (j === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

const readJson = (file: string): unknown => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
};

function simSection(dir: string): string | null {
  const csvFile = path.join(dir, 'metrics_summary.csv');
  if (!fs.existsSync(csvFile)) return null;
  const [header, ...lines] = fs.readFileSync(csvFile, 'utf8').trim().split('\n');
  const head = header.split(',');
  const rows = lines.map((l) =>
    l.split(',').map((c) => (c !== '' && Number.isFinite(Number(c)) ? Number(c) : c)),
  );
  const meta = readJson(path.join(dir, 'metrics.json')) as {
    agents?: string;
    rollouts?: number;
    scenarios?: number;
    wosac?: { meta_metric?: number };
  } | null;
  const facts = meta
    ? `Agents **${cell(meta.agents)}**, ${cell(meta.scenarios)} scenario(s) × ${cell(meta.rollouts)} rollout(s); Sim Agents realism meta-metric ${cell(meta.wosac?.meta_metric)}.`
    : '';
  return `## Simulation\n\n${facts}\n\nRates are fractions (0–1); ADE/FDE in metres. Open a rollout with \`npx drivekit view ${dir}\`.\n\n${table(head, rows)}`;
}

/** BEV AP entries of a self-training row as `BEV@<iou> <range>` → AP (fraction), in their order. */
type ApTable = Record<string, Record<string, Record<string, { ap: number | null }>>>;
function bevAp(ap: ApTable | undefined): [string, number | null][] {
  return Object.entries(ap?.bev ?? {}).flatMap(([iou, ranges]) =>
    Object.entries(ranges).map(([range, e]): [string, number | null] => [`BEV@${iou} ${range}`, e.ap]),
  );
}

function selftrainSection(dir: string): string | null {
  const r = readJson(path.join(dir, 'results.json')) as {
    rounds?: unknown;
    rows?: { method: string; round: number; set: string; ap?: ApTable; counts?: { frames: number } }[];
  } | null;
  if (!r || !Array.isArray(r.rows) || r.rounds === undefined) return null;
  const cols = [...new Set(r.rows.flatMap((row) => bevAp(row.ap).map(([k]) => k)))];
  return `## Self-training\n\nAP per round (fractions, BEV IoU by range) on the logs trained on and the held-out ones.\n\n${table(
    ['method', 'round', 'set', 'frames', ...cols],
    r.rows.map((row) => {
      const ap = new Map(bevAp(row.ap));
      return [row.method, row.round, row.set, row.counts?.frames, ...cols.map((k) => ap.get(k))];
    }),
  )}`;
}

function longtailSection(dir: string): string | null {
  const kinds = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'longtail.json')))
    .map((e) => e.name)
    .sort();
  if (kinds.length === 0) return null;
  const reports = kinds.map(
    (k) =>
      readJson(path.join(dir, k, 'longtail.json')) as {
        kind: string;
        count: number;
        rejected: number;
        collision_rate: Record<string, number>;
      },
  );
  const agents = [...new Set(reports.flatMap((r) => Object.keys(r.collision_rate ?? {})))];
  return `## Long-tail scenarios\n\nCollision rate (fraction) of each agent per kind.\n\n${table(
    ['kind', 'count', 'rejected', ...agents.map((a) => `${a} collision`)],
    reports.map((r) => [r.kind, r.count, r.rejected, ...agents.map((a) => r.collision_rate?.[a])]),
  )}`;
}

/**
 * Markdown for a run folder without report.md and the kinds recognised in it, or null when it holds
 * nothing `drivekit report` knows. `hasLogs`: whether logs lie below it (listed by the report itself).
 */
export function runMarkdown(dir: string, hasLogs: boolean): { markdown: string; kinds: RunKind[] } | null {
  const kinds: RunKind[] = [];
  const parts: string[] = [];
  for (const [kind, section] of [
    ['sim', simSection],
    ['selftrain', selftrainSection],
    ['longtail', longtailSection],
  ] as const) {
    const md = section(dir);
    if (md) {
      kinds.push(kind);
      parts.push(md);
    }
  }
  if (hasLogs) kinds.push('logs');
  if (kinds.length === 0) return null;
  const images = fs
    .readdirSync(dir)
    .filter((n) => /\.(png|svg|jpe?g)$/i.test(n))
    .sort()
    .map((n) => `![${n}](${encodeURI(n)})`);
  if (images.length) parts.push(`## Pictures\n\n${images.join('\n\n')}`);
  return {
    markdown: `# ${path.basename(path.resolve(dir))}: ${kinds.join(', ')} run\n\n${parts.join('\n\n')}\n`,
    kinds,
  };
}
