// A scale-out worker: a BullMQ Worker on the queue whose jobs run in sandboxed child processes (one per
// concurrent job), so a crashing or CPU-bound command never stops the worker renewing its job locks.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Worker } from 'bullmq';
import { InputError } from '../../core/errors.ts';
import { CheckedWorker } from './checkedJob.ts';
import { ROOTS_ENV, type ScaleoutConfig, WORKER_PID_ENV } from './config.ts';
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
// Beside the processor, with its extension (the sources' .ts, or a compiled tree's .js).
const GUARD = pathToFileURL(PROCESSOR.replace(/processor(\.[cm]?[jt]s)$/, 'jobProcessGuard$1')).href;

export function startWorker(opts: WorkerOptions): Worker {
  if (!(Number.isInteger(opts.concurrency) && opts.concurrency >= 1))
    throw new InputError('--concurrency', 'must be a whole number ≥ 1');
  const roots = opts.roots.map((r) => path.resolve(r));
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const { config } = opts;
  const worker = new CheckedWorker(config.queue, PROCESSOR, {
    connection: opts.connection,
    concurrency: opts.concurrency,
    lockDuration: config.lockDurationMs,
    stalledInterval: config.stalledIntervalMs,
    maxStalledCount: config.maxStalledCount,
    workerForkOptions: {
      // From source the job processes load the TypeScript through tsx, as bin/drivekit.js does (from the
      // compiled tree, dist/, they need no loader); first of all they load the guard that stops them when
      // this worker is gone.
      execArgv: [
        ...(PROCESSOR.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : []),
        '--import',
        GUARD,
      ],
      env: { ...process.env, [ROOTS_ENV]: JSON.stringify(roots), [WORKER_PID_ENV]: String(process.pid) },
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
