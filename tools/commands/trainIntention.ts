// `drivekit train-intention --out <dir> --real-fold A`: fit the junction-intention head on the fork choices
// of synthetic towns and one fold of the real scenarios; scored on the other folds and held-out towns.
import type { Command } from 'commander';
import { createProgress } from '../../core/progress.ts';
import { DEFAULT_INTENTION_TRAIN, trainIntention } from '../../simulation/intention/trainIntention.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { printJson } from '../cliOptions.ts';
import { intOption } from '../numberOption.ts';
import { foldSpec, prepareRealMotion, readRealFolds } from '../report/realFolds.ts';

export interface TrainIntentionCliOptions {
  out: string;
  towns: string;
  validation: string;
  testTowns: string;
  realFold?: string;
  epochs: number;
  seed: number;
  json?: boolean;
}

export async function runTrainIntention(opts: TrainIntentionCliOptions): Promise<Record<string, unknown>> {
  const folds = readRealFolds();
  if (opts.realFold !== undefined) foldSpec(folds, opts.realFold); // an unknown fold fails here, first
  const others = Object.keys(folds.folds).filter((f) => f !== opts.realFold);
  await prepareRealMotion();
  const load = createProgress('scenarios', 0, { silent: opts.json });
  const spec = (s: string, flag: string): Scenario[] => scenariosFromSpec(s, flag, () => load.tick());
  const realTrain = opts.realFold === undefined ? [] : spec(foldSpec(folds, opts.realFold), '--real-fold');
  const train = [...spec(opts.towns, '--towns'), ...realTrain];
  const validation = spec(opts.validation, '--validation');
  const test = [
    ...others.map((f) => ({ name: `real fold ${f}`, scenarios: spec(foldSpec(folds, f), '--real-fold') })),
    {
      name: `towns ${opts.testTowns.replace(/^town:/, '')}`,
      scenarios: spec(opts.testTowns, '--test-towns'),
    },
  ];
  load.stop();
  const bar = createProgress('train-intention', opts.epochs, { silent: opts.json });
  const res = await trainIntention(
    {
      train,
      validation,
      test,
      out: opts.out,
      data: {
        command: ['drivekit', ...process.argv.slice(2)].join(' '),
        train: { towns: opts.towns, realFold: opts.realFold ?? null },
        validation: opts.validation,
        test: test.map((t) => t.name),
      },
      onProgress: (done, _total, status) => bar.update(done, status),
    },
    { epochs: opts.epochs, seed: opts.seed },
  );
  bar.stop();
  const summary = {
    out: opts.out,
    forks: res.forks,
    bestEpoch: res.bestEpoch,
    heldOut: res.heldOut,
    files: res.files,
  };
  if (!opts.json) {
    const f = (s: { nll: number; accuracy: number }) =>
      `${s.nll.toFixed(3)} / ${(100 * s.accuracy).toFixed(0)} %`;
    process.stdout.write(
      `train-intention: ${res.forks.train} training forks (${res.forks.trainReal} real), best epoch ${res.bestEpoch}\n` +
        res.heldOut
          .map(
            (h) =>
              `${h.name} (${h.model.forks} forks), NLL / top-1: head ${f(h.model)}, uniform ${f(h.uniform)}, ` +
              `turn prior ${f(h.turnPrior)}, straightest — / ${(100 * h.straightest.accuracy).toFixed(0)} %\n`,
          )
          .join('') +
        `wrote ${res.files.join(', ')}\n`,
    );
  }
  return summary;
}

export function register(program: Command): void {
  const d = DEFAULT_INTENTION_TRAIN;
  program
    .command('train-intention')
    .description(
      'fit the junction-intention head (which branch an agent takes at a fork) on logged turn choices of towns and one real fold; scored on the other folds and held-out towns beside a uniform choice, a turn-class prior and the straightest branch; resumable',
    )
    .requiredOption(
      '--out <dir>',
      'run folder: checkpoint (resumed when present), intention.onnx, intention.json',
    )
    .option('--towns <spec>', 'training towns', 'town:1-120')
    .option('--validation <spec>', 'towns whose forks choose the epoch', 'town:121-150')
    .option('--test-towns <spec>', 'held-out towns, scored once', 'town:301-310')
    .option('--real-fold <name>', 'the real fold to train on (models/real-folds.json); the others are scored')
    .option('--epochs <n>', 'epochs', intOption('--epochs', 1), d.epochs)
    .option('--seed <s>', 'random seed', intOption('--seed', 0), d.seed)
    .option('--json', 'print the summary as one JSON line')
    .action(async (opts: TrainIntentionCliOptions) => {
      const summary = await runTrainIntention(opts);
      if (opts.json) printJson(summary);
    });
}
