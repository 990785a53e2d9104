// `drivekit stage record-boxes --in <endpoint> --out <file.arrow>`: the Boxes sink of a pipeline — each
// source frame's Boxes exactly once, in frame order, into one Arrow file (as `drivekit discover` / `detect`).
import fs from 'node:fs';
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
import { toRanges } from './recordLedger.ts';
import {
  addStreamOptions,
  intOption,
  printSummary,
  resultSummary,
  runCliStage,
  type StreamCliOptions,
} from './streamOptions.ts';

interface RecordBoxesOptions extends StreamCliOptions {
  in: string;
  out: string;
  tracks?: string;
  log?: string;
  config?: string;
  frames?: [number, number];
  journal?: string;
  metadata?: string;
  events?: boolean;
  delayMs: number;
  eosCount: number;
  force?: boolean;
  publish?: string;
  publishTopic: string;
}

/** `a:b` → [a, b): the source frames this sink must end with. */
export function frameRange(v: string): [number, number] {
  const m = /^(\d+):(\d+)$/.exec(v.trim());
  if (!m || Number(m[1]) > Number(m[2]))
    throw new InputError('--frames', `'${v}' is not start:end (start ≤ end)`);
  return [Number(m[1]), Number(m[2])];
}

/** Source frames of [start, end) not in `have`, as inclusive ranges. */
export function missingRanges(have: ReadonlySet<number>, start: number, end: number): [number, number][] {
  const miss: number[] = [];
  for (let i = start; i < end; i++) if (!have.has(i)) miss.push(i);
  return toRanges(miss);
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
    .option(
      '--frames <start:end>',
      'the source frames to end with: an end-of-stream before all came is waited past',
      frameRange,
    )
    .option('--journal <file>', 'append each accepted frame here and resume from it after a restart')
    .option('--metadata <json>', 'schema metadata of the written file (e.g. {"model":"detector.onnx"})')
    .option('--events', 'print one JSON line per accepted frame and per wait on stdout (for a supervisor)')
    .option(
      '--delay-ms <ms>',
      'wait this long per message: a slow consumer (back-pressure tests)',
      intOption(0),
      0,
    )
    .option('--eos-count <n>', 'end-of-stream markers to wait for (one per producer)', intOption(1), 1)
    .option('--force', 'replace existing output files')
    .option(
      '--publish <endpoint>',
      "also publish each accepted frame's Boxes here (PUB, lossy: for a viewer)",
    )
    .option(
      '--publish-topic <topic>',
      'topic of the published Boxes (a viewer names the box set by it)',
      'boxes',
    );
  addStreamOptions(cmd).action(async (opts: RecordBoxesOptions) => {
    if (opts.tracks && !opts.log)
      throw new InputError('--tracks', 'needs --log (the poses and times to track with)');
    for (const f of [opts.out, opts.tracks]) {
      if (f && fs.existsSync(f) && !opts.force)
        throw new InputError(f, 'exists (pass --force to replace it)');
    }
    let metadata: Record<string, string> = {};
    if (opts.metadata) {
      try {
        metadata = JSON.parse(opts.metadata) as Record<string, string>;
      } catch {
        throw new InputError('--metadata', 'is not a JSON object');
      }
    }
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
    let sourceLogId: string | null = null;
    let duplicates = 0;
    let refused = 0;
    const journal = opts.journal ? new BoxJournal(opts.journal) : null;
    if (journal) {
      for (const { logId, frameIndex, boxes } of journal.readBack()) {
        sourceLogId ??= logId;
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
        onEos: () => {
          if (!opts.frames || complete()) return true;
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
          if (sourceLogId !== null && logId !== sourceLogId) {
            refused++;
            return null;
          }
          sourceLogId = logId;
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
    );
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
