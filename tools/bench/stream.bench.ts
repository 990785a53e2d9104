// Stream benchmarks: 120k-point SensorFrames as Arrow messages between two processes over ipc:// and
// tcp://127.0.0.1, beside raw ZeroMQ messages of the same size measured in the same run.
//
// stream_raw_*: the same frames' message bytes as plain buffers, cycled as the Arrow rows cycle them
//   (zeromq.js sends them without copying; the receiver reads one byte). One buffer sent again and again
//   stays in the caches and made raw look faster than any real stream. stream_arrow_*: the same
//   SensorFrames' IPC message bytes, built once per frame and sent the same way; the receiver decodes (zero-copy), validates the schema and parses the
//   frame metadata of every message. stream_arrow_encode_each_*: the sender also builds every message
//   anew (wrap the typed arrays, encode into a fresh buffer), the cost a live producer pays per frame.
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Push } from 'zeromq';
import { sensorFrameToBatch } from '../../core/arrow/codec.ts';
import { allocatePointCloud, type SensorFrame } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { batchMessage, eosMessage } from '../../core/stream/message.ts';
import { type Benchmark, type Figure } from './benchmark.ts';
import { median } from '../../core/stats.ts';
import type { PeerResult, PeerRun } from './streamPeer.ts';

/**
 * Settings (defaults: 120k points, 1,000 timed + 20 warm-up messages, 5 alternating repetitions; 15 of 300
 * spread the pairs 0.69–1.52 on the 2-core VM, docs/streams.md). Each Arrow run is also compared with the
 * raw run just before it.
 */
export const STREAM_BENCH = {
  pointsPerFrame: 120_000,
  messages: 1000,
  warmup: 20,
  reps: 5,
  hwm: 32,
  /** Distinct frames cycled through (so the receiver does not see one buffer only). */
  distinct: 4,
};

type Mode = 'raw' | 'arrow' | 'arrow_encode_each';
const MODES: readonly Mode[] = ['raw', 'arrow', 'arrow_encode_each'];

const here = path.dirname(fileURLToPath(import.meta.url));

/** HDL-64E-like sweeps: rings of points around the sensor. */
function makeFrames(count: number, n: number): SensorFrame[] {
  return Array.from({ length: count }, (_, k) => {
    const p = allocatePointCloud(n);
    for (let i = 0; i < n; i++) {
      const ring = i % 64;
      const az = (i / n) * 2 * Math.PI;
      const r = 5 + ring * 1.2 + ((i * 7919 + k) % 100) / 100;
      p.x[i] = r * Math.cos(az);
      p.y[i] = r * Math.sin(az);
      p.z[i] = -1.7 + ring * 0.05;
      p.intensity[i] = ((i * 31) % 100) / 100;
      p.ring[i] = ring;
      p.tOffset[i] = (i / n) * 0.1;
    }
    return {
      logId: 'bench',
      frameIndex: k,
      timestampNs: BigInt(k) * 100_000_000n,
      pose: poseFromTranslationYaw(k, 0, 0, 0.1 * k),
      points: p,
    };
  });
}

interface PeerReply {
  address?: string;
  result?: PeerResult;
  error?: string;
}

interface RunResult extends PeerResult {
  /** Sender: time building messages, per message (encode-each mode). */
  encodeMs: number;
  /** Sender: garbage-collection pauses per message. */
  sendGcMs: number;
}

/** The forked receiver process; one for the whole benchmark, one PULL socket per run. */
class Peer {
  private constructor(private readonly child: ChildProcess) {}

  static start(): Peer {
    const script = path.join(here, 'streamPeer.ts');
    return new Peer(fork(script, [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' }));
  }

  private next(): Promise<PeerReply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`stream peer exited (${code})`));
      this.child.once('exit', onExit);
      this.child.once('message', (m) => {
        this.child.off('exit', onExit);
        resolve(m as PeerReply);
      });
    });
  }

  async run(cfg: PeerRun, send: (push: Push) => Promise<number>): Promise<RunResult> {
    const ready = this.next();
    this.child.send(cfg);
    const r = await ready;
    if (r.error) throw new Error(r.error);
    const push = new Push({ sendHighWaterMark: cfg.hwm, linger: 5000 });
    push.connect(r.address!);
    const done = this.next();
    let gcMs = 0;
    const gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcMs += e.duration;
    });
    gc.observe({ entryTypes: ['gc'] });
    const encodeMs = await send(push);
    const out = await done;
    gc.disconnect();
    push.close();
    if (out.error || !out.result) throw new Error(out.error ?? 'no result');
    return { ...out.result, encodeMs, sendGcMs: gcMs / (cfg.warmup + out.result.messages) };
  }

  stop(): void {
    this.child.send('exit');
  }
}

export const benchmarks: Benchmark[] = [
  {
    names: [
      'stream_raw_ipc',
      'stream_arrow_ipc',
      'stream_arrow_encode_each_ipc',
      'stream_raw_tcp',
      'stream_arrow_tcp',
      'stream_arrow_encode_each_tcp',
    ],
    async run(emit) {
      const { pointsPerFrame, messages, warmup, reps, hwm, distinct } = STREAM_BENCH;
      const frames = makeFrames(distinct, pointsPerFrame);
      const built = frames.map((f) => batchMessage('frames', sensorFrameToBatch(f)));
      const messageBytes = built[0][1].byteLength;
      const total = warmup + messages;

      const senders: Record<Mode, (push: Push) => Promise<number>> = {
        raw: async (push) => {
          for (let i = 0; i < total; i++) await push.send(['frames', built[i % distinct][1]]);
          await push.send(eosMessage('frames', total));
          return 0;
        },
        arrow: async (push) => {
          for (let i = 0; i < total; i++) await push.send(built[i % distinct]);
          await push.send(eosMessage('frames', total));
          return 0;
        },
        arrow_encode_each: async (push) => {
          let encodeNs = 0n;
          for (let i = 0; i < total; i++) {
            const t = process.hrtime.bigint();
            const msg = batchMessage(
              'frames',
              sensorFrameToBatch({ ...frames[i % distinct], frameIndex: i }),
            );
            if (i >= warmup) encodeNs += process.hrtime.bigint() - t;
            await push.send(msg);
          }
          await push.send(eosMessage('frames', total));
          return Number(encodeNs) / 1e6 / messages;
        },
      };

      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-bench-stream-'));
      const peer = Peer.start();
      try {
        for (const transport of ['ipc', 'tcp'] as const) {
          const runs: Record<Mode, RunResult[]> = { raw: [], arrow: [], arrow_encode_each: [] };
          // Alternate the modes so that all of them see the same machine load.
          for (let r = 0; r < reps; r++) {
            for (const mode of MODES) {
              const url = transport === 'ipc' ? `ipc://${dir}/${r}-${mode}.sock` : 'tcp://127.0.0.1:*';
              const peerMode = mode === 'raw' ? 'raw' : 'arrow';
              const res = await peer.run({ url, mode: peerMode, warmup, hwm }, senders[mode]);
              if (res.messages !== messages || res.bad !== 0) {
                throw new Error(
                  `stream bench ${mode}/${transport}: got ${res.messages}/${messages}, ${res.bad} bad`,
                );
              }
              runs[mode].push(res);
            }
          }
          const fps = (mode: Mode) => median(runs[mode].map((x) => x.messages / x.seconds));
          const rawFps = fps('raw');
          for (const mode of MODES) {
            const f = fps(mode);
            const figure: Figure = {
              name: `stream_${mode}_${transport}`,
              frames_per_s: +f.toFixed(1),
              mb_per_s: +((f * messageBytes) / 1e6).toFixed(1),
              message_bytes: messageBytes,
              points_per_frame: pointsPerFrame,
              messages,
              reps,
              hwm,
              recv_gc_ms_per_frame: +median(runs[mode].map((x) => x.gcMs)).toFixed(3),
            };
            if (mode !== 'raw') {
              figure.ratio_to_raw = +(f / rawFps).toFixed(3);
              // Each run against the raw run just before it (same transport, seconds apart).
              const pairs = runs[mode].map(
                (x, r) => x.messages / x.seconds / (runs.raw[r].messages / runs.raw[r].seconds),
              );
              figure.ratio_pairs_median = +median(pairs).toFixed(3);
              figure.ratio_pairs_min = +Math.min(...pairs).toFixed(3);
              figure.ratio_pairs_max = +Math.max(...pairs).toFixed(3);
              figure.decode_ms_per_frame = +median(runs[mode].map((x) => x.decodeMs)).toFixed(3);
            }
            if (mode === 'arrow_encode_each') {
              figure.encode_ms_per_frame = +median(runs[mode].map((x) => x.encodeMs)).toFixed(3);
              figure.send_gc_ms_per_frame = +median(runs[mode].map((x) => x.sendGcMs)).toFixed(3);
            }
            emit(figure);
          }
        }
      } finally {
        peer.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
