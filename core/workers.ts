// Worker threads that run TypeScript modules: the worker inherits the tsx loader, so a stage can
// spread a hot loop over all cores with `startTsWorker(url)` whether it runs from source or from dist/.
import os from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const tsxApi = import.meta.resolve('tsx/esm/api');

/**
 * Start a worker on a .ts module URL with the TypeScript loader registered. A `--import tsx` exec argument is
 * not applied inside worker threads on Node 20, so a tiny bootstrap registers tsx and then imports the module.
 * In the compiled tree (dist/) the URL names the compiled .js file, which starts as it is, without tsx.
 */
export function startTsWorker(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  if (moduleUrl.pathname.endsWith('.js')) return new Worker(moduleUrl, options);
  const bootstrap =
    `import(${JSON.stringify(tsxApi)})` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(moduleUrl.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** Cores available to this process (at least 1). */
export function coreCount(): number {
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}
