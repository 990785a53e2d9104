// `drivekit worker --redis <url>`: run scale-out jobs (discover, detect, eval, sim, … one per input) from
// a BullMQ queue on Redis until stopped; SIGINT/SIGTERM let running jobs finish first.
import type { Command } from 'commander';
import { DEFAULT_SCALEOUT_CONFIG as DEF } from '../scaleout/config.ts';
import { checkRedis, parseRedisUrl, redactRedisUrl } from '../scaleout/connection.ts';
import { JOB_COMMANDS } from '../scaleout/jobCommands.ts';
import { startWorker } from '../scaleout/worker.ts';
import { intOption } from '../numberOption.ts';

interface WorkerCliOptions {
  redis: string;
  concurrency: number;
  queue: string;
  root?: string[];
  lockMs: number;
  stalledMs: number;
}

const collect = (v: string, acc: string[]) => [...acc, v];

export function register(program: Command): void {
  program
    .command('worker')
    .description(
      `run scale-out jobs from a Redis queue (commands: ${Object.keys(JOB_COMMANDS).join(', ')}); stop with Ctrl-C`,
    )
    .requiredOption(
      '--redis <url>',
      'redis://host:port or rediss:// (TLS); password in the URL or REDISCLI_AUTH',
    )
    .option('--concurrency <n>', 'jobs at once, each in its own process', intOption('--concurrency', 1), 1)
    .option('--queue <name>', 'queue to take jobs from', DEF.queue)
    .option(
      '--root <dir>',
      'directory jobs may read and write, repeatable (default: the current directory)',
      (v: string, acc: string[] | undefined) => collect(v, acc ?? []),
    )
    .option(
      '--lock-ms <ms>',
      "job lock; a dead worker's job is taken over after about this long",
      intOption('--lock-ms', 100),
      DEF.lockDurationMs,
    )
    .option(
      '--stalled-ms <ms>',
      'how often to look for jobs of dead workers',
      intOption('--stalled-ms', 100),
      DEF.stalledIntervalMs,
    )
    .action(async (opts: WorkerCliOptions) => {
      const connection = parseRedisUrl(opts.redis);
      await checkRedis(connection, opts.redis);
      const roots = opts.root ?? [process.cwd()];
      const worker = startWorker({
        connection,
        config: { ...DEF, queue: opts.queue, lockDurationMs: opts.lockMs, stalledIntervalMs: opts.stalledMs },
        concurrency: opts.concurrency,
        roots,
      });
      await worker.waitUntilReady();
      process.stderr.write(
        `worker ready: ${redactRedisUrl(opts.redis)} queue ${opts.queue}, concurrency ${opts.concurrency}, roots ${roots.join(', ')}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.stderr.write('worker stopping: finishing running jobs\n');
          void worker.close().then(resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
