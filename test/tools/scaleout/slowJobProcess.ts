// A stand-in for a BullMQ job process whose worker dies (its parent exits at once, as under SIGKILL):
// 'late': the worker is gone before this process has loaded tools/scaleout/processor.ts (a running job
// keeps it alive); 'busy': the worker dies while a job that never yields to the event loop is running.
const mode = process.argv[2];
if (mode === 'late') {
  setInterval(() => {}, 1000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await import('../../../tools/scaleout/processor.ts');
} else {
  await import('../../../tools/scaleout/processor.ts');
  process.send!('loaded');
  const t0 = Date.now();
  while (Date.now() - t0 < 20_000) {
    // A CPU-bound job: no timer, no IPC event runs in this thread until it ends.
  }
}
