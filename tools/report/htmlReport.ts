// report.html: one self-contained page from a run folder — its report.md (metric tables, BEV pictures, the
// synthetic-vs-real comparison) with every image inlined as a data: URI, training curves, and the logs.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { curvesSvg, type CurveSeries } from '../../simulation/training/curves.ts';
import { escapeHtml, renderMarkdown } from './markdown.ts';
import { RUN_KINDS, runMarkdown, type RunKind } from './runMarkdown.ts';

/** Settings of the HTML report (`drivekit report`). */
export interface HtmlReportConfig {
  /** The Markdown report inside the folder. */
  markdown: string;
  /** Where the page is written, relative to the folder (an `out` argument is relative to the working directory). */
  out: string;
  /** How deep below the folder to look for logs (a folder with meta.json) and training logs. */
  searchDepth: number;
  /** Series of a training log that are drawn (keys of its lines), in this order; others are left out. */
  curveKeys: string[];
  /** At most this many points a series (evenly thinned): curves stay small in the page. */
  maxCurvePoints: number;
}

export const DEFAULT_HTML_REPORT_CONFIG: HtmlReportConfig = {
  markdown: 'report.md',
  out: 'report.html',
  // The demo's logs sit at most two levels down (out/demo/eval-real/av2); one more for a run's own folders.
  searchDepth: 3,
  // The tokenizer's, the world model's and the agents' logged figures (train-log.jsonl, agent.json curve).
  curveKeys: [
    'loss',
    'depthL1M',
    'perplexity',
    'scoredAccuracy',
    'ce',
    'return',
    'collision',
    'offroad',
    'lambda',
  ],
  // More points than a 560-pixel-wide panel can show only make the page heavier.
  maxCurvePoints: 400,
};

const MIME: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
};

const dataUri = (mime: string, bytes: Uint8Array) =>
  `data:${mime};base64,${Buffer.from(bytes).toString('base64')}`;

/** Folders (up to `depth` below `root`, skipping hidden ones) for which `keep` holds. */
function walk(root: string, depth: number, keep: (dir: string, names: string[]) => void): void {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return;
  }
  keep(root, names);
  if (depth <= 0) return;
  for (const n of names.sort()) {
    if (n.startsWith('.') || n === 'node_modules') continue;
    const p = path.join(root, n);
    if (fs.statSync(p, { throwIfNoEntry: false })?.isDirectory()) walk(p, depth - 1, keep);
  }
}

export interface LogEntry {
  dir: string;
  frames: number | null;
  source: string | null;
}

/** The drivekit logs under `root` (folders with meta.json), in path order. */
export function findLogs(root: string, depth: number): LogEntry[] {
  const logs: LogEntry[] = [];
  walk(root, depth, (dir, names) => {
    if (!names.includes('meta.json') || !names.includes('frames.arrow')) return;
    let meta: { frameCount?: number; source?: string } = {};
    try {
      meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    } catch {
      // A log whose meta.json does not parse is still listed; the viewer will name the problem.
    }
    logs.push({ dir, frames: meta.frameCount ?? null, source: meta.source ?? null });
  });
  return logs;
}

/** Training logs in `roots`: JSONL lines with a `step`, or an agent.json / curve.json with a curve. */
export function findTrainingLogs(roots: readonly string[], depth: number): string[] {
  const found: string[] = [];
  const isTrainLog = (n: string) => n === 'train-log.jsonl' || n.endsWith('.train-log.jsonl');
  for (const r of roots) {
    const st = fs.statSync(r, { throwIfNoEntry: false });
    if (!st) throw new InputError(r, 'no such file or directory');
    if (st.isFile()) found.push(r);
    else
      walk(r, depth, (dir, names) => {
        for (const n of names.sort())
          if (isTrainLog(n) || n === 'agent.json' || n === 'curve.json') found.push(path.join(dir, n));
      });
  }
  return [...new Set(found.map((f) => path.resolve(f)))];
}

/** A training log's series (`x` = step or iteration), thinned to `maxPoints`; empty when it has none. */
export function trainingSeries(file: string, cfg: HtmlReportConfig): { x: string; series: CurveSeries[] } {
  const text = fs.readFileSync(file, 'utf8');
  let rows: Record<string, unknown>[];
  if (file.endsWith('.jsonl')) {
    rows = text
      .split('\n')
      .filter((l) => l.trim())
      .flatMap((l, k) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          throw new InputError(file, `line ${k + 1} is not JSON`);
        }
      });
  } else {
    let j: unknown;
    try {
      j = JSON.parse(text);
    } catch (e) {
      throw new InputError(file, `not valid JSON (${(e as Error).message})`);
    }
    rows = Array.isArray(j) ? j : ((j as { curve?: Record<string, unknown>[] }).curve ?? []);
  }
  const x = rows.some((r) => typeof r.iteration === 'number') ? 'iteration' : 'step';
  const series: CurveSeries[] = [];
  for (const key of cfg.curveKeys) {
    const pts: [number, number][] = [];
    for (const r of rows)
      if (typeof r[x] === 'number' && typeof r[key] === 'number' && Number.isFinite(r[key]))
        pts.push([r[x] as number, r[key] as number]);
    if (pts.length < 2) continue;
    const stride = Math.ceil(pts.length / cfg.maxCurvePoints);
    series.push({ name: key, points: pts.filter((_, k) => k % stride === 0 || k === pts.length - 1) });
  }
  return { x, series };
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #ddd}h2{border-bottom:1px solid #eee;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:0.9em}th,td{border:1px solid #ccc;padding:3px 8px}
th{background:#f3f3f3}tbody tr:nth-child(even){background:#fafafa}
pre{background:#f6f8fa;padding:0.8em;overflow-x:auto;font-size:0.85em}code{font-size:0.92em}
img{max-width:100%;border:1px solid #eee}nav ul{columns:2}.missing{color:#a00}
.log{margin:0.4em 0}.log code{background:#f3f3f3;padding:1px 4px}`;

/** The table of contents after the page's title (the first h1), or first when there is none. */
function withToc(html: string, nav: string): string {
  const k = html.startsWith('<h1') ? html.indexOf('</h1>') : -1;
  return k < 0 ? `${nav}\n${html}` : `${html.slice(0, k + 5)}\n${nav}${html.slice(k + 5)}`;
}

export interface HtmlReportResult {
  file: string;
  bytes: number;
  images: number;
  missingImages: string[];
  curves: number;
  logs: number;
  /** What the page was made from: 'report.md', or the run kinds recognised in a folder without one. */
  from: 'report.md' | RunKind[];
}

/**
 * Write `dir`/report.html from `dir`/report.md, training logs found in `dir` and in `curveRoots`, and the
 * logs under `dir`. Images are inlined; only files inside `dir` are read for them.
 */
export function writeHtmlReport(
  dir: string,
  opts: { curveRoots?: readonly string[]; out?: string; config?: Partial<HtmlReportConfig> } = {},
): HtmlReportResult {
  const cfg = { ...DEFAULT_HTML_REPORT_CONFIG, ...opts.config };
  const mdFile = path.join(dir, cfg.markdown);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new InputError(dir, 'no such run folder');
  const logs = findLogs(dir, cfg.searchDepth);
  // A folder without report.md (sim, selftrain, longtail, a folder of logs) is described from its files.
  const run = fs.existsSync(mdFile) ? null : runMarkdown(dir, logs.length > 0);
  if (!fs.existsSync(mdFile) && !run)
    throw new InputError(
      dir,
      `nothing to report: no ${cfg.markdown} (drivekit demo) and none of ${Object.values(RUN_KINDS).join('; ')}`,
    );
  const mdText = run ? run.markdown : fs.readFileSync(mdFile, 'utf8');
  const root = path.resolve(dir);
  let images = 0;
  const missing: string[] = [];
  const image = (src: string): string | null => {
    if (/^[a-z]+:/i.test(src)) {
      // Anything with a scheme would be fetched by the browser: the page must stand alone.
      missing.push(src);
      return null;
    }
    const file = path.resolve(root, src);
    const mime = MIME[path.extname(file).toLowerCase()];
    if (!mime || !file.startsWith(root + path.sep) || !fs.existsSync(file)) {
      missing.push(src);
      return null;
    }
    images++;
    return dataUri(mime, fs.readFileSync(file));
  };
  const md = renderMarkdown(mdText, { image });

  const sections: { id: string; title: string; html: string }[] = [];
  const trainLogs = findTrainingLogs([dir, ...(opts.curveRoots ?? [])], cfg.searchDepth);
  const curves: string[] = [];
  for (const f of trainLogs) {
    const { x, series } = trainingSeries(f, cfg);
    if (!series.length) continue;
    const name = path.relative(process.cwd(), f) || f;
    const svg = curvesSvg(name, x, series);
    curves.push(
      `<figure><img src="${dataUri(MIME['.svg'], Buffer.from(svg))}" alt="training curves of ${escapeHtml(name)}"></figure>`,
    );
  }
  if (curves.length)
    sections.push({
      id: 'training-curves',
      title: 'Training curves',
      html: `<p>The logged figures of each training run found (models used by this run and runs in this folder).</p>\n${curves.join('\n')}`,
    });

  if (logs.length) {
    const items = logs.map((l) => {
      const rel = path.relative(process.cwd(), l.dir) || '.';
      const href = path.relative(root, l.dir).split(path.sep).map(encodeURIComponent).join('/') || '.';
      const facts = [l.frames !== null ? `${l.frames} frames` : null, l.source].filter(Boolean).join(', ');
      // An MCAP export beside the log (drivekit export --format mcap) opens in Foxglove Studio as it is.
      const mcap = fs.existsSync(`${l.dir}.mcap`)
        ? ` · <a href="${escapeHtml(href)}.mcap">${escapeHtml(path.basename(l.dir))}.mcap</a> for Foxglove Studio`
        : '';
      return `<li class="log"><a href="${escapeHtml(href)}/">${escapeHtml(path.basename(l.dir))}</a>${facts ? ` (${escapeHtml(facts)})` : ''} — open in the viewer: <code>npx drivekit view ${escapeHtml(rel)}</code>${mcap}</li>`;
    });
    sections.push({
      id: 'logs',
      title: 'Logs',
      html: `<p>Each log of this run; the viewer serves it on localhost (a page cannot start it: run the command).</p>\n<ul>${items.join('')}</ul>`,
    });
  }

  const toc = [...md.sections, ...sections].map(
    (s) => `<li><a href="#${s.id}">${escapeHtml(s.title.replace(/`/g, ''))}</a></li>`,
  );
  const title = /^#\s+(.*)$/m.exec(mdText)?.[1] ?? 'drivekit report';
  const html =
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head><body>\n` +
    withToc(md.html, `<nav><ul>${toc.join('')}</ul></nav>`) +
    '\n' +
    sections.map((s) => `<h2 id="${s.id}">${escapeHtml(s.title)}</h2>\n${s.html}`).join('\n') +
    `\n</body></html>\n`;
  const file = opts.out ? path.resolve(opts.out) : path.resolve(root, cfg.out);
  writeFileAtomicSync(file, html);
  return {
    file,
    bytes: Buffer.byteLength(html),
    images,
    missingImages: missing,
    curves: curves.length,
    logs: logs.length,
    from: run ? run.kinds : 'report.md',
  };
}
