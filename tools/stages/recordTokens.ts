// `drivekit stage record-tokens --in <endpoint> --out <tokens.arrow> [--forecast <file>]`: the world-model sink
// of a pipeline — each frame's Tokens (and forecast) once, in frame order, as `drivekit tokenize` writes them.
import type { Command } from 'commander';
import type { RecordBatch } from 'apache-arrow';
import { batchToPointCloud, batchToTokens, tokensToBatch } from '../../core/arrow/codec.ts';
import type { TokenGrid } from '../../core/arrow/records.ts';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import { StageFatalError } from '../../core/stream/stageRunner.ts';
import { writeLogArrowFile } from '../../datasets/logstore.ts';
import { type ForecastRecord, writeForecastFile } from '../../worldmodel/forecastFile.ts';
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
  intOption,
  printSummary,
  resultSummary,
  runCliStage,
  type StreamCliOptions,
} from './streamOptions.ts';

interface RecordTokensOptions extends StreamCliOptions, RecorderCliOptions {
  in: string;
  out: string;
  forecast?: string;
  forecastContext: number;
  forecastMetadata?: string;
}

/** tokens.arrow's schema metadata, in the order `drivekit tokenize` writes it. */
const TOKEN_FILE_KEYS = ['token_m', 'range_m', 'sensor_origin_m', 'model'];

export function register(stage: Command): void {
  const cmd = stage
    .command('record-tokens')
    .description(
      "write received Tokens (and the forecast stage's sweeps) to tokens.arrow (and a forecast file), each frame once and in frame order",
    )
    .requiredOption('--in <endpoint>', 'input endpoint (pull or sub; connects by default)')
    .requiredOption('--out <tokens.arrow>', 'token grids of every frame, as `drivekit tokenize` writes them')
    .option('--forecast <file.arrow>', "also write the forecast stage's sweeps (one per start frame)")
    .option(
      '--forecast-context <n>',
      'frames at the start of --frames with too little past for a forecast (none is awaited for them)',
      intOption(0),
      0,
    )
    .option('--forecast-metadata <json>', 'schema metadata of the forecast file');
  addStreamOptions(addRecorderOptions(cmd, 'accepted batch')).action(async (opts: RecordTokensOptions) => {
    refuseExisting(
      [opts.out, opts.forecast].filter((f): f is string => !!f),
      opts.force,
    );
    const forecastMeta = jsonMetadata(opts.forecastMetadata, '--forecast-metadata');
    const endpoint = parseEndpoint(opts.in, 'in');
    const event = (e: Record<string, unknown>) => {
      if (opts.events) process.stdout.write(JSON.stringify(e) + '\n');
    };
    const say = (line: string) => process.stderr.write(`record-tokens: ${line}\n`);

    const grids = new Map<number, TokenGrid>();
    const forecasts = new Map<number, ForecastRecord>();
    let tokenMeta: Record<string, string> | null = null;
    const sourceLogId = requireSource(opts.sourceLogId);
    const tally = new EosTally(opts.eosCount, endpoint.kind === 'sub');
    const timeout = firstFrameTimeout(opts.timeoutS, () => `nothing of source ${sourceLogId}`);
    let duplicates = 0;
    let refused = 0;
    const done = new Set<number>();
    const firstForecast = (opts.frames?.[0] ?? 0) + opts.forecastContext;
    // A frame is recorded once its Tokens are and, where a forecast is due, its forecast too.
    const isDone = (f: number) => grids.has(f) && (!opts.forecast || f < firstForecast || forecasts.has(f));

    /** Take one batch: false when it is a repeat or another log's. */
    const take = (batch: RecordBatch): { frame: number; isNew: boolean } | null => {
      const meta = batch.schema.metadata;
      const logId = meta.get('log_id') ?? '';
      if (logId !== sourceLogId) {
        refused++;
        return null;
      }
      const schema = meta.get('drivekit.schema') ?? '';
      if (schema.startsWith('tokens/')) {
        const gs = batchToTokens(batch, 'record-tokens input');
        if (gs.length !== 1) throw new Error(`a Tokens batch of ${gs.length} frames (a stage sends one)`);
        const g = gs[0];
        if (grids.has(g.frameIndex)) return { frame: g.frameIndex, isNew: false };
        tokenMeta ??= Object.fromEntries(TOKEN_FILE_KEYS.map((k) => [k, meta.get(k) ?? '']));
        grids.set(g.frameIndex, g);
        return { frame: g.frameIndex, isNew: true };
      }
      const start = Number(meta.get('start_frame'));
      if (!Number.isSafeInteger(start) || start < 0)
        throw new Error('neither Tokens nor a forecast sweep with a start_frame in its metadata');
      if (forecasts.has(start)) return { frame: start, isNew: false };
      const pc = batchToPointCloud(batch, 'record-tokens forecast');
      forecasts.set(start, {
        startFrame: start,
        targetFrame: Number(meta.get('target_frame')),
        horizonS: Number(meta.get('horizon_s')),
        rays: 'nominal',
        points: { x: pc.x, y: pc.y, z: pc.z },
      });
      return { frame: start, isNew: true };
    };

    const journal = opts.journal ? new BoxJournal(opts.journal) : null;
    if (journal) {
      for (const b of journal.readBatches()) take(b);
      for (const f of grids.keys()) if (isDone(f)) done.add(f);
      if (grids.size) say(`resumed ${grids.size} frame(s) from ${opts.journal}`);
      event({ event: 'resumed', frames: [...done] });
    }
    const missingNow = () => (opts.frames ? missingRanges(done, ...opts.frames) : []);
    let commitPartial = false;
    process.on('SIGUSR2', () => {
      commitPartial = true;
      process.kill(process.pid, 'SIGTERM');
    });

    const result = await runCliStage(
      {
        name: 'record-tokens',
        input: { endpoint, eosCount: opts.eosCount },
        failSignal: timeout.signal,
        onEos: (eos) => {
          if (eos.logId !== undefined && eos.logId !== sourceLogId) return false;
          // Without a frame range, a marker ends the recording only if it claims what came.
          if (!opts.frames) {
            const c = tally.agrees(eos.messages, !eos.complete);
            if (c.note) say(c.note);
            return c.ok && eos.complete && grids.size > 0;
          }
          if (missingNow().length === 0) return true;
          event({ event: 'waiting', missing: missingNow() });
          return false;
        },
        transform: async (batch) => {
          if (opts.delayMs > 0) await new Promise((r) => setTimeout(r, opts.delayMs));
          const got = take(batch);
          if (!got) return null;
          tally.frame();
          timeout.satisfied();
          if (!got.isNew) {
            duplicates++;
            return null;
          }
          try {
            journal?.append(batch);
          } catch (e) {
            throw new StageFatalError((e as Error).message);
          }
          if (!done.has(got.frame) && isDone(got.frame)) {
            done.add(got.frame);
            event({ event: 'ack', frame: got.frame });
          }
          return null;
        },
      },
      opts,
    ).finally(() => timeout.dispose());
    const missing = missingNow();
    const written = (missing.length === 0 || commitPartial) && grids.size > 0;
    const order = [...grids.keys()].sort((a, b) => a - b);
    if (written) {
      writeLogArrowFile(opts.out, [
        tokensToBatch(
          order.map((i) => grids.get(i)!),
          tokenMeta!,
        ),
      ]);
      if (opts.forecast) {
        const recs = [...forecasts.keys()].sort((a, b) => a - b).map((i) => forecasts.get(i)!);
        await writeForecastFile(opts.forecast, recs, forecastMeta);
      }
      journal?.remove();
    } else {
      say(`stopped with frames missing (${JSON.stringify(missing)}): nothing written`);
    }
    printSummary(
      {
        stage: 'record-tokens',
        file: written ? opts.out : null,
        forecast: written ? (opts.forecast ?? null) : null,
        frames: order.length,
        forecasts: forecasts.size,
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
