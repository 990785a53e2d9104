// `drivekit demo`: the main job — every stage in turn on the embedded synthetic default (and the
// real samples in ../shared/data), then a markdown report of what each produced.
import path from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import type { DemoContext } from '../demo/context.ts';
import { DEMO_STEPS } from '../demo/steps.ts';
import { makeDirs } from '../../core/dirs.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { writeHtmlReport } from '../report/htmlReport.ts';

export function register(program: Command): void {
  program
    .command('demo')
    .description('run the whole loop on the embedded synthetic default and write a report')
    .option('--out <dir>', 'output folder', 'out/demo')
    .option('--quick', 'tiny settings (for tests and CI)')
    .option('--steps <names>', 'comma-separated subset of steps to run')
    .action(async (opts: { out: string; quick?: boolean; steps?: string }) => {
      makeDirs(opts.out);
      const ctx: DemoContext = {
        outDir: opts.out,
        quick: !!opts.quick,
        logs: new Map(),
        report: [],
        figures: {},
      };
      const only = opts.steps?.split(',').map((s) => s.trim());
      const steps = DEMO_STEPS.filter((s) => !only || only.some((o) => s.name.includes(o)));
      const t0 = Date.now();
      for (const [i, step] of steps.entries()) {
        process.stderr.write(`\n[${i + 1}/${steps.length}] ${step.name}\n`);
        const t = Date.now();
        await step.run(ctx);
        process.stderr.write(`    done in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
      }
      const report =
        `# drivekit demo report\n\nGenerated ${new Date().toISOString()} in ${((Date.now() - t0) / 1000).toFixed(1)} s.\n\n` +
        ctx.report.map((s) => `## ${s.title}\n\n${s.body}\n`).join('\n');
      const reportPath = path.join(opts.out, 'report.md');
      writeFileAtomicSync(reportPath, report);
      process.stdout.write(
        '\n' + ctx.report.map((s) => `== ${s.title}\n${s.body.replace(/```\n?/g, '')}`).join('\n\n') + '\n',
      );
      // The same as one page (pictures inlined, the shipped models' training curves, a viewer command per log).
      const html = writeHtmlReport(opts.out, { curveRoots: [path.join(REPO_ROOT, 'models')] });
      process.stdout.write(
        `\nreport: ${reportPath}\nreport.html: ${path.relative(process.cwd(), html.file)}\n`,
      );
    });
}
