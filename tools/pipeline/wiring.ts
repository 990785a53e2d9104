// How `drivekit pipeline` wires its processes: per stage a branch replay → <stage> → record-boxes, each hop
// a PUSH (connects) → PULL (binds) pair on a unix socket in a temp folder or a fixed loopback TCP port.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { LogReader } from '../../datasets/logstore.ts';
import { Forecaster } from '../../worldmodel/forecasterModel.ts';
import { sensorOrigin } from '../../worldmodel/sweep.ts';
import { SHIPPED_WORLDMODEL } from '../commands/forecast.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { forecastContextFrames } from '../stages/forecast.ts';
import type { PipelineConfig } from './config.ts';
import { makeSocketDir } from './runMarker.ts';

export type Role = 'source' | 'stage' | 'sink';

/** One supervised process: its `drivekit` arguments, given the frame range a replay is to send. */
export interface ProcessSpec {
  /** `<branch>/<role>`, as in logs and the summary. */
  id: string;
  role: Role;
  /** The command's program name, e.g. 'replay', 'discover', 'record-boxes'. */
  program: string;
  argv: (range: { start: number; end: number }) => string[];
}

export interface Branch {
  /** A stage's name, 'tokenize,forecast' for the world-model chain, or 'viewer'. */
  name: string;
  source: ProcessSpec;
  /** The analysis processes in chain order (one for discover / detect). */
  stages: ProcessSpec[];
  sink: ProcessSpec | null;
  /**
   * Frames of history the chain needs before a frame (the forecast's past): a restarted replay or a
   * resend starts this much earlier, so the frame's forecast comes again.
   */
  contextFrames: number;
  /** The files the branch's recorder writes, by kind. */
  files: Record<string, string>;
  /** Where the branch's (first) stage and recorder listen (for injecting messages in tests, or a second producer). */
  endpoints: { stage?: string; sink?: string; viewer?: string };
}

export interface Wiring {
  /** Temp folder of sockets and journals, removed at the end. */
  tmp: string;
  branches: Branch[];
  cleanup(): void;
}

/** Output file names of each stage's recorder: the names `drivekit discover` / `detect` write in a log. */
export const STAGE_FILES: Record<'discover' | 'detect', { boxes: string; tracks?: string }> = {
  discover: { boxes: 'detections.arrow', tracks: 'tracks.arrow' },
  detect: { boxes: 'detector.arrow' },
};

/** The world-model chain's files: tokens as `drivekit tokenize` writes them, the live forecast's sweeps. */
export const WORLD_FILES = { tokens: 'tokens.arrow', forecast: 'forecast.arrow' };

/** A loopback TCP port free right now (the OS picks it; the stage that binds it takes it a moment later). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** The value after `flag` in an argument list, if any. */
const argValue = (args: readonly string[], flag: string): string | undefined => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};

/** Linger and drain of the pipeline's processes (ms): ten minutes stands for 'until delivered'. */
const FLUSH_MS = '600000';

export async function wirePipeline(cfg: PipelineConfig): Promise<Wiring> {
  // Short, so ipc paths stay under Linux's 107-byte limit; named with the pid, so a killed run's is found.
  const tmp = makeSocketDir();
  const url = async (name: string) =>
    cfg.transport === 'ipc' ? `ipc://${tmp}/${name}.sock` : `tcp://127.0.0.1:${await freePort()}`;
  // A stage that has sent its last message exits only once a slower peer has taken everything: its
  // linger and drain are unbounded in practice (the supervisor stops what is left at the end).
  const common = ['--hwm', String(cfg.hwm), '--linger-ms', FLUSH_MS, '--drain-ms', FLUSH_MS, '--json'];
  // Recorders accept only the replayed log's frames; the supervisor's watchdog, not their own first-frame
  // deadline, judges a slow start.
  const source = await LogReader.open(cfg.log);
  const sinkSource = ['--source-log-id', source.meta.logId, '--timeout-s', '0'];
  await source.close();
  const extra = (k: keyof PipelineConfig['stageArgs']) => cfg.stageArgs[k] ?? [];
  const configArgs = cfg.discoverConfig ? ['--config', cfg.discoverConfig] : [];
  const branches: Branch[] = [];
  const replay = (id: string, out: string, more: string[] = []): ProcessSpec => ({
    id,
    role: 'source',
    program: 'replay',
    argv: (r) => [
      'stage',
      'replay',
      '--log',
      cfg.log,
      '--out',
      out,
      '--rate',
      String(cfg.rateHz),
      '--start',
      String(r.start),
      '--end',
      String(r.end),
      ...common,
      ...more,
    ],
  });
  const delay = cfg.stageDelayMs > 0 ? ['--delay-ms', String(cfg.stageDelayMs)] : [];
  // The viewer feed: a forwarder binds SUB (internal) → PUB (--viewer-endpoint); the viewer's replay and
  // every box recorder publish into it, each under its own topic (the viewer names box sets by topic).
  const viewerIn = cfg.viewerEndpoint ? await url('viewer-in') : null;
  const publish = (topic: string) =>
    viewerIn ? ['--publish', `pub:connect:${viewerIn}`, '--publish-topic', topic] : [];
  for (const stage of cfg.stages) {
    if (stage === 'tokenize' || stage === 'forecast') continue;
    const stageIn = await url(`${stage}-in`);
    const sinkIn = await url(`${stage}-rec`);
    const names = STAGE_FILES[stage];
    const files: Record<string, string> = { boxes: path.join(cfg.out, names.boxes) };
    if (names.tracks) files.tracks = path.join(cfg.out, names.tracks);
    const sinkArgs = [
      '--in',
      `pull:bind:${sinkIn}`,
      '--out',
      files.boxes,
      '--journal',
      path.join(tmp, `${stage}.journal`),
      '--events',
      '--delay-ms',
      String(cfg.sinkDelayMs),
      ...(cfg.force ? ['--force'] : []),
      ...publish(stage),
      ...common,
      ...sinkSource,
      ...extra('record-boxes'),
    ];
    if (stage === 'discover') sinkArgs.push('--tracks', files.tracks!, '--log', cfg.log, ...configArgs);
    if (stage === 'detect') {
      // As `drivekit detect` writes it: the model's file name in the schema metadata.
      const model = argValue(extra('detect'), '--model') ?? 'detector.onnx';
      sinkArgs.push('--metadata', JSON.stringify({ model: path.basename(model) }));
    }
    branches.push({
      name: stage,
      files,
      contextFrames: 0,
      endpoints: { stage: stageIn, sink: sinkIn },
      source: replay(`${stage}/replay`, `push:connect:${stageIn}`, extra('replay')),
      stages: [
        {
          id: `${stage}/${stage}`,
          role: 'stage',
          program: stage,
          argv: () => [
            'stage',
            stage,
            '--in',
            `pull:bind:${stageIn}`,
            '--out',
            `push:connect:${sinkIn}`,
            ...(stage === 'discover' ? configArgs : []),
            ...delay,
            ...common,
            ...extra(stage),
          ],
        },
      ],
      sink: {
        id: `${stage}/record-boxes`,
        role: 'sink',
        program: 'record-boxes',
        argv: (r) => ['stage', 'record-boxes', ...sinkArgs, '--frames', `${r.start}:${r.end}`],
      },
    });
  }
  if (cfg.stages.includes('tokenize') || cfg.stages.includes('forecast'))
    branches.push(await worldChain(cfg, tmp, url, common, delay, replay));
  if (cfg.viewerEndpoint && viewerIn) {
    const viewer = cfg.viewerEndpoint;
    branches.push({
      name: 'viewer',
      files: {},
      contextFrames: 0,
      endpoints: { viewer },
      // PUB: a viewer may come and go; frames sent while none listens are dropped, by design.
      source: replay('viewer/replay', `pub:connect:${viewerIn}`),
      stages: [
        {
          id: 'viewer/forward',
          role: 'stage',
          program: 'forward',
          argv: () => ['stage', 'forward', '--in', `sub:bind:${viewerIn}`, '--out', `pub:bind:${viewer}`],
        },
      ],
      sink: null,
    });
  }
  return { tmp, branches, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }) };
}

/** replay → tokenize → forecast → record-tokens (forecast only when named), with the log's rate and origin. */
async function worldChain(
  cfg: PipelineConfig,
  tmp: string,
  url: (name: string) => Promise<string>,
  common: string[],
  delay: string[],
  replay: (id: string, out: string, more?: string[]) => ProcessSpec,
): Promise<Branch> {
  const withForecast = cfg.stages.includes('forecast');
  const extra = (k: keyof PipelineConfig['stageArgs']) => cfg.stageArgs[k] ?? [];
  const log = await LogReader.open(cfg.log);
  const rateHz = log.meta.rateHz;
  const origin = sensorOrigin(log.meta).join(',');
  const sinkSource = ['--source-log-id', log.meta.logId, '--timeout-s', '0'];
  await log.close();
  const tokenizer = argValue(extra('tokenize'), '--model') ?? SHIPPED_TOKENIZER;
  let context = 0;
  let worldModel = '';
  if (withForecast) {
    worldModel = argValue(extra('forecast'), '--model') ?? SHIPPED_WORLDMODEL;
    const fc = await Forecaster.load(worldModel);
    const { past, frameDtS } = fc.config.frames;
    await fc.dispose();
    // As the forecast stage computes its frame step.
    context = forecastContextFrames(past, Math.max(1, Math.round(frameDtS * rateHz)));
  }
  const name = withForecast ? 'tokenize,forecast' : 'tokenize';
  const tokIn = await url('tokenize-in');
  const fcIn = withForecast ? await url('forecast-in') : null;
  const sinkIn = await url('tokens-rec');
  const files: Record<string, string> = { tokens: path.join(cfg.out, WORLD_FILES.tokens) };
  if (withForecast) files.forecast = path.join(cfg.out, WORLD_FILES.forecast);
  const stages: ProcessSpec[] = [
    {
      id: `${name}/tokenize`,
      role: 'stage',
      program: 'tokenize',
      argv: () => [
        'stage',
        'tokenize',
        '--in',
        `pull:bind:${tokIn}`,
        '--out',
        `push:connect:${fcIn ?? sinkIn}`,
        '--sensor-origin',
        origin,
        ...(withForecast ? ['--forward-frames'] : []),
        ...delay,
        ...common,
        ...extra('tokenize'),
      ],
    },
  ];
  if (fcIn)
    stages.push({
      id: `${name}/forecast`,
      role: 'stage',
      program: 'forecast',
      argv: () => [
        'stage',
        'forecast',
        '--in',
        `pull:bind:${fcIn}`,
        '--out',
        `push:connect:${sinkIn}`,
        '--tokens-in',
        '--forward-tokens',
        '--tokenizer',
        tokenizer,
        '--sensor-origin',
        origin,
        '--rate-hz',
        String(rateHz),
        ...delay,
        ...common,
        ...extra('forecast'),
      ],
    });
  const forecastMeta = {
    log: path.resolve(cfg.log),
    model: path.resolve(worldModel),
    poses: 'constant-velocity (live stream)',
  };
  const sinkArgs = [
    ...sinkSource,
    '--in',
    `pull:bind:${sinkIn}`,
    '--out',
    files.tokens,
    '--journal',
    path.join(tmp, 'tokens.journal'),
    '--events',
    '--delay-ms',
    String(cfg.sinkDelayMs),
    ...(withForecast
      ? [
          '--forecast',
          files.forecast,
          '--forecast-context',
          String(context),
          '--forecast-metadata',
          JSON.stringify(forecastMeta),
        ]
      : []),
    ...(cfg.force ? ['--force'] : []),
    ...common,
    ...extra('record-tokens'),
  ];
  return {
    name,
    files,
    contextFrames: context,
    endpoints: { stage: tokIn, sink: sinkIn },
    source: replay(`${name}/replay`, `push:connect:${tokIn}`, extra('replay')),
    stages,
    sink: {
      id: `${name}/record-tokens`,
      role: 'sink',
      program: 'record-tokens',
      argv: (r) => ['stage', 'record-tokens', ...sinkArgs, '--frames', `${r.start}:${r.end}`],
    },
  };
}
