// A scale-out worker: a BullMQ Worker on the queue whose jobs run in sandboxed child processes (one per
// concurrent job), so a crashing or CPU-bound command never stops the worker renewing its job locks.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'bullmq';
import { InputError } from '../../core/errors.ts';
import { ROOTS_ENV, type ScaleoutConfig } from './config.ts';
import type { RedisConnection } from './connection.ts';

export interface WorkerOptions {
  connection: RedisConnection;
  config: ScaleoutConfig;
  concurrency: number;
  /** Directories jobs may read and write; every path in a payload must lie inside one. */
  roots: string[];
  /** One line per finished job (stderr by default). */
  log?: (line: string) => void;
}

const PROCESSOR = fileURLToPath(new URL('./processor.ts', import.meta.url));

export function startWorker(opts: WorkerOptions): Worker {
  if (!(Number.isInteger(opts.concurrency) && opts.concurrency >= 1))
    throw new InputError('--concurrency', 'must be a whole number ≥ 1');
  const roots = opts.roots.map((r) => path.resolve(r));
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const { config } = opts;
  const worker = new Worker(config.queue, PROCESSOR, {
    connection: opts.connection,
    concurrency: opts.concurrency,
    lockDuration: config.lockDurationMs,
    stalledInterval: config.stalledIntervalMs,
    maxStalledCount: config.maxStalledCount,
    workerForkOptions: {
      // From source the job processes load the TypeScript through tsx, as bin/drivekit.js does;
      // from the compiled tree (dist/) they need no loader.
      execArgv: PROCESSOR.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [],
      env: { ...process.env, [ROOTS_ENV]: JSON.stringify(roots) },
    },
  });
  worker.on('completed', (job) =>
    log(`done    ${job.id} ${job.name} ${String((job.data as { input?: string }).input ?? '')}`),
  );
  worker.on('failed', (job, err) =>
    log(
      `failed  ${job?.id ?? '?'} ${job?.name ?? ''} attempt ${job?.attemptsMade ?? 0}: ${err.message.split('\n')[0]}`,
    ),
  );
  worker.on('error', (err) => log(`worker error: ${err.message.split('\n')[0]}`));
  return worker;
}
