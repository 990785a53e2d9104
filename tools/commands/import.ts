// `drivekit import <path> --format <fmt> --out <log>`: any supported dataset into a drivekit log.
import type { Command } from 'commander';
import { createProgress } from '../../core/progress.ts';
import { importLog, READERS } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { formatLogSummary, logSummary } from '../report/logSummary.ts';

export function register(program: Command): void {
  program
    .command('import')
    .description('import a dataset into a drivekit log')
    .argument('<path>', 'file or directory of the source dataset')
    .requiredOption('--format <format>', `source format: ${Object.keys(READERS).join(' | ')}`)
    .requiredOption('--out <log>', 'output log directory')
    .option('--poses <file>', 'poses file (KITTI odometry format, 3×4 per line)')
    .option('--rate <hz>', 'sweep rate when the source does not say', parseFloat)
    .option('--force', 'replace an existing log at --out')
    .option('--json', 'print the log summary as one JSON object')
    .action(
      async (
        input: string,
        opts: { format: string; out: string; poses?: string; rate?: number; force?: boolean; json?: boolean },
      ) => {
        await importLog(input, opts.format, opts.out, {
          posesPath: opts.poses,
          rateHz: opts.rate,
          overwrite: opts.force,
          progress: (total) => createProgress('import', total, { silent: opts.json }),
        });
        const log = await LogReader.open(opts.out);
        try {
          const s = logSummary(log);
          process.stdout.write(opts.json ? JSON.stringify(s) + '\n' : formatLogSummary(s) + '\n');
        } finally {
          await log.close();
        }
      },
    );
}
