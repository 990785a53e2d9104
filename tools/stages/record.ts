// `drivekit stage record --in <endpoint> --out <log>`: writes received SensorFrame messages to a log
// (LogWriter, atomic) until end-of-stream or SIGINT/SIGTERM, then commits the frames it has.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { batchToSensorFrame } from '../../core/arrow/codec.ts';
import { InputError } from '../../core/errors.ts';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import type { EndOfStream } from '../../core/stream/message.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { RATE_KEY } from './replay.ts';
import {
  addStreamOptions,
  intOption,
  printSummary,
  resultSummary,
  runCliStage,
  type StreamCliOptions,
} from './streamOptions.ts';

interface RecordOptions extends StreamCliOptions {
  in: string;
  out: string;
  topic: string[];
  force?: boolean;
  logId?: string;
  eosCount: number;
  reportEvery: number;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function register(stage: Command): void {
  const cmd = stage
    .command('record')
    .description('write received SensorFrame messages to a log until end-of-stream or a signal')
    .requiredOption('--in <endpoint>', 'input endpoint (pull or sub; connects by default)')
    .requiredOption('--out <log>', 'log directory to write')
    .option('--topic <prefix>', 'sub: topic prefix to subscribe to (repeatable; default all)', collect, [])
    .option('--force', 'replace an existing log at --out')
    .option('--log-id <id>', 'log id of the new log (default: its directory name)')
    .option('--eos-count <n>', 'end-of-stream markers to wait for (one per producer)', intOption(1), 1)
    .option('--report-every <n>', 'print a progress line every n frames (0: never)', intOption(0), 0);
  addStreamOptions(cmd).action(async (opts: RecordOptions) => {
    if (fs.existsSync(path.join(opts.out, 'meta.json')) && !opts.force) {
      throw new InputError(opts.out, 'a log already exists here (pass --force to replace it)');
    }
    const endpoint = parseEndpoint(opts.in, 'in');
    // The writer opens at the first frame, which says the source's rate; LogWriter keeps a reference
    // to `extra`, so the source frame indices collected below land in meta.json on close.
    let writer: LogWriter | null = null;
    const sourceFrameIndex: number[] = [];
    const extra: Record<string, unknown> = { recordedFrom: endpoint.url, sourceFrameIndex };
    const open = (rateHz?: number) =>
      LogWriter.create(opts.out, {
        source: 'stream',
        logId: opts.logId,
        rateHz,
        overwrite: opts.force,
        extra,
      });
    let lastEos: EndOfStream | null = null;

    let result;
    try {
      result = await runCliStage(
        {
          name: 'record',
          input: { endpoint, kind: 'sensorFrame', topics: opts.topic, eosCount: opts.eosCount },
          onEos: (eos) => (lastEos = eos),
          transform: (batch, ctx) => {
            const frame = batchToSensorFrame(batch, `message ${ctx.index}`);
            if (!writer) {
              const rate = Number(batch.schema.metadata.get(RATE_KEY));
              extra.sourceLogId = frame.logId;
              writer = open(rate > 0 ? rate : undefined);
            }
            writer.appendFrame(frame);
            sourceFrameIndex.push(frame.frameIndex);
            if (opts.reportEvery > 0 && writer.frameCount % opts.reportEvery === 0) {
              process.stderr.write(`record: ${writer.frameCount} frames\n`);
            }
            return null;
          },
        },
        opts,
      );
    } catch (e) {
      (writer as LogWriter | null)?.abort();
      throw e;
    }
    const w: LogWriter = writer ?? open();
    const meta = await w.close();
    let gaps = 0;
    for (let i = 1; i < sourceFrameIndex.length; i++)
      if (sourceFrameIndex[i] !== sourceFrameIndex[i - 1] + 1) gaps++;
    const sent = (lastEos as EndOfStream | null)?.messages ?? null;
    if (sent !== null && sent > meta.frameCount) {
      process.stderr.write(`record: the sender sent ${sent} messages, ${meta.frameCount} were recorded\n`);
    }
    printSummary(
      { stage: 'record', log: opts.out, frames: meta.frameCount, gaps, sent, ...resultSummary(result) },
      opts.json,
    );
  });
}
