// `drivekit stage replay --log <log> --out <endpoint>`: publishes a log's sweeps as SensorFrame
// messages (frame_index, timestamp_ns, pose, log_id in the batch metadata) at a rate, then end-of-stream.
import type { RecordBatch } from 'apache-arrow';
import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { pointCloudToBatch, sensorFrameMetadata } from '../../core/arrow/codec.ts';
import { InputError } from '../../core/errors.ts';
import { parseEndpoint, type Endpoint } from '../../core/stream/endpoint.ts';
import { LogReader } from '../../datasets/logstore.ts';
import {
  addStreamOptions,
  intOption,
  numberOption,
  printSummary,
  resultSummary,
  runCliStage,
  type StreamCliOptions,
} from './streamOptions.ts';

interface ReplayOptions extends StreamCliOptions {
  log: string;
  out: string;
  rate?: number;
  topic: string;
  pattern?: 'push' | 'pub';
  subscribers: number;
  start: number;
  end?: number;
}

/** Metadata key with the log's nominal sweep rate, so a recorder can keep it. */
export const RATE_KEY = 'rate_hz';

/** The log's frames [start, end) as SensorFrame batches, paced at `rateHz` (0: as fast as possible). */
export async function* replayFrames(
  log: LogReader,
  rateHz: number,
  signal: AbortSignal,
  start = 0,
  end = log.frameCount,
): AsyncGenerator<RecordBatch> {
  const periodMs = rateHz > 0 ? 1000 / rateHz : 0;
  const t0 = performance.now();
  for (let i = start; i < end && !signal.aborted; i++) {
    // Absolute schedule (t0 + k·period), so a slow frame does not delay all the following ones.
    const waitMs = t0 + (i - start) * periodMs - performance.now();
    if (waitMs > 1) {
      try {
        await sleep(waitMs, undefined, { signal });
      } catch {
        return;
      }
    }
    const frame = await log.readFrame(i);
    yield pointCloudToBatch(frame.points, {
      ...sensorFrameMetadata(frame),
      [RATE_KEY]: String(log.meta.rateHz),
    });
  }
}

function outputEndpoint(spec: string, pattern: 'push' | 'pub' | undefined): Endpoint {
  const endpoint = parseEndpoint(spec, 'out');
  if (!pattern || pattern === endpoint.kind) return endpoint;
  if (/^((bind|connect):)?(push|pub):/.test(spec)) {
    throw new InputError(spec, `--pattern ${pattern} contradicts the endpoint's ${endpoint.kind} prefix`);
  }
  return { ...endpoint, kind: pattern };
}

export function register(stage: Command): void {
  const cmd = stage
    .command('replay')
    .description("publish a log's frames as SensorFrame messages, then an end-of-stream marker")
    .requiredOption('--log <log>', 'log directory to replay')
    .requiredOption('--out <endpoint>', 'output endpoint (push or pub; binds by default)')
    .option(
      '--rate <hz>',
      "frames per second (default: the log's rate; 0 = as fast as possible)",
      numberOption(0),
    )
    .option('--topic <topic>', 'message topic', 'frames')
    .option('--pattern <pattern>', 'push (pipeline, default) or pub (fan-out)', (v) => {
      if (v !== 'push' && v !== 'pub') throw new InputError('--pattern', `'${v}' is not push or pub`);
      return v;
    })
    .option('--subscribers <n>', 'pub: wait for this many subscribers before sending', intOption(0), 1)
    .option('--start <frame>', 'first frame', intOption(0), 0)
    .option('--end <frame>', 'stop before this frame (default: all)', intOption(0));
  addStreamOptions(cmd).action(async (opts: ReplayOptions) => {
    const endpoint = outputEndpoint(opts.out, opts.pattern);
    const log = await LogReader.open(opts.log);
    try {
      const end = Math.min(opts.end ?? log.frameCount, log.frameCount);
      const rateHz = opts.rate ?? log.meta.rateHz;
      const result = await runCliStage(
        {
          name: 'replay',
          source: (signal) => replayFrames(log, rateHz, signal, opts.start, end),
          output: {
            endpoint,
            topic: opts.topic,
            subscribers: endpoint.kind === 'pub' ? opts.subscribers : 0,
            // A recorder checks what it got against what was meant to come (and waits on an early stop).
            eosInfo: { logId: log.meta.logId, start: Math.min(opts.start, end), end },
            // Announced first, so a CURVE-authenticated recorder knows its source before any frame.
            bos: { logId: log.meta.logId, start: Math.min(opts.start, end), end },
          },
        },
        opts,
      );
      printSummary(
        { stage: 'replay', log: opts.log, frames: result.counters.out, ...resultSummary(result) },
        opts.json,
      );
    } finally {
      await log.close();
    }
  });
}
