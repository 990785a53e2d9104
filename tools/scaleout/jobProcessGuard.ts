// Loaded first in every job process the worker forks (node --import): the process ends as soon as its
// worker is gone, from its first moment and even while a job keeps its event loop busy.
import { Worker } from 'node:worker_threads';
import { WORKER_PID_ENV } from './config.ts';

// A worker killed (SIGKILL, machine lost) left its job process running with no parent, 20–60 % CPU for as
// long as the job took: a job that awaits only settled promises never lets timers or the disconnect event
// run, and BullMQ's SIGTERM handler waits for the job. A watchdog thread has an event loop of its own; it
// checks the parent every 200 ms and SIGKILLs this process (outputs are atomic; the job's new owner is
// then the only one writing them).
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.workerPid) process.kill(process.pid, 'SIGKILL');
}, 200);
`;

const workerPid = Number(process.env[WORKER_PID_ENV]);
if (process.send && workerPid > 0) {
  if (process.ppid !== workerPid || !process.connected) process.exit(137);
  process.on('disconnect', () => process.exit(137));
  new Worker(WATCHDOG, { eval: true, workerData: { workerPid } }).unref();
}
