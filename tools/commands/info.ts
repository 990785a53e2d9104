// `drivekit info --log <log>` (or `drivekit info <log>`): what a log holds — frames, points per frame, duration,
// extent, labels — once every file matches the manifest; --json prints it with snake_case keys (docs/cli.md).
import type { Command } from 'commander';
import { LogReader } from '../../datasets/logstore.ts';
import { checkLogContents } from '../../datasets/logVerify.ts';
import { logSummary, formatLogSummary } from '../report/logSummary.ts';
import { addLogInput, logInput, printJson } from '../cliOptions.ts';

export function register(program: Command): void {
  const cmd = program
    .command('info')
    .description('summarise a log: frames, points per frame, duration, spatial extent, labels');
  addLogInput(cmd)
    .option('--json', 'print one JSON object (snake_case keys, docs/cli.md)')
    .action(async (positional: string | undefined, opts: { log?: string; json?: boolean }) => {
      const dir = logInput(positional, opts);
      const log = await LogReader.open(dir);
      try {
        // A summary of a log is only worth having when the log is intact: every listed file in full.
        checkLogContents(dir);
        const s = logSummary(log);
        if (opts.json) printJson(s);
        else process.stdout.write(formatLogSummary(s) + '\n');
      } finally {
        await log.close();
      }
    });
}
