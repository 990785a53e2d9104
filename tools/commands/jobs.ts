// `drivekit jobs --redis <url>`: the scale-out queues on a Redis server, their job counts by state, and
// their failed jobs with the input and the one-line error each failed with.
import type { Command } from 'commander';
import { checkRedis, parseRedisUrl } from '../scaleout/connection.ts';
import { formatReports, reportQueues } from '../scaleout/listJobs.ts';
import { intOption } from '../numberOption.ts';
import { printJson } from '../cliOptions.ts';

export function register(program: Command): void {
  program
    .command('jobs')
    .description('list scale-out queues, job counts by state and failed jobs with their errors')
    .requiredOption(
      '--redis <url>',
      'redis://host:port or rediss:// (TLS); password in the URL or REDISCLI_AUTH',
    )
    .option('--queue <name>', 'only this queue (default: every queue on the server)')
    .option('--failures <n>', 'failed jobs listed per queue (default: 20)', intOption('--failures', 0), 20)
    .option('--json', 'print the queues as one JSON array')
    .action(async (opts: { redis: string; queue?: string; failures: number; json?: boolean }) => {
      const connection = parseRedisUrl(opts.redis);
      await checkRedis(connection, opts.redis);
      const reports = await reportQueues(connection, opts.queue, opts.failures);
      if (opts.json) printJson(reports);
      else process.stdout.write(formatReports(reports) + '\n');
    });
}
