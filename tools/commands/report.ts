// `drivekit report <dir>`: a run folder as one self-contained report.html — its report.md (as `drivekit demo`
// writes it) or, without one, the tables of a sim / selftrain / longtail run; curves, pictures and its logs.
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { addForce, printJson, refuseExisting } from '../cliOptions.ts';
import { DEFAULT_HTML_REPORT_CONFIG, writeHtmlReport } from '../report/htmlReport.ts';

export interface ReportOptions {
  out?: string;
  curves?: string;
  force?: boolean;
  json?: boolean;
}

/** Where `drivekit report <dir>` writes (--out, else <dir>/report.html). */
export const reportTarget = (dir: string, opts: ReportOptions) =>
  opts.out ?? path.join(dir, DEFAULT_HTML_REPORT_CONFIG.out);

export function register(program: Command): void {
  const cmd = program
    .command('report')
    .argument(
      '<dir>',
      'a run folder: a demo (report.md), drivekit sim --out, selftrain --out, longtail --out, or a folder of logs',
    )
    .description('write report.html: one self-contained page of a run (tables, pictures, curves, logs)')
    .option('--out <file>', `the page (default: <dir>/${DEFAULT_HTML_REPORT_CONFIG.out})`)
    .option(
      '--curves <paths>',
      'comma-separated training logs or folders to draw curves from, besides <dir> (e.g. models: what npm start adds)',
    )
    .option('--json', 'print a JSON summary (snake_case keys, docs/cli.md)');
  addForce(cmd, 'an existing page');
  cmd.addHelpText(
    'after',
    `\nImages referenced by report.md are inlined as data: URIs (only files inside <dir>); training curves come from\ntrain-log.jsonl / *.train-log.jsonl / agent.json / curve.json files up to ${DEFAULT_HTML_REPORT_CONFIG.searchDepth} folders deep; every log (a folder\nwith meta.json) is listed with \`npx drivekit view <log>\`. The page loads nothing from the network.`,
  );
  cmd.action((dir: string, opts: ReportOptions) => {
    if (opts.curves !== undefined && !opts.curves.trim())
      throw new InputError('--curves', 'empty: give comma-separated paths');
    refuseExisting(reportTarget(dir, opts), opts.force);
    const r = writeHtmlReport(dir, {
      out: opts.out,
      curveRoots: opts.curves
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    });
    if (opts.json) return printJson(r);
    if (r.missingImages.length)
      process.stderr.write(
        `note: ${r.missingImages.length} image(s) not inlined: ${r.missingImages.join(', ')}\n`,
      );
    process.stdout.write(
      `report: ${path.relative(process.cwd(), r.file) || r.file} from ${r.from === 'report.md' ? 'report.md' : `a ${r.from.join(' + ')} run`} (${(r.bytes / 1e6).toFixed(1)} MB; ${r.images} image(s), ${r.curves} curve chart(s), ${r.logs} log(s))\n`,
    );
  });
}
