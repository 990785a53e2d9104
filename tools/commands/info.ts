// `drivekit info <log>`: what a log holds — frames, points per frame, duration, extent, labels.
import type { Command } from 'commander';
import { LogReader } from '../../datasets/logstore.ts';
import { logSummary, formatLogSummary } from '../report/logSummary.ts';

export function register(program: Command): void {
  program
    .command('info')
    .description('summarise a log: frames, points per frame, duration, spatial extent, labels')
    .argument('<log>', 'log directory')
    .option('--json', 'print one JSON object')
    .action(async (dir: string, opts: { json?: boolean }) => {
      const log = await LogReader.open(dir);
      try {
        const s = logSummary(log);
        process.stdout.write(opts.json ? JSON.stringify(s) + '\n' : formatLogSummary(s) + '\n');
      } finally {
        await log.close();
      }
    });
}
