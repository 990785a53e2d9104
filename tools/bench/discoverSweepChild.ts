// discover_sweep's timing in a fresh process (forked by perception.bench.ts) that loads what `drivekit
// discover` loads for it: discovery and the sweep reader, not every benchmark module (an 80 MB heap of them
// made the same loop ~2 ms a sweep slower in the bench's own process).
import { discoverSweep, sweepBuffers } from '../../perception/discover.ts';
import { kittiSweep } from './kittiSweep.ts';

/** Sent by the parent: timed sweeps, warm-up sweeps, and batches of 10 sweeps timed on the CPU clock. */
export interface DiscoverChildStart {
  reps: number;
  warmup: number;
  cpuBatches: number;
}

/** Reply: wall ms per sweep (each timed run) and CPU ms per sweep (each batch), and the boxes found. */
export interface DiscoverChildResult {
  ms: number[];
  cpuMs: number[];
  boxes: number;
  points: number;
}

process.once('message', (start: DiscoverChildStart) => {
  const pts = kittiSweep();
  // As `drivekit discover` and the stage run it: per-point arrays reused from sweep to sweep.
  const buffers = sweepBuffers();
  const discover = () => discoverSweep(pts, undefined, 0, buffers);
  for (let i = 0; i < start.warmup; i++) discover();
  const ms: number[] = [];
  for (let i = 0; i < start.reps; i++) {
    const t = process.hrtime.bigint();
    discover();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const cpuMs: number[] = [];
  for (let b = 0; b < start.cpuBatches; b++) {
    const t = process.cpuUsage();
    for (let i = 0; i < 10; i++) discover();
    const d = process.cpuUsage(t);
    cpuMs.push((d.user + d.system) / 1000 / 10);
  }
  const reply: DiscoverChildResult = { ms, cpuMs, boxes: discover().stats.boxes, points: pts.x.length };
  process.send!(reply, () => process.exit(0));
});
