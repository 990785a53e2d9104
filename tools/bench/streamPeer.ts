// The receiving process of the stream benchmarks (forked by stream.bench.ts): for each run it binds a
// PULL socket, receives raw byte messages or Arrow SensorFrames until end-of-stream, and reports timing.
import { PerformanceObserver } from 'node:perf_hooks';
import { Pull } from 'zeromq';
import { batchToSensorFrame } from '../../core/arrow/codec.ts';
import { parseMessage } from '../../core/stream/message.ts';

export interface PeerRun {
  /** Address to bind (a tcp port may be *). */
  url: string;
  mode: 'raw' | 'arrow';
  /** Messages received before the clock starts (pipeline fill, JIT warm-up). */
  warmup: number;
  hwm: number;
}

export interface PeerResult {
  /** Messages received after warm-up. */
  messages: number;
  bytes: number;
  seconds: number;
  /** Time spent decoding and validating (arrow mode), per message. */
  decodeMs: number;
  /** Garbage-collection pause time in this process during the timed part, per message. */
  gcMs: number;
  /** Arrow mode: messages that failed to decode (must be 0). */
  bad: number;
  /** Sum of the first x of every frame (arrow) or first byte (raw), so no work is optimised away. */
  checksum: number;
}

async function run(cfg: PeerRun): Promise<PeerResult> {
  const pull = new Pull({ receiveHighWaterMark: cfg.hwm, linger: 0 });
  await pull.bind(cfg.url);
  // tcp://127.0.0.1:* binds an ephemeral port; the sender connects to the resolved address.
  process.send!({ ready: true, address: pull.lastEndpoint });
  let seen = 0;
  let messages = 0;
  let bytes = 0;
  let bad = 0;
  let checksum = 0;
  let decodeNs = 0n;
  let start = 0n;
  let last = 0n;
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    if (seen > cfg.warmup) for (const e of list.getEntries()) gcMs += e.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  for (;;) {
    const frames = await pull.receive();
    if (frames.length === 2 && frames[0].toString() === '$eos') break;
    const body = frames[1];
    if (cfg.mode === 'arrow') {
      const t = process.hrtime.bigint();
      const m = parseMessage(frames, 'sensorFrame');
      if (m.type === 'batch') {
        const f = batchToSensorFrame(m.batch);
        checksum += f.points.x[0] + f.points.x[f.points.x.length - 1];
      } else bad++;
      if (seen >= cfg.warmup) decodeNs += process.hrtime.bigint() - t;
    } else {
      checksum += body[0] + body[body.length - 1];
    }
    seen++;
    if (seen === cfg.warmup) start = process.hrtime.bigint();
    else if (seen > cfg.warmup) {
      messages++;
      bytes += body.byteLength;
      last = process.hrtime.bigint();
    }
  }
  pull.close();
  gc.disconnect();
  return {
    messages,
    bytes,
    seconds: Number(last - start) / 1e9,
    decodeMs: messages ? Number(decodeNs) / 1e6 / messages : 0,
    gcMs: messages ? gcMs / messages : 0,
    bad,
    checksum,
  };
}

process.on('message', (msg: PeerRun | 'exit') => {
  if (msg === 'exit') process.exit(0);
  run(msg).then(
    (result) => process.send!({ result }),
    (e: Error) => process.send!({ error: e.message }),
  );
});
