// `drivekit stage record-boxes --in <endpoint> --out <file.arrow>`: the Boxes sink of a pipeline — each
// source frame's Boxes exactly once, in frame order, into one Arrow file (as `drivekit discover` / `detect`).
import type { Command } from 'commander';
import { batchToBoxes } from '../../core/arrow/codec.ts';
import { type Boxes, concatBoxes } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import { batchMessage } from '../../core/stream/message.ts';
import { DEFAULT_SOCKET_CONFIG, openOutput } from '../../core/stream/sockets.ts';
import { StageFatalError } from '../../core/stream/stageRunner.ts';
import { writeBoxesFile } from '../../datasets/logFiles.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { logSequence, resolvePipelineConfig } from '../../perception/discoverLog.ts';
import { refineTracks } from '../../perception/refine.ts';
import { trackBoxes } from '../../perception/track.ts';
import { readPipelineConfig } from '../commands/discover.ts';
import { BoxJournal } from './boxJournal.ts';
import { EosTally } from './recordLedger.ts';
import {
  addRecorderOptions,
  firstFrameTimeout,
  jsonMetadata,
  missingRanges,
  type RecorderCliOptions,
  requireSource,
} from './recorderOptions.ts';
import { refuseExisting } from '../cliOptions.ts';
import {
  addStreamOptions,
  printSummary,
  resultSummary,
  runCliStage,
  type StreamCliOptions,
} from './streamOptions.ts';

interface RecordBoxesOptions extends StreamCliOptions, RecorderCliOptions {
  in: string;
  out: string;
  tracks?: string;
  log?: string;
  config?: string;
  metadata?: string;
  publish?: string;
  publishTopic: string;
}

export function register(stage: Command): void {
  const cmd = stage
    .command('record-boxes')
    .description(
      'write received Boxes messages to an Arrow file, each source frame once and in frame order; with --tracks, track and refine them as `drivekit discover` does',
    )
    .requiredOption('--in <endpoint>', 'input endpoint (pull or sub; connects by default)')
    .requiredOption('--out <file.arrow>', 'Boxes of every frame, in frame order')
    .option('--tracks <file.arrow>', 'also write tracked and refined boxes (needs --log for poses and times)')
    .option('--log <log>', 'the source log (its poses and timestamps, for --tracks)')
    .option('--config <json>', 'tracker/refine overrides, as `drivekit discover --config`')
    .option('--metadata <json>', 'schema metadata of the written file (e.g. {"model":"detector.onnx"})')
    .option(
      '--publish <endpoint>',
      "also publish each accepted frame's Boxes here (PUB, lossy: for a viewer)",
    )
    .option(
      '--publish-topic <topic>',
      'topic of the published Boxes (a viewer names the box set by it)',
      'boxes',
    );
  addStreamOptions(addRecorderOptions(cmd)).action(async (opts: RecordBoxesOptions) => {
    if (opts.tracks && !opts.log)
      throw new InputError('--tracks', 'needs --log (the poses and times to track with)');
    refuseExisting(
      [opts.out, opts.tracks].filter((f): f is string => !!f),
      opts.force,
    );
    // The source is the command's: --source-log-id, else the id of --log (the log the boxes come from).
    let logId: string | undefined;
    if (!opts.sourceLogId && opts.log) {
      const l = await LogReader.open(opts.log);
      logId = l.meta.logId;
      await l.close();
    }
    const source = requireSource(opts.sourceLogId, logId);
    const metadata = jsonMetadata(opts.metadata, '--metadata');
    const pipelineCfg = resolvePipelineConfig(readPipelineConfig(opts.config));
    const endpoint = parseEndpoint(opts.in, 'in');
    const event = (e: Record<string, unknown>) => {
      if (opts.events) process.stdout.write(JSON.stringify(e) + '\n');
    };
    const say = (line: string) => process.stderr.write(`record-boxes: ${line}\n`);
    // The viewer feed: a PUB never waits for a subscriber, so a viewer never holds the recorder back.
    const feed = opts.publish
      ? await openOutput(parseEndpoint(opts.publish, 'out'), { ...DEFAULT_SOCKET_CONFIG, lingerMs: 0 })
      : null;

    // Frames by source index; a restarted sink gets back what its journal holds.
    const frames = new Map<number, Boxes>();
    const sourceLogId = source;
    const tally = new EosTally(opts.eosCount, endpoint.kind === 'sub');
    const timeout = firstFrameTimeout(opts.timeoutS, () => `no Boxes of source ${source}`);
    let duplicates = 0;
    let refused = 0;
    const journal = opts.journal ? new BoxJournal(opts.journal) : null;
    if (journal) {
      for (const { logId, frameIndex, boxes } of journal.readBack()) {
        if (logId !== sourceLogId)
          throw new InputError(opts.journal!, `holds frames of log ${logId}, not of ${sourceLogId}`);
        frames.set(frameIndex, boxes);
      }
      if (frames.size) say(`resumed ${frames.size} frame(s) from ${opts.journal}`);
      event({ event: 'resumed', frames: [...frames.keys()] });
    }
    const complete = () =>
      !!opts.frames && missingRanges(new Set(frames.keys()), ...opts.frames).length === 0;
    // SIGUSR2: stop now and write what came (the supervisor gave up on the rest); SIGTERM writes only a
    // complete result, so an interrupted run leaves no file that looks finished.
    let commitPartial = false;
    process.on('SIGUSR2', () => {
      commitPartial = true;
      process.kill(process.pid, 'SIGTERM');
    });

    const result = await runCliStage(
      {
        name: 'record-boxes',
        input: { endpoint, kind: 'boxes', eosCount: opts.eosCount },
        failSignal: timeout.signal,
        onEos: (eos) => {
          if (eos.logId !== undefined && eos.logId !== sourceLogId) return false;
          // Without a frame range, a marker ends the recording only if it claims what came.
          if (!opts.frames) {
            const c = tally.agrees(eos.messages, !eos.complete);
            if (c.note) say(c.note);
            return c.ok && eos.complete && frames.size > 0;
          }
          if (complete()) return true;
          const missing = missingRanges(new Set(frames.keys()), ...opts.frames);
          event({ event: 'waiting', missing });
          return false;
        },
        transform: async (batch) => {
          if (opts.delayMs > 0) await new Promise((r) => setTimeout(r, opts.delayMs));
          const meta = batch.schema.metadata;
          const frameIndex = Number(meta.get('frame_index'));
          if (!Number.isSafeInteger(frameIndex) || frameIndex < 0)
            throw new Error('Boxes batch without a frame_index in its metadata');
          const logId = meta.get('log_id') ?? '';
          if (logId !== sourceLogId) {
            refused++;
            return null;
          }
          tally.frame();
          timeout.satisfied();
          if (frames.has(frameIndex)) {
            duplicates++;
            return null;
          }
          const boxes = batchToBoxes(batch);
          try {
            journal?.append(batch);
          } catch (e) {
            throw new StageFatalError((e as Error).message);
          }
          frames.set(frameIndex, boxes);
          event({ event: 'ack', frame: frameIndex });
          await feed?.socket.send(batchMessage(opts.publishTopic, batch)).catch(() => undefined);
          return null;
        },
      },
      opts,
    ).finally(() => timeout.dispose());
    feed?.socket.close();
    const order = [...frames.keys()].sort((a, b) => a - b);
    const missing = opts.frames ? missingRanges(new Set(order), ...opts.frames) : [];
    const written = missing.length === 0 || commitPartial;
    let tracks = 0;
    if (written) {
      const detections = concatBoxes(order.map((i) => frames.get(i)!));
      await writeBoxesFile(opts.out, detections, metadata);
      if (opts.tracks) {
        const log = await LogReader.open(opts.log!);
        try {
          const seq = logSequence(log);
          const tracked = trackBoxes(detections, seq, pipelineCfg.tracker);
          const refined = refineTracks(tracked.boxes, seq, pipelineCfg.refine);
          tracks = refined.boxes.cx.length;
          await writeBoxesFile(opts.tracks, refined.boxes);
        } finally {
          await log.close();
        }
      }
      journal?.remove();
    } else {
      say(`stopped with frames missing (${JSON.stringify(missing)}): nothing written`);
    }
    printSummary(
      {
        stage: 'record-boxes',
        file: written ? opts.out : null,
        tracks: written ? (opts.tracks ?? null) : null,
        frames: order.length,
        boxes: order.reduce((s, i) => s + frames.get(i)!.cx.length, 0),
        track_boxes: tracks,
        missing,
        duplicates,
        refused,
        complete: missing.length === 0,
        ...resultSummary(result),
      },
      opts.json,
    );
  });
}
