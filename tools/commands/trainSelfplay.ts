// `drivekit train-selfplay --out <dir> [--generator selfplay|adversarial|longtail|nominal]`: asymmetric self-play
// (Zhang et al., ECCV 2024) — a teacher proposing long-tail scenarios it can solve, the learned agent as student.
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { SHIPPED_AGENT_MODEL } from '../../simulation/agents/learned.ts';
import {
  DEFAULT_SELFPLAY,
  type SelfplayGenerator,
  trainSelfplay,
} from '../../simulation/selfplay/trainSelfplay.ts';
import { prepareScenarioSources } from '../../simulation/scenarioSources.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { intOption } from '../numberOption.ts';
import { printJson } from '../cliOptions.ts';

export const SELFPLAY_GENERATORS: readonly SelfplayGenerator[] = [
  'selfplay',
  'adversarial',
  'longtail',
  'nominal',
];

export interface TrainSelfplayCliOptions {
  out: string;
  generator: string;
  scenarios: string;
  student?: string;
  teacherInit?: string;
  rounds: number;
  proposals: number;
  studentIterations: number;
  townsPerIteration: number;
  longtailPerIteration: number;
  studentRecipe: string;
  seed: number;
  json?: boolean;
}

export async function runTrainSelfplay(opts: TrainSelfplayCliOptions): Promise<Record<string, unknown>> {
  if (!SELFPLAY_GENERATORS.includes(opts.generator as SelfplayGenerator))
    throw new InputError(
      '--generator',
      `must be one of ${SELFPLAY_GENERATORS.join(', ')}, got '${opts.generator}'`,
    );
  const generator = opts.generator as SelfplayGenerator;
  if (opts.teacherInit && (generator === 'longtail' || generator === 'nominal'))
    throw new InputError('--teacher-init', `the ${generator} baseline has no teacher`);
  if (generator === 'nominal' && opts.studentIterations < 1)
    throw new InputError('--student-iterations', 'the nominal baseline trains the student only: give ≥ 1');
  if (opts.studentRecipe !== 'model' && opts.studentRecipe !== 'basic')
    throw new InputError('--student-recipe', `must be model or basic, got '${opts.studentRecipe}'`);
  await prepareScenarioSources(opts.scenarios);
  const load = createProgress('scenarios', 0, { silent: opts.json });
  const nominal = scenariosFromSpec(opts.scenarios, '--scenarios', () => load.tick());
  load.stop();
  const bar = createProgress(`train-selfplay ${generator}`, opts.rounds, { silent: opts.json });
  const res = await trainSelfplay(
    {
      nominal,
      studentInit: opts.student ?? SHIPPED_AGENT_MODEL,
      teacherInit: opts.teacherInit,
      out: opts.out,
      data: {
        command: ['drivekit', ...process.argv.slice(2)].join(' '),
        scenarios: opts.scenarios,
        student: opts.student ?? 'models/agent.onnx',
        heldOut: 'long-tail seed 1001 and towns 301-310 are never trained on',
      },
      onProgress: (done, _total, status) => bar.update(done, status),
      onResume: (done) => bar.resume(done),
    },
    {
      generator,
      rounds: opts.rounds,
      proposalsPerRound: opts.proposals,
      studentIterations: opts.studentIterations,
      townsPerIteration: opts.townsPerIteration,
      longtailPerIteration: opts.longtailPerIteration,
      studentRecipe: opts.studentRecipe as 'model' | 'basic',
      seed: opts.seed,
    },
  );
  bar.stop();
  const summary = {
    generator,
    out: opts.out,
    rounds: res.roundsDone,
    resumedFrom: res.resumedFrom,
    last: res.curve[res.curve.length - 1] ?? null,
    files: res.files,
  };
  if (!opts.json)
    process.stdout.write(
      `train-selfplay ${generator}: ${res.roundsDone} rounds` +
        (res.resumedFrom ? ` (resumed at ${res.resumedFrom})` : '') +
        `\nlast round: ${JSON.stringify(summary.last)}\nwrote ${res.files.join(', ')}\n`,
    );
  return summary;
}

export function register(program: Command): void {
  const d = DEFAULT_SELFPLAY;
  program
    .command('train-selfplay')
    .description(
      'asymmetric self-play: a teacher learns long-tail scenarios the student fails but its own solution passes; the learned agent (student) trains on them beside nominal towns; resumable per round',
    )
    .requiredOption(
      '--out <dir>',
      'run folder: checkpoints (resumed when present), agent.onnx/json, selfplay-teacher.onnx/json, curves.svg',
    )
    .option(
      '--generator <name>',
      'selfplay (the asymmetric game) | adversarial (same teacher, no solvability check) | longtail (procedural long-tail, no teacher) | nominal (towns only)',
      'selfplay',
    )
    .option(
      '--scenarios <spec>',
      'nominal training scenarios with demonstrations (same forms as train-agents)',
      'town:1-8',
    )
    .option(
      '--student <model>',
      'the student to start from (ONNX with its metadata JSON)',
      SHIPPED_AGENT_MODEL,
    )
    .option('--teacher-init <model>', 'a teacher to start from (selfplay-teacher.onnx); default: a fresh one')
    .option('--rounds <n>', 'teacher/student rounds', intOption('--rounds', 1), d.rounds)
    .option(
      '--proposals <n>',
      'scenarios the teacher proposes and learns from per round',
      intOption('--proposals', 1),
      d.proposalsPerRound,
    )
    .option(
      '--student-iterations <n>',
      'student RTR iterations per round (0: frozen student, the teacher alone learns)',
      intOption('--student-iterations', 0),
      d.studentIterations,
    )
    .option(
      '--towns-per-iteration <n>',
      'nominal scenarios in each student iteration',
      intOption('--towns-per-iteration', 0),
      d.townsPerIteration,
    )
    .option(
      '--longtail-per-iteration <n>',
      "generated scenarios (the teacher's, or procedural) in each student iteration",
      intOption('--longtail-per-iteration', 0),
      d.longtailPerIteration,
    )
    .option(
      '--student-recipe <name>',
      "model (the RL settings the student's metadata records: rule walkers and parked cars, its PPO and dual ascent, its last λ) | basic (RTR's first recipe, the network driving every agent)",
      d.studentRecipe,
    )
    .option('--seed <s>', 'random seed', intOption('--seed', 0), 1)
    .option('--json', 'print the summary as one JSON line')
    .action(async (opts: TrainSelfplayCliOptions) => {
      const summary = await runTrainSelfplay(opts);
      if (opts.json) printJson(summary);
    });
}
