// `drivekit stage record --in <endpoint> --out <log> --source-log-id <id>`: writes one source's SensorFrame
// messages to a log (LogWriter, all-or-nothing) in source frame order until its end-of-stream or
// SIGINT/SIGTERM, then commits; nothing valid within --timeout-s is an error.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { batchToSensorFrame } from '../../core/arrow/codec.ts';
import { InputError } from '../../core/errors.ts';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import { StageFatalError } from '../../core/stream/stageRunner.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { formatRanges, RecordLedger } from './recordLedger.ts';
import { addTimeoutOption, firstFrameTimeout } from './recorderOptions.ts';
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
  sourceLogId?: string;
  eosCount: number;
  reportEvery: number;
  timeoutS: number;
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
    .option(
      '--source-log-id <id>',
      "record only this source log's frames (required, unless the input connects with --curve-server-key: then the sender's $bos names it)",
    )
    .option('--eos-count <n>', 'end-of-stream markers to wait for (one per producer)', intOption(1), 1)
    .option('--report-every <n>', 'print a progress line every n frames (0: never)', intOption(0), 0);
  addTimeoutOption(cmd);
  addStreamOptions(cmd).action(async (opts: RecordOptions) => {
    if (fs.existsSync(path.join(opts.out, 'meta.json')) && !opts.force) {
      throw new InputError(opts.out, 'a log already exists here (pass --force to replace it)');
    }
    const endpoint = parseEndpoint(opts.in, 'in');
    // The source is fixed before anything arrives: by the command, or by the $bos of a CURVE server this
    // recorder connects to (the only peer that can send on such a socket, authenticated by its key).
    const announced = !opts.sourceLogId && endpoint.mode === 'connect' && !!opts.curveServerKey;
    if (!opts.sourceLogId && !announced)
      throw new InputError(
        '--source-log-id',
        'is required: the source a recording accepts is fixed by the command (or by the $bos of a CURVE server the input connects to with --curve-server-key)',
      );
    const ledger = new RecordLedger({
      logId: opts.sourceLogId ?? null,
      producers: opts.eosCount,
      lossy: endpoint.kind === 'sub',
    });
    const timeout = firstFrameTimeout(opts.timeoutS, () =>
      ledger.sourceLogId ? `no frame of source ${ledger.sourceLogId}` : 'no $bos naming a source',
    );
    const say = (line: string) => process.stderr.write(`record: ${line}\n`);
    const saidOnce = new Set<string>();
    const once = (kind: string, line: string) => {
      if (!saidOnce.has(kind)) say(`${line}; further ones are only counted`);
      saidOnce.add(kind);
    };
    let sent: number | null = null;
    // The writer opens at the first frame, which says the source's rate; LogWriter keeps a reference
    // to `extra`, so what the ledger found lands in meta.json on close.
    let writer: LogWriter | null = null;
    const extra: Record<string, unknown> = { recordedFrom: endpoint.url };
    const open = (rateHz?: number) =>
      LogWriter.create(opts.out, {
        source: 'stream',
        logId: opts.logId,
        rateHz,
        overwrite: opts.force,
        extra,
      });

    let result;
    try {
      result = await runCliStage(
        {
          name: 'record',
          input: { endpoint, kind: 'sensorFrame', topics: opts.topic, eosCount: opts.eosCount },
          failSignal: timeout.signal,
          onBos: (bos) => {
            if (announced && ledger.announce(bos))
              say(`source ${bos.logId} (topic '${bos.topic}') from its $bos`);
          },
          onEos: (eos) => {
            const { ends, note } = ledger.endOfStream(eos);
            if (note) say(note);
            if (ends) sent = eos.messages;
            return ends;
          },
          transform: (batch, ctx) => {
            const frame = batchToSensorFrame(batch, `message ${ctx.index}`);
            const verdict = ledger.accept(frame.logId, ctx.topic, frame.frameIndex);
            if (!verdict.ok) {
              once(
                verdict.why,
                verdict.why === 'duplicate'
                  ? `dropped frame ${frame.frameIndex}, already recorded (a restarted sender?)`
                  : `refused a frame of another source (log ${frame.logId}, topic '${ctx.topic}')`,
              );
              return null;
            }
            try {
              if (!writer) {
                const rate = Number(batch.schema.metadata.get(RATE_KEY));
                writer = open(rate > 0 ? rate : undefined);
              }
              writer.appendFrame(frame);
            } catch (e) {
              // The log cannot be written (a full disk, a bad --out): stop, commit nothing.
              throw new StageFatalError((e as Error).message);
            }
            ledger.appended(frame.frameIndex);
            timeout.satisfied();
            if (opts.reportEvery > 0 && writer.frameCount % opts.reportEvery === 0)
              say(`${writer.frameCount} frames`);
            return null;
          },
        },
        opts,
      );
    } catch (e) {
      (writer as LogWriter | null)?.abort();
      throw e instanceof StageFatalError ? new Error(e.message) : e;
    } finally {
      timeout.dispose();
    }
    const r = ledger.report();
    Object.assign(extra, {
      sourceLogId: r.sourceLogId,
      sourceTopic: r.sourceTopic,
      sourceFrameIndex: r.frames,
      missingFrames: r.missing,
      duplicateFrames: r.duplicates,
      refusedOtherSource: r.otherSource,
      complete: r.complete,
    });
    const w: LogWriter = writer ?? open();
    const meta = await w.close(ledger.order());
    if (r.missing.length) say(`missing source frames ${formatRanges(r.missing)}`);
    if (r.duplicates.length) say(`dropped repeated source frames ${formatRanges(r.duplicates)}`);
    if (r.otherSource) say(`refused ${r.otherSource} frame(s) of other sources`);
    printSummary(
      {
        stage: 'record',
        log: opts.out,
        frames: meta.frameCount,
        gaps: r.missing.length,
        missing: r.missing,
        duplicates: r.duplicates,
        refused: r.otherSource,
        sent,
        sourceLogId: r.sourceLogId,
        complete: r.complete,
        ...resultSummary(result),
      },
      opts.json,
    );
  });
}
