// `drivekit verify <log>`: checks every file of a log against its manifest.json (size, full CRC32C, damaged
// frame batches named), unlisted files and the log's structure; exit 1 naming each problem (docs/reliability.md).
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { verifyLog } from '../../datasets/logVerify.ts';
import { addLogInput, logInput, printJson } from '../cliOptions.ts';

const mb = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`;

export function register(program: Command): void {
  const cmd = program
    .command('verify')
    .description(
      'check a log against its manifest.json: every file’s size and CRC32C, unlisted files, structure (exit 1 on any problem)',
    );
  addLogInput(cmd)
    .option('--seal', 'a log written before manifests: check its structure, then write its manifest.json')
    .option('--json', 'print the report as one JSON object (snake_case keys, docs/cli.md)')
    .addHelpText(
      'after',
      '\nA log without manifest.json (written before manifests) fails: only its structure can be checked\n' +
        '(every frame is decoded); --seal then records its files as they are now.',
    )
    .action(
      async (positional: string | undefined, opts: { log?: string; seal?: boolean; json?: boolean }) => {
        const dir = logInput(positional, opts);
        const r = await verifyLog(dir, { seal: opts.seal });
        if (opts.json) {
          printJson({ ok: r.problems.length === 0, ...r });
        } else {
          const lines = [
            `log       ${r.log}`,
            `manifest  ${r.manifest ? (r.sealed ? 'written now (--seal)' : 'yes') : 'none'}`,
          ];
          if (r.frames !== null) lines.push(`frames    ${r.frames}`);
          for (const f of r.files) {
            lines.push(
              `${f.problem ? 'BAD' : 'ok '}  ${f.name.padEnd(28)} ${mb(f.bytes).padStart(9)}  ${f.group ?? '-'}`,
            );
          }
          if (r.restored)
            lines.push('restored  the previous log, which an interrupted --force had moved aside');
          if (r.cleaned.length) lines.push(`cleaned   ${r.cleaned.length} leftover(s) of killed writers`);
          for (const p of r.problems) lines.push(`problem   ${p}`);
          process.stdout.write(lines.join('\n') + '\n');
        }
        if (r.problems.length) {
          const more = r.problems.length > 1 ? ` (and ${r.problems.length - 1} more)` : '';
          throw new InputError(dir, `does not verify: ${r.problems[0].replace(`${dir}: `, '')}${more}`);
        }
      },
    );
}
