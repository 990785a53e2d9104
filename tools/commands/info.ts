// `drivekit info --log <log>` (or `drivekit info <log>`): what a log holds — frames, points per frame,
// duration, extent, labels; --json prints the same with snake_case keys (docs/cli.md).
import type { Command } from 'commander';
import { LogReader } from '../../datasets/logstore.ts';
import { logSummary, formatLogSummary } from '../report/logSummary.ts';
import { addLogInput, logInput, printJson } from '../cliOptions.ts';

export function register(program: Command): void {
  const cmd = program
    .command('info')
    .description('summarise a log: frames, points per frame, duration, spatial extent, labels');
  addLogInput(cmd)
    .option('--json', 'print one JSON object (snake_case keys, docs/cli.md)')
    .action(async (positional: string | undefined, opts: { log?: string; json?: boolean }) => {
      const log = await LogReader.open(logInput(positional, opts));
      try {
        const s = logSummary(log);
        if (opts.json) printJson(s);
        else process.stdout.write(formatLogSummary(s) + '\n');
      } finally {
        await log.close();
      }
    });
}
