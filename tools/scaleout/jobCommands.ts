// The commands a scale-out job may run, and for each: how its one input is passed, which options a job
// may carry (and what their values are), what it reads and writes, and how the flow's parent aggregates.
// A command not in this table cannot be run by a worker. See docs/scale-out.md ("A new command").

/** What an option's value is: checked on submit and again on the worker. */
export type OptionKind =
  | 'flag' // no value
  | 'number'
  | 'int'
  | 'word' // a plain word: letters, digits, ',', '.', '_', '-'
  | 'path' // an input file or directory: absolute, inside the worker's roots, fingerprinted
  | 'outRoot'; // an output directory: each job writes to <outRoot>/<input name>

export type Aggregation = 'totals' | 'pooled-eval' | 'metrics-table';

export interface JobCommand {
  /** The input's flag (`--log`), or null when it is the command's positional argument. */
  inputFlag: string | null;
  /** Further flags that receive the same input (eval scores a log's boxes against its own labels). */
  inputAlso?: string[];
  /** Options a job may carry, by flag. */
  options: Record<string, OptionKind>;
  /** Options a job must carry. */
  required?: string[];
  /**
   * What the job reads, for its input hash: names inside the input directory, or 'input' for the
   * whole input path. Option values of kind 'path' are always added.
   */
  reads: string[] | 'input';
  /**
   * What the job writes, relative to its output directory (the input directory, or
   * <outRoot>/<input name> when the command has an 'outRoot' option); [] for a read-only command.
   */
  writes: (options: Record<string, string | true>) => string[];
  aggregate: Aggregation;
}

// Not manifest.json: the log store rewrites it when a stage commits its outputs (discover's boxes too).
const LOG_SOURCE = ['meta.json', 'frames.arrow', 'poses.arrow'];
const ONNX = { '--model': 'path', '--threads': 'int', '--device': 'word' } as const;

export const JOB_COMMANDS: Record<string, JobCommand> = {
  discover: {
    inputFlag: '--log',
    options: { '--cluster-range': 'number', '--min-track': 'int', '--config': 'path' },
    reads: LOG_SOURCE,
    writes: () => ['detections.arrow', 'tracks.arrow'],
    aggregate: 'totals',
  },
  detect: {
    inputFlag: '--log',
    options: { ...ONNX, '--grid-range': 'number', '--score': 'number', '--nms': 'number' },
    reads: LOG_SOURCE,
    writes: () => ['detector.arrow'],
    aggregate: 'totals',
  },
  tokenize: {
    inputFlag: '--log',
    options: { '--model': 'path', '--force': 'flag' },
    reads: LOG_SOURCE,
    writes: () => ['tokens.arrow'],
    aggregate: 'totals',
  },
  'eval-tokenizer': {
    inputFlag: '--log',
    options: { '--model': 'path', '--frames': 'int' },
    reads: LOG_SOURCE,
    writes: () => [],
    aggregate: 'totals',
  },
  eval: {
    inputFlag: '--pred',
    inputAlso: ['--gt'],
    options: { '--fov': 'number', '--min-gt-points': 'int', '--classes': 'word', '--dtc-score': 'number' },
    reads: [...LOG_SOURCE, 'labels.arrow', 'tracks.arrow', 'detections.arrow'],
    writes: () => [],
    aggregate: 'pooled-eval',
  },
  sim: {
    inputFlag: '--scenarios',
    options: {
      '--agents': 'word',
      '--out': 'outRoot',
      '--rollouts': 'int',
      '--seed': 'int',
      '--deterministic': 'flag',
      '--control': 'word',
      '--limit': 'int',
    },
    required: ['--agents', '--out'],
    reads: 'input',
    writes: () => ['rollouts.arrow', 'metrics.json', 'metrics.csv', 'metrics_summary.csv'],
    aggregate: 'metrics-table',
  },
  export: {
    inputFlag: '--rollouts',
    options: {
      '--format': 'word',
      '--lidar': 'flag',
      '--lidar-model': 'word',
      '--lidar-frames': 'int',
      '--threads': 'int',
    },
    required: ['--format'],
    reads: ['rollouts.arrow', 'scenarios', 'metrics.json'],
    writes: (o) => [`export-${String(o['--format'])}`],
    aggregate: 'totals',
  },
  import: {
    inputFlag: null,
    options: {
      '--format': 'word',
      '--out': 'outRoot',
      '--poses': 'path',
      '--poses-frame': 'word',
      '--rate': 'number',
      '--keep-origin-points': 'flag',
      '--force': 'flag',
    },
    required: ['--format', '--out'],
    reads: 'input',
    writes: () => ['meta.json', 'frames.arrow', 'poses.arrow'],
    aggregate: 'totals',
  },
  info: {
    inputFlag: null,
    options: {},
    reads: ['meta.json'],
    writes: () => [],
    aggregate: 'totals',
  },
};
