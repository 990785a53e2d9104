// `drivekit selftrain --log <log>... --rounds R`: OYSTER's detect → track → refine → retrain loop on logs
// without labels; prints AP by range and DTC per round wherever a log (or --eval-log) has ground truth.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { setProgressSilent } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import {
  DEFAULT_DETECTOR_CONFIG,
  DETECTOR_CONFIG_RANGES,
  type DetectorConfigInput,
  resolveDetectorConfig,
} from '../../perception/detector/config.ts';
import {
  DEFAULT_PIPELINE_INPUT,
  PIPELINE_INPUT_RANGES,
  type PipelineConfigInput,
  resolvePipelineConfig,
} from '../../perception/discoverLog.ts';
import {
  DEFAULT_SELFTRAIN_CONFIG,
  SELFTRAIN_CONFIG_RANGES,
  type SelfTrainConfig,
  type SelfTrainLog,
  selfTrain,
  summariseResult,
} from '../../perception/selftrain.ts';
import { formatSelfTrainTable } from '../report/selftrainTable.ts';
import { fillGtPointCounts } from './eval.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { parseConfigJson, validateConfig } from '../../core/configSchema.ts';
import { makeDirs } from '../../core/dirs.ts';
import { addRenamed, AP_UNITS_HELP, printJson, renamedInput } from '../cliOptions.ts';

interface SelfTrainOptions {
  log: string[];
  evalLog: string[];
  rounds: number;
  out: string;
  steps?: number;
  laterSteps?: number;
  batch?: number;
  crop?: number;
  gridRange?: number;
  /** Old name of --grid-range (one version). */
  range?: number;
  labelRange?: number;
  score?: number;
  fromScratch?: boolean;
  threads?: number;
  config?: string;
  export?: string;
  write?: boolean;
  json?: boolean;
}

/** Config file shape: every part optional and partial. */
interface SelfTrainConfigFile {
  detector?: DetectorConfigInput;
  pipeline?: PipelineConfigInput;
  rounds?: number;
  laterLabelRangeM?: number | null;
  labelScoreThreshold?: number;
  laterSteps?: number | null;
  laterLrScale?: number;
  laterLabels?: 'detector' | 'seeds+far';
  warmStart?: boolean;
  evalBucketsM?: [number, number][];
}

/** The --config file (or inline JSON), checked against every section's defaults and ranges. */
function readConfigFile(file: string | undefined): SelfTrainConfigFile {
  if (!file) return {};
  const v = parseConfigJson(file, (f) => fs.readFileSync(f, 'utf8'));
  const defaults = {
    ...DEFAULT_SELFTRAIN_CONFIG,
    detector: DEFAULT_DETECTOR_CONFIG,
    pipeline: DEFAULT_PIPELINE_INPUT,
  };
  const ranges = {
    ...SELFTRAIN_CONFIG_RANGES,
    detector: DETECTOR_CONFIG_RANGES,
    pipeline: PIPELINE_INPUT_RANGES,
  };
  return validateConfig(v, defaults, ranges, file) as SelfTrainConfigFile;
}

const int = (name: string, min: number) => intOption(name, min);
const positive = (name: string) => numberOption(name, { above: 0 });

/** The self-training config from the defaults, a config file and the command-line options. */
export function selfTrainConfigFrom(opts: SelfTrainOptions): SelfTrainConfig {
  const file = readConfigFile(opts.config);
  const det: DetectorConfigInput = { ...file.detector };
  const gridRange = renamedInput(opts.gridRange, opts.range, '--range', '--grid-range');
  det.grid = { ...det.grid, ...(gridRange !== undefined ? { rangeM: gridRange } : {}) };
  det.targets = {
    ...det.targets,
    ...(opts.labelRange !== undefined ? { labelRangeM: opts.labelRange } : {}),
  };
  det.train = {
    ...det.train,
    ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
    ...(opts.batch !== undefined ? { batchSize: opts.batch } : {}),
    ...(opts.crop !== undefined ? { cropCells: opts.crop } : {}),
    ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
  };
  const cfg: SelfTrainConfig = {
    ...DEFAULT_SELFTRAIN_CONFIG,
    ...file,
    detector: resolveDetectorConfig(det),
    pipeline: resolvePipelineConfig(file.pipeline),
  };
  cfg.rounds = opts.rounds ?? cfg.rounds;
  if (opts.laterSteps !== undefined) cfg.laterSteps = opts.laterSteps;
  if (opts.score !== undefined) cfg.labelScoreThreshold = opts.score;
  if (opts.fromScratch) cfg.warmStart = false;
  const crop = cfg.detector.train.cropCells;
  if (crop % 8 !== 0) throw new InputError('--crop', `must be a multiple of 8 cells, got ${crop}`);
  return cfg;
}

async function openLog(dir: string): Promise<SelfTrainLog> {
  const reader = await LogReader.open(dir);
  const labels = reader.readBoxes('labels');
  return {
    name: path.basename(path.resolve(dir)),
    reader,
    groundTruth: labels ? await fillGtPointCounts(labels, dir) : null,
  };
}

const collect = (value: string, previous: string[]) => [...previous, value];

// The help prints the defaults from the config itself, so it cannot drift from what a run uses.
const DEF = DEFAULT_SELFTRAIN_CONFIG;

export function register(program: Command): void {
  const cmd = program
    .command('selftrain')
    .description(
      'self-train the BEV detector on logs without labels (OYSTER: detect → track → refine → retrain)',
    )
    .requiredOption('--log <log>', 'log to self-train on (repeatable)', collect, [])
    .option('--eval-log <log>', 'held-out log scored every round, never trained on (repeatable)', collect, [])
    .option('--rounds <n>', 'train → detect → track → refine rounds', int('--rounds', 1), DEF.rounds)
    .option('--out <dir>', 'models, checkpoints and results.json (a rerun resumes here)', 'runs/selftrain')
    .option(
      '--steps <n>',
      `optimizer steps of round 1 (default: ${DEF.detector.train.steps})`,
      int('--steps', 1),
    )
    .option(
      '--later-steps <n>',
      `optimizer steps of later rounds (default: ${DEF.laterSteps ?? DEF.detector.train.steps})`,
      int('--later-steps', 1),
    )
    .option('--batch <n>', `crops per step (default: ${DEF.detector.train.batchSize})`, int('--batch', 1))
    .option(
      '--crop <cells>',
      `training crop side in cells, a multiple of 8 (default: ${DEF.detector.train.cropCells})`,
      int('--crop', 8),
    )
    .option(
      '--grid-range <m>',
      `half side of the inference grid, m (default: ${DEF.detector.grid.rangeM})`,
      positive('--grid-range'),
    )
    .option(
      '--label-range <m>',
      `round 1 trains only on labels within this range (default: ${DEF.detector.targets.labelRangeM})`,
      positive('--label-range'),
    )
    .option(
      '--score <p>',
      `detections below this score do not become labels (default: ${DEF.labelScoreThreshold})`,
      positive('--score'),
    )
    .option('--from-scratch', 'train every round from a fresh init instead of fine-tuning the previous one')
    .option('--threads <n>', 'onnxruntime threads (default: all cores)', int('--threads', 1))
    .option(
      '--config <json>',
      'config overrides: {detector: {grid, features, network, train, …}, pipeline, …}',
    )
    .option('--export <onnx>', 'also copy the final model here (e.g. models/detector.onnx)')
    .option(
      '--write',
      'write the final detections and labels into each log (selftrain_detections/labels.arrow)',
    )
    .option('--json', 'print the results as one JSON object (snake_case keys, AP as fractions)')
    .addHelpText('after', AP_UNITS_HELP);
  addRenamed(cmd, '--range', positive('--range'));
  cmd.action(async (opts: SelfTrainOptions) => {
    if (opts.log.length === 0) throw new InputError('--log', 'give at least one log');
    const cfg = selfTrainConfigFrom(opts);
    if (opts.json) setProgressSilent(true);
    const logs = await Promise.all(opts.log.map(openLog));
    const evalLogs = await Promise.all(opts.evalLog.map(openLog));
    try {
      const say = (line: string) => process.stderr.write(line + '\n');
      const res = await selfTrain(logs, cfg, {
        outDir: opts.out,
        evalLogs,
        log: opts.json ? undefined : say,
        writeToLogs: opts.write,
      });
      if (opts.export) {
        makeDirs(path.dirname(path.resolve(opts.export)));
        fs.copyFileSync(res.modelPath, opts.export + '.tmp');
        fs.renameSync(opts.export + '.tmp', opts.export);
      }
      if (opts.json) {
        printJson(summariseResult(res));
      } else {
        const table = formatSelfTrainTable(res.rows, cfg.evalBucketsM);
        process.stdout.write(
          (table
            ? `AP at BEV IoU 0.3 / 0.5 by range (m), DTC per round:\n${table}\n`
            : 'no ground truth: nothing to score\n') +
            res.rounds
              .map(
                (r) =>
                  `round ${r.round}: ${r.steps} steps, ${r.trainSeconds.toFixed(0)} s, ${r.framesPerS.toFixed(1)} crops/s, ${r.labelBoxes} labels → ${r.modelPath}`,
              )
              .join('\n') +
            `\nmodel ${res.modelPath}${opts.export ? ` (copied to ${opts.export})` : ''}\n`,
        );
      }
    } finally {
      for (const l of [...logs, ...evalLogs]) await l.reader.close();
    }
  });
}
