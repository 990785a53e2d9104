// `drivekit pipeline --log <log> --stages discover,detect --out <dir>`: the stages as supervised processes
// over ZeroMQ carrying Arrow batches (docs/pipeline.md); outputs as the offline commands write them.
import path from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { formatRanges } from '../stages/recordLedger.ts';
import { intOption, numberOption } from '../numberOption.ts';
import {
  DEFAULT_PIPELINE_CONFIG as D,
  PIPELINE_STAGES,
  type PipelineConfig,
  readPipelineFile,
  resolvePipelineConfig,
} from '../pipeline/config.ts';
import { claimOutFolder, cleanStaleSocketDirs, releaseOutFolder } from '../pipeline/runMarker.ts';
import { supervise, type SupervisorResult } from '../pipeline/supervisor.ts';
import { wirePipeline } from '../pipeline/wiring.ts';

interface PipelineOptions {
  config?: string;
  log?: string;
  stages?: string;
  out?: string;
  transport?: string;
  hwm?: number;
  rate?: number;
  start?: number;
  end?: number;
  maxRestarts?: number;
  viewerEndpoint?: string;
  discoverConfig?: string;
  stageDelayMs?: number;
  sinkDelayMs?: number;
  stallTimeoutS?: number;
  force?: boolean;
  json?: boolean;
}

export interface PipelineRun extends SupervisorResult {
  log: string;
  out: string;
  stages: string[];
  transport: string;
  frames: number;
  frames_per_s: number;
}

/** Run a pipeline to its end; SIGINT/SIGTERM stop it (children get SIGTERM) and `interrupted` is set. */
export async function runPipeline(
  cfg: PipelineConfig,
  signal: AbortSignal,
  quiet = false,
): Promise<PipelineRun> {
  const reader = await LogReader.open(cfg.log);
  const frameCount = reader.frameCount;
  await reader.close();
  const end = cfg.endFrame > 0 ? Math.min(cfg.endFrame, frameCount) : frameCount;
  if (cfg.startFrame > end) throw new InputError('--start', `is past the log's end (${frameCount} frames)`);
  const log = (line: string) => process.stderr.write(line + '\n');
  // A run killed with SIGKILL cleaned nothing: its socket folder and its claim on --out are recognised by
  // its dead pid, removed and replaced.
  for (const dir of cleanStaleSocketDirs())
    log(`pipeline: removed ${dir}, the socket folder of a killed run`);
  const { killedRun } = claimOutFolder(cfg.out, cfg.force);
  if (killedRun !== null)
    log(
      `pipeline: ${cfg.out}: replacing what a killed run${killedRun ? ` (pid ${killedRun})` : ''} left there`,
    );
  let wiring: Awaited<ReturnType<typeof wirePipeline>>;
  try {
    wiring = await wirePipeline(cfg);
  } catch (e) {
    releaseOutFolder(cfg.out);
    throw e;
  }
  for (const b of wiring.branches) {
    const e = b.endpoints;
    log(
      e.viewer
        ? `pipeline: viewer feed on ${e.viewer} (PUB)`
        : `pipeline: ${b.name}: stage listens on ${e.stage}, recorder on ${e.sink}`,
    );
  }
  const frames = end - cfg.startFrame;
  const recorded = wiring.branches.filter((b) => b.sink).length;
  const bar = createProgress('pipeline', frames * recorded, { silent: quiet });
  let result: SupervisorResult;
  try {
    result = await supervise(
      wiring.branches,
      cfg,
      { start: cfg.startFrame, end },
      { log, progress: (done, status) => bar.update(done, status) },
      signal,
    );
  } finally {
    bar.stop();
    // Sockets and journals: a finished or interrupted run leaves nothing behind but its outputs.
    wiring.cleanup();
    releaseOutFolder(cfg.out);
  }
  return {
    log: cfg.log,
    out: cfg.out,
    stages: cfg.stages,
    transport: cfg.transport,
    frames,
    frames_per_s: result.elapsed_s > 0 ? frames / result.elapsed_s : 0,
    ...result,
  };
}

export function formatPipelineRun(r: PipelineRun): string {
  const lines = [
    `pipeline   ${r.stages.join(', ')} on ${r.log} over ${r.transport} (${r.frames} frames, ${r.elapsed_s.toFixed(1)} s, ${r.frames_per_s.toFixed(1)} frames/s)`,
  ];
  for (const b of r.branches) {
    const skipped = Object.entries(b.skipped).filter(([, n]) => n > 0);
    lines.push(
      `${b.stage.padEnd(10)} ${b.frames_recorded}/${b.frames_expected} frames${b.complete ? ', complete' : `, MISSING ${formatRanges(b.missing)} (${b.lost_because})`}` +
        (b.resend_rounds ? `, ${b.resend_rounds} resend round(s)` : '') +
        (b.duplicates ? `, ${b.duplicates} repeat(s) dropped` : '') +
        (skipped.length ? `, skipped ${skipped.map(([k, n]) => `${n} ${k}`).join(', ')}` : ''),
    );
    for (const f of Object.values(b.files)) lines.push(`           wrote ${f}`);
  }
  for (const p of r.processes)
    lines.push(
      `  ${p.id.padEnd(24)} peak RSS ${p.peak_rss_mb ?? '?'} MB, ${p.starts} start(s)${p.exits.some((e) => e !== 0 && e !== 'stopped') ? `, exits ${p.exits.join(' ')}` : ''}`,
    );
  return lines.join('\n');
}

export function register(program: Command): void {
  program
    .command('pipeline')
    .description(
      'run stages as supervised processes over ZeroMQ/Arrow (replay → <stage> → recorder per stage; replay → tokenize → forecast → recorder); outputs as `drivekit discover` / `detect` / `tokenize`',
    )
    .option(
      '--config <file.json>',
      'pipeline config (JSON; keys as in docs/pipeline.md; options override it)',
    )
    .option('--log <log>', 'log to replay')
    .option(
      '--stages <a,b>',
      `stages, comma-separated: ${PIPELINE_STAGES.join(', ')} (default: ${D.stages.join(',')})`,
    )
    .option('--out <dir>', 'output folder (Boxes files, pipeline.json, logs/)')
    .option(
      '--transport <t>',
      `ipc (unix sockets in a temp folder) or tcp (loopback ports) (default: ${D.transport})`,
    )
    .option(
      '--hwm <n>',
      `high-water mark of every socket, messages (default: ${D.hwm})`,
      intOption('--hwm', 1),
    )
    .option(
      '--rate <hz>',
      'replay rate (default: 0: as fast as the stages take frames)',
      numberOption('--rate', { min: 0 }),
    )
    .option('--start <frame>', 'first frame (default: 0)', intOption('--start', 0))
    .option('--end <frame>', 'stop before this frame (default: all)', intOption('--end', 1))
    .option(
      '--max-restarts <n>',
      `restarts of one process before its stage gives up (default: ${D.maxRestarts})`,
      intOption('--max-restarts', 0),
    )
    .option(
      '--stall-timeout-s <s>',
      `no frame recorded and no process started or ended for this long: resend round (default: ${D.stallTimeoutS}; 0 = never)`,
      intOption('--stall-timeout-s', 0),
    )
    .option(
      '--viewer-endpoint <url>',
      'also publish the frames and box sets (PUB, lossy) here for `drivekit view`, e.g. tcp://127.0.0.1:5600',
    )
    .option('--discover-config <json>', 'discover/tracker/refine overrides, as `drivekit discover --config`')
    .option(
      '--stage-delay-ms <ms>',
      'each stage waits this long per frame (a slow stage: shows back-pressure)',
      intOption('--stage-delay-ms', 0),
    )
    .option(
      '--sink-delay-ms <ms>',
      'recorders wait this long per frame (a slow recorder)',
      intOption('--sink-delay-ms', 0),
    )
    .option('--force', 'replace outputs in a non-empty --out')
    .option('--json', 'print the summary as one JSON object')
    .addHelpText(
      'after',
      '\nA stage process that dies is restarted; frames lost in flight are resent by index until the recorder has\n' +
        'each once, in order (or the summary names the lost frames and why). SIGINT: children get SIGTERM, temp\n' +
        'sockets are removed, exit 130. Config files are JSON only (no YAML parser is installed).\n' +
        'tokenize and forecast run as one chain (forecast implies tokenize): tokens.arrow as `drivekit tokenize`\n' +
        "writes it, and forecast.arrow with the live forecast stage's sweeps (docs/pipeline.md).",
    )
    .action(async (opts: PipelineOptions) => {
      const file = opts.config ? readPipelineFile(opts.config) : {};
      const cfg = resolvePipelineConfig(file, {
        log: opts.log,
        out: opts.out,
        stages: opts.stages
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean) as PipelineConfig['stages'] | undefined,
        transport: opts.transport as PipelineConfig['transport'] | undefined,
        hwm: opts.hwm,
        rateHz: opts.rate,
        startFrame: opts.start,
        endFrame: opts.end,
        maxRestarts: opts.maxRestarts,
        stallTimeoutS: opts.stallTimeoutS,
        viewerEndpoint: opts.viewerEndpoint,
        discoverConfig: opts.discoverConfig,
        stageDelayMs: opts.stageDelayMs,
        sinkDelayMs: opts.sinkDelayMs,
        force: opts.force,
      });
      const controller = new AbortController();
      const onSignal = (sig: NodeJS.Signals) => {
        if (controller.signal.aborted) process.exit(130);
        process.stderr.write(`pipeline: ${sig}: stopping every stage\n`);
        controller.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      let run: PipelineRun;
      try {
        run = await runPipeline(cfg, controller.signal, !!opts.json);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      if (run.interrupted) {
        process.stderr.write(
          'pipeline: interrupted; temp sockets removed, outputs of unfinished stages not written\n',
        );
        process.exit(130);
      }
      writeFileAtomicSync(path.join(cfg.out, 'pipeline.json'), JSON.stringify(run, null, 2) + '\n');
      process.stdout.write(opts.json ? JSON.stringify(run) + '\n' : formatPipelineRun(run) + '\n');
      const lost = run.branches.filter((b) => !b.complete);
      if (lost.length)
        throw new Error(
          `frames lost: ${lost.map((b) => `${b.stage} ${formatRanges(b.missing)} (${b.lost_because})`).join('; ')}`,
        );
    });
}
