// The pipeline bench's offline reference in a fresh process (forked by pipeline.bench.ts): the same
// read → discover → record calls as `inProcess`, started cold like each stage process, with its flags.
import { inProcess } from './pipeline.bench.ts';

/** Sent by the parent: the log to read and the boxes file to write. Reply: inProcess's figures. */
export interface InProcessChildStart {
  logDir: string;
  outFile: string;
}

process.once('message', (start: InProcessChildStart) => {
  void (async () => {
    const cpu0 = process.cpuUsage();
    const r = await inProcess(start.logDir, start.outFile);
    const cpu = process.cpuUsage(cpu0);
    process.send!({ ...r, cpuS: (cpu.user + cpu.system) / 1e6 }, () => process.exit(0));
  })();
});
