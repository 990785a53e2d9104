// How `drivekit pipeline` wires its processes: per stage a branch replay → <stage> → record-boxes, each hop
// a PUSH (connects) → PULL (binds) pair on a unix socket in a temp folder or a fixed loopback TCP port.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { PipelineConfig, PipelineStage } from './config.ts';

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
  name: PipelineStage | 'viewer';
  source: ProcessSpec;
  stage: ProcessSpec | null;
  sink: ProcessSpec | null;
  /** The files the branch's recorder writes, by kind. */
  files: Record<string, string>;
  /** Where the branch's stage and recorder listen (for injecting messages in tests, or a second producer). */
  endpoints: { stage?: string; sink?: string; viewer?: string };
}

export interface Wiring {
  /** Temp folder of sockets and journals, removed at the end. */
  tmp: string;
  branches: Branch[];
  cleanup(): void;
}

/** Output file names of each stage's recorder: the names `drivekit discover` / `detect` write in a log. */
export const STAGE_FILES: Record<PipelineStage, { boxes: string; tracks?: string }> = {
  discover: { boxes: 'detections.arrow', tracks: 'tracks.arrow' },
  detect: { boxes: 'detector.arrow' },
};

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
  // Short, so ipc paths stay under Linux's 107-byte limit.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-pipe-'));
  const url = async (name: string) =>
    cfg.transport === 'ipc' ? `ipc://${tmp}/${name}.sock` : `tcp://127.0.0.1:${await freePort()}`;
  // A stage that has sent its last message exits only once a slower peer has taken everything: its
  // linger and drain are unbounded in practice (the supervisor stops what is left at the end).
  const common = ['--hwm', String(cfg.hwm), '--linger-ms', FLUSH_MS, '--drain-ms', FLUSH_MS, '--json'];
  const extra = (k: keyof PipelineConfig['stageArgs']) => cfg.stageArgs[k] ?? [];
  const configArgs = cfg.discoverConfig ? ['--config', cfg.discoverConfig] : [];
  const branches: Branch[] = [];
  for (const stage of cfg.stages) {
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
      ...common,
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
      endpoints: { stage: stageIn, sink: sinkIn },
      source: {
        id: `${stage}/replay`,
        role: 'source',
        program: 'replay',
        argv: (r) => [
          'stage',
          'replay',
          '--log',
          cfg.log,
          '--out',
          `push:connect:${stageIn}`,
          '--rate',
          String(cfg.rateHz),
          '--start',
          String(r.start),
          '--end',
          String(r.end),
          ...common,
          ...extra('replay'),
        ],
      },
      stage: {
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
          ...(cfg.stageDelayMs > 0 ? ['--delay-ms', String(cfg.stageDelayMs)] : []),
          ...common,
          ...extra(stage),
        ],
      },
      sink: {
        id: `${stage}/record-boxes`,
        role: 'sink',
        program: 'record-boxes',
        argv: (r) => ['stage', 'record-boxes', ...sinkArgs, '--frames', `${r.start}:${r.end}`],
      },
    });
  }
  if (cfg.viewerEndpoint) {
    const viewer = cfg.viewerEndpoint;
    branches.push({
      name: 'viewer',
      files: {},
      endpoints: { viewer },
      source: {
        id: 'viewer/replay',
        role: 'source',
        program: 'replay',
        // PUB fan-out: a viewer may come and go; frames sent while none listens are dropped, by design.
        argv: (r) => [
          'stage',
          'replay',
          '--log',
          cfg.log,
          '--out',
          `pub:bind:${viewer}`,
          '--subscribers',
          '0',
          '--rate',
          String(cfg.rateHz),
          '--start',
          String(r.start),
          '--end',
          String(r.end),
          ...common,
        ],
      },
      stage: null,
      sink: null,
    });
  }
  return { tmp, branches, cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }) };
}
