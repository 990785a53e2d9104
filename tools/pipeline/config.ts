// The settings of `drivekit pipeline` (docs/pipeline.md): which stages run as processes on which log,
// how they are wired and supervised; one typed config with its defaults, read from JSON or the options.
import fs from 'node:fs';
import { InputError } from '../../core/errors.ts';

/**
 * Analysis stages the pipeline runs. discover and detect are each one branch replay → <stage> →
 * record-boxes; tokenize and forecast form one chain replay → tokenize → forecast → record-tokens
 * (forecast needs the tokens, so naming it runs tokenize too).
 */
export const PIPELINE_STAGES = ['discover', 'detect', 'tokenize', 'forecast'] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

export interface PipelineConfig {
  /** The log whose frames are replayed. */
  log: string;
  /** Analysis stages, each branch fed every frame of the log by its own replay process (tokenize and forecast: one chain). */
  stages: PipelineStage[];
  /** Output folder: each stage's Boxes files, pipeline.json and the processes' logs. */
  out: string;
  /** Socket transport between the processes: unix sockets in a temp folder, or loopback TCP ports. */
  transport: 'ipc' | 'tcp';
  /** High-water mark of every socket (messages queued per peer): small, so a slow stage holds back its upstream. */
  hwm: number;
  /** Replay rate in frames per second; 0 = as fast as the stages take them. */
  rateHz: number;
  /** First frame of the log to run. */
  startFrame: number;
  /** Stop before this frame; 0 = run to the log's end. */
  endFrame: number;
  /** Restarts of one process (per branch and role) before its branch gives up. */
  maxRestarts: number;
  /** Resend rounds for frames lost in flight (a killed stage) before the branch reports them lost. */
  maxRepairRounds: number;
  /** Seconds a branch may go with no frame recorded and no process starting or ending before its upstream is stopped for a resend round (0 = never). */
  stallTimeoutS: number;
  /** How often each process's peak RSS is read from /proc, in milliseconds. */
  rssPollMs: number;
  /** Also publish the frames and box sets (PUB, lossy, never holds the run back) here for a viewer, e.g. tcp://127.0.0.1:5600. */
  viewerEndpoint: string | null;
  /** Extra options per stage process, e.g. {"discover": ["--cluster-range", "30"], "detect": ["--model", "m.onnx"]}. */
  stageArgs: Partial<Record<PipelineStage | 'replay' | 'record-boxes' | 'record-tokens', string[]>>;
  /** Options of the offline command shared by a stage and its recorder ({ground, cluster, …, tracker, refine}). */
  discoverConfig: string | null;
  /** Each analysis stage waits this long per frame: a slow stage, to see back-pressure (tests, benchmarks). */
  stageDelayMs: number;
  /** Each recorder waits this long per message: a slow recorder. */
  sinkDelayMs: number;
  /** Replace existing outputs in `out`. */
  force: boolean;
}

export const DEFAULT_PIPELINE_CONFIG: PipelineConfig = {
  log: '',
  stages: ['discover'],
  out: '',
  transport: 'ipc',
  // Frames are MBs: 4 per hop bounds a stage's queue to ~10 MB at 120k points.
  hwm: 4,
  rateHz: 0,
  startFrame: 0,
  endFrame: 0,
  maxRestarts: 3,
  maxRepairRounds: 3,
  // Well above the slowest honest frame (the world-model chain: ~6 s per forecast with --steps 1 on 2 cores,
  // several times that with the shipped model's 10 steps), so only a stall trips it.
  stallTimeoutS: 300,
  rssPollMs: 200,
  viewerEndpoint: null,
  stageArgs: {},
  discoverConfig: null,
  stageDelayMs: 0,
  sinkDelayMs: 0,
  force: false,
};

const KEYS = Object.keys(DEFAULT_PIPELINE_CONFIG) as (keyof PipelineConfig)[];

/** A pipeline config file (JSON): every key optional, unknown keys and wrong types named. */
export function readPipelineFile(file: string): Partial<PipelineConfig> {
  if (/\.ya?ml$/i.test(file))
    throw new InputError(
      file,
      'YAML is not supported (no YAML parser is installed): write the config as JSON',
    );
  let v: unknown;
  try {
    v = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new InputError(file, err.code === 'ENOENT' ? 'no such file' : `not JSON (${err.message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new InputError(file, 'is not a JSON object');
  const obj = v as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!KEYS.includes(k as keyof PipelineConfig))
      throw new InputError(file, `unknown key '${k}' (known: ${KEYS.join(', ')})`);
    const want = DEFAULT_PIPELINE_CONFIG[k as keyof PipelineConfig];
    const got = obj[k];
    const ok =
      want === null
        ? got === null || typeof got === 'string'
        : Array.isArray(want)
          ? Array.isArray(got)
          : typeof got === typeof want;
    if (!ok)
      throw new InputError(
        file,
        `'${k}' must be ${Array.isArray(want) ? 'an array' : want === null ? 'a string' : `a ${typeof want}`}`,
      );
  }
  return obj as Partial<PipelineConfig>;
}

/** Defaults, then the file, then the command line; checked as a whole. */
export function resolvePipelineConfig(...layers: Partial<PipelineConfig>[]): PipelineConfig {
  const cfg: PipelineConfig = { ...DEFAULT_PIPELINE_CONFIG };
  for (const l of layers) {
    for (const [k, v] of Object.entries(l))
      if (v !== undefined) (cfg as unknown as Record<string, unknown>)[k] = v;
  }
  if (!cfg.log) throw new InputError('--log', 'is required (or "log" in --config)');
  if (!cfg.out) throw new InputError('--out', 'is required (or "out" in --config)');
  if (cfg.stages.length === 0) throw new InputError('--stages', 'names no stage');
  for (const s of cfg.stages as string[]) {
    if (!(PIPELINE_STAGES as readonly string[]).includes(s))
      throw new InputError('--stages', `'${s}' is not one of ${PIPELINE_STAGES.join(', ')}`);
  }
  if (new Set(cfg.stages).size !== cfg.stages.length) throw new InputError('--stages', 'names a stage twice');
  if (cfg.transport !== 'ipc' && cfg.transport !== 'tcp')
    throw new InputError('--transport', `'${cfg.transport as string}' is not ipc or tcp`);
  const whole: [keyof PipelineConfig, number][] = [
    ['hwm', 1],
    ['startFrame', 0],
    ['endFrame', 0],
    ['maxRestarts', 0],
    ['maxRepairRounds', 0],
    ['stallTimeoutS', 0],
    ['rssPollMs', 10],
    ['stageDelayMs', 0],
    ['sinkDelayMs', 0],
  ];
  for (const [k, min] of whole) {
    const x = cfg[k] as number;
    if (!Number.isSafeInteger(x) || x < min)
      throw new InputError(`--${kebab(k)}`, `must be a whole number ≥ ${min}`);
  }
  if (!(cfg.rateHz >= 0)) throw new InputError('--rate', 'must be ≥ 0 frames per second');
  return cfg;
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
