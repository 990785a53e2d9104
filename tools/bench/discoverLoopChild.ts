// The machine's own parallel ceiling for scaleout_discover (forked by scaleout.bench.ts): one process runs
// `discover` in-process over the logs it is given, after a warm-up log, starting when the parent says 'go'.
import { runCommandInProcess } from '../scaleout/runCommand.ts';

/** Sent by the parent: the logs to run, then (after 'ready') 'go'. Replies: 'ready', then the loop's time. */
export interface LoopChildStart {
  logs: string[];
  warmupLog: string;
}

process.once('message', (start: LoopChildStart) => {
  void (async () => {
    // Warm-up: module load, JIT and the first allocations are not the per-job cost being compared.
    await runCommandInProcess('discover', ['--log', start.warmupLog]);
    process.once('message', () => {
      void (async () => {
        const t0 = performance.now();
        const cpu0 = process.cpuUsage();
        for (const l of start.logs) await runCommandInProcess('discover', ['--log', l]);
        const cpu = process.cpuUsage(cpu0);
        process.send!({ seconds: (performance.now() - t0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 }, () =>
          process.exit(0),
        );
      })();
    });
    process.send!('ready');
  })();
});
