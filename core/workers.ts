// Worker threads that run TypeScript modules: the worker inherits the tsx loader, so a stage can
// spread a hot loop over all cores with `new Worker(tsWorker(url))` whatever way the process started.
import os from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const tsxLoader = import.meta.resolve('tsx');

/** Start a worker on a .ts module URL with the TypeScript loader registered. */
export function startTsWorker(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  return new Worker(moduleUrl, {
    ...options,
    execArgv: [...(options.execArgv ?? []), '--import', tsxLoader],
  });
}

/** Cores available to this process (at least 1). */
export function coreCount(): number {
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}
