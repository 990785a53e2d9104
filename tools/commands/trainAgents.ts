// `drivekit train-agents --mode <bc|ppo|rtr> --scenarios <…> [--longtail <kinds>] [--eval-scenarios <…>]
// --out <dir>`: train the shared learned traffic-agent policy (RTR, Zhang et al. CoRL 2023) and export it.
import type { Command } from 'commander';
import { actionHeads } from './actionHeads.ts';
import { DEFAULT_ACTION_BINS } from '../../simulation/training/actionBins.ts';
import { printJson } from '../cliOptions.ts';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { longtailFromSpec, scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { withLoggedGoals } from '../../simulation/training/loggedGoals.ts';
import { prepareScenarioSources } from '../../simulation/scenarioSources.ts';
import { DEFAULT_REWARD } from '../../simulation/training/reward.ts';
import { DEFAULT_LOG_EXPERT } from '../../simulation/training/logExpert.ts';
import {
  DEFAULT_RL,
  DEFAULT_TRAIN_AGENTS,
  FULL_RL,
  FULL_RL_DUAL,
  FULL_RL_VALUE_HIDDEN,
  trainAgents,
  type TrainMode,
} from '../../simulation/training/trainAgents.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { DEFAULT_OBSERVATION } from '../../simulation/observation.ts';
import { DEFAULT_PPO_LOSS } from '../../simulation/training/policyNet.ts';
import { REAL_EXPERTS, type RealExpert } from '../../simulation/training/dagger.ts';

export interface TrainAgentsCliOptions {
  mode: string;
  scenarios: string;
  longtail?: string;
  evalScenarios?: string;
  out: string;
  steps?: number;
  batch?: number;
  perIteration?: number;
  lambda?: number;
  checkpointEvery?: number;
  maxLambda?: number;
  pg?: string;
  init?: string;
  ruleAgents?: boolean;
  stepsPerRound?: number;
  realExpert?: string;
  betaRounds?: number;
  logDemoShare?: number;
  cyclistRepeat?: number;
  loggedGoals?: number;
  rlRecipe?: string;
  longtailShare?: number;
  expertCatchUp?: number;
  expertStartWaits?: boolean;
  expertLeaderOnRoute?: boolean;
  probeHoldsLane?: boolean;
  omitHistory?: boolean;
  crossings?: number;
  dropUnexplainedWaits?: boolean;
  mergeYield?: boolean;
  planFrameExtents?: boolean;
  expertYieldHorizon?: number;
  probeYieldHorizon?: number;
  progressReward?: number;
  goalPass?: number;
  rlTemperature?: number;
  observation?: string;
  steering?: string;
  accel?: string;
  heads?: string;
  seed: number;
  json?: boolean;
}

const MODES: readonly TrainMode[] = ['bc', 'dagger', 'ppo', 'rtr'];

export async function runTrainAgents(opts: TrainAgentsCliOptions): Promise<Record<string, unknown>> {
  if (!MODES.includes(opts.mode as TrainMode))
    throw new InputError('--mode', `must be one of ${MODES.join(', ')}, got '${opts.mode}'`);
  const mode = opts.mode as TrainMode;
  const pg = opts.pg ?? 'ppo';
  if (pg !== 'ppo' && pg !== 'ema') throw new InputError('--pg', `must be ppo or ema, got '${pg}'`);
  if (pg === 'ema' && mode === 'bc')
    throw new InputError('--pg', 'ema is a PPO option: use --mode ppo or rtr');
  if (opts.longtail && mode === 'bc')
    throw new InputError(
      '--longtail',
      'long-tail scenarios have no demonstrations: use --mode dagger, ppo or rtr',
    );
  const obsVersion = opts.observation ?? '2';
  if (obsVersion !== '1' && obsVersion !== '2')
    throw new InputError('--observation', `must be 1 or 2, got '${obsVersion}'`);
  if (opts.omitHistory === true && obsVersion !== '2')
    throw new InputError('--omit-history', 'is an option of the expert block: use --observation 2');
  if (opts.crossings !== undefined && obsVersion !== '2')
    throw new InputError('--crossings', 'is an option of the expert block: use --observation 2');
  if (opts.probeYieldHorizon !== undefined && obsVersion !== '2')
    throw new InputError('--probe-yield-horizon', 'is an option of the expert block: use --observation 2');
  if (opts.probeHoldsLane === true && obsVersion !== '2')
    throw new InputError('--probe-holds-lane', 'is an option of the expert block: use --observation 2');
  if (opts.stepsPerRound !== undefined && mode !== 'dagger')
    throw new InputError('--steps-per-round', 'is a DAgger option: use --mode dagger');
  const realExpert = (opts.realExpert ?? DEFAULT_TRAIN_AGENTS.dagger.realExpert) as RealExpert;
  if (!REAL_EXPERTS.includes(realExpert))
    throw new InputError(
      '--real-expert',
      `must be one of ${REAL_EXPERTS.join(', ')}, got '${opts.realExpert}'`,
    );
  if (opts.realExpert !== undefined && mode !== 'dagger')
    throw new InputError('--real-expert', 'is a DAgger option: use --mode dagger');
  if (opts.logDemoShare !== undefined && mode !== 'dagger')
    throw new InputError('--log-demo-share', 'is a DAgger option: use --mode dagger');
  if (opts.cyclistRepeat !== undefined && mode !== 'dagger')
    throw new InputError('--cyclist-repeat', 'is a DAgger option: use --mode dagger');
  if (opts.betaRounds !== undefined && mode !== 'dagger')
    throw new InputError('--beta-rounds', 'is a DAgger option: use --mode dagger');
  const recipe = opts.rlRecipe ?? 'basic';
  if (recipe !== 'basic' && recipe !== 'full')
    throw new InputError('--rl-recipe', `must be basic or full, got '${opts.rlRecipe}'`);
  if (opts.rlRecipe !== undefined && mode !== 'ppo' && mode !== 'rtr')
    throw new InputError('--rl-recipe', 'is a PPO / RTR option: use --mode ppo or rtr');
  const full = recipe === 'full';
  if (opts.longtailShare !== undefined && !full)
    throw new InputError(
      '--longtail-share',
      'is part of the RL recipe: use --mode ppo or rtr with --rl-recipe full',
    );
  if (opts.longtailShare !== undefined && !opts.longtail)
    throw new InputError('--longtail-share', 'needs long-tail scenarios to draw from: give --longtail');
  for (const [flag, given] of [
    ['--expert-catch-up', opts.expertCatchUp !== undefined],
    ['--expert-start-waits', opts.expertStartWaits === true],
    ['--expert-leader-on-route', opts.expertLeaderOnRoute === true],
    ['--merge-yield', opts.mergeYield === true],
    ['--plan-frame-extents', opts.planFrameExtents === true],
    ['--expert-yield-horizon', opts.expertYieldHorizon !== undefined],
  ] as const) {
    if (given && !full && mode !== 'dagger')
      throw new InputError(
        flag,
        "is the labelling expert's: use --mode dagger, or --mode rtr --rl-recipe full",
      );
  }
  const expertCfg = {
    ...(opts.expertCatchUp !== undefined ? { catchUpS: opts.expertCatchUp } : {}),
    ...(opts.expertStartWaits === true ? { startUnobservedWaits: true } : {}),
    ...(opts.expertLeaderOnRoute === true ? { leaderOnRoute: true } : {}),
    ...(opts.mergeYield === true ? { mergeYield: true } : {}),
    ...(opts.planFrameExtents === true ? { planFrameExtents: true } : {}),
    ...(opts.expertYieldHorizon !== undefined ? { yieldHorizonS: opts.expertYieldHorizon } : {}),
  };
  const expertGiven = Object.keys(expertCfg).length > 0;
  if (opts.progressReward !== undefined && mode !== 'ppo' && mode !== 'rtr')
    throw new InputError('--progress-reward', 'is the RL reward: use --mode ppo or rtr');
  if (opts.goalPass !== undefined && mode !== 'ppo' && mode !== 'rtr')
    throw new InputError('--goal-pass', 'is the RL reward: use --mode ppo or rtr');
  if (opts.rlTemperature !== undefined && mode !== 'ppo' && mode !== 'rtr')
    throw new InputError('--rl-temperature', "is the RL rollouts' temperature: use --mode ppo or rtr");
  const { steering, accel, heads } = actionHeads(opts, obsVersion);
  const rewardOver = {
    ...(opts.progressReward !== undefined ? { progressPerM: opts.progressReward } : {}),
    ...(opts.goalPass !== undefined ? { goalPassM: opts.goalPass } : {}),
  };
  const reward = Object.keys(rewardOver).length > 0 ? { reward: rewardOver } : {};
  const recipeBase = full ? FULL_RL : DEFAULT_RL;
  const dual = {
    ...(full ? FULL_RL_DUAL : DEFAULT_TRAIN_AGENTS.dual),
    ...(opts.maxLambda !== undefined ? { maxLambda: opts.maxLambda } : {}),
  };
  // AV2 motion-forecasting Parquet is read ahead (asynchronously) for the spec's loader.
  await prepareScenarioSources(opts.scenarios);
  if (opts.evalScenarios) await prepareScenarioSources(opts.evalScenarios);
  const load = createProgress('scenarios', 0, { silent: opts.json });
  if (opts.loggedGoals !== undefined && !(opts.loggedGoals >= 0 && opts.loggedGoals <= 1))
    throw new InputError('--logged-goals', `must be a share in [0, 1], got ${opts.loggedGoals}`);
  const given = scenariosFromSpec(opts.scenarios, '--scenarios', () => load.tick());
  // Towns give a goal to their ego alone; real scenarios give every agent its last logged position.
  const scenarios =
    opts.loggedGoals !== undefined
      ? given.map((s) => withLoggedGoals(s, opts.loggedGoals!, opts.seed))
      : given;
  const evalScenarios = opts.evalScenarios ? scenariosFromSpec(opts.evalScenarios, '--eval-scenarios') : [];
  const longtail = opts.longtail ? longtailFromSpec(opts.longtail, opts.seed) : [];
  load.stop();
  const steps = opts.steps ?? (mode === 'bc' ? DEFAULT_TRAIN_AGENTS.steps : mode === 'dagger' ? 8 : 40);
  const bar = createProgress(`train-agents ${mode}`, steps, { silent: opts.json });
  const res = await trainAgents(
    {
      scenarios,
      longtail,
      evalScenarios,
      data: {
        command: ['drivekit', ...process.argv.slice(2)].join(' '),
        scenarios: opts.scenarios,
        longtail: opts.longtail ?? '',
        evalScenarios: opts.evalScenarios ?? '',
      },
      out: opts.out,
      init: opts.init,
      onProgress: (done, _total, status) => bar.update(done, status),
      onResume: (done) => bar.resume(done),
    },
    {
      mode,
      steps,
      seed: opts.seed,
      ...(opts.batch !== undefined ? { batch: opts.batch } : {}),
      ...(opts.perIteration !== undefined ? { scenariosPerIteration: opts.perIteration } : {}),
      ...(opts.lambda !== undefined ? { lambda: opts.lambda } : {}),
      pg,
      dual,
      rl: {
        ...recipeBase,
        ...(opts.longtailShare !== undefined ? { longtailShare: opts.longtailShare } : {}),
        closedLoop: {
          ...recipeBase.closedLoop,
          ...(expertGiven ? { expert: expertCfg } : {}),
          ...reward,
        },
      },
      ...(opts.checkpointEvery !== undefined ? { checkpointEvery: opts.checkpointEvery } : {}),
      ruleAgents: opts.ruleAgents === true,
      dropUnexplainedWaits: opts.dropUnexplainedWaits === true,
      model: {
        observation: {
          ...DEFAULT_OBSERVATION,
          version: obsVersion === '1' ? 1 : 2,
          ...(opts.expertLeaderOnRoute === true ? { leaderOnRoute: true } : {}),
          ...(opts.probeHoldsLane === true ? { probeHoldsLane: true } : {}),
          ...(opts.omitHistory === true ? { omitHistory: true } : {}),
          ...(opts.crossings ? { crossings: opts.crossings } : {}),
          ...(opts.mergeYield === true ? { probeMergeYield: true } : {}),
          ...(opts.planFrameExtents === true ? { probePlanFrameExtents: true } : {}),
          ...(opts.probeYieldHorizon !== undefined ? { probeYieldHorizonS: opts.probeYieldHorizon } : {}),
        },
        bins: {
          ...DEFAULT_ACTION_BINS,
          residualSteering: steering === 'residual',
          residualAccel: accel === 'residual',
        },
        net: {
          factorisedHeads: heads === 'factorised',
          ...(full ? { valueHidden: FULL_RL_VALUE_HIDDEN } : {}),
        },
        ...(opts.rlTemperature !== undefined
          ? { ppoLoss: { ...DEFAULT_PPO_LOSS, temperature: opts.rlTemperature } }
          : {}),
      },
      dagger: {
        ...DEFAULT_TRAIN_AGENTS.dagger,
        realExpert,
        ...(opts.stepsPerRound !== undefined ? { stepsPerRound: opts.stepsPerRound } : {}),
        ...(opts.betaRounds !== undefined ? { betaRounds: opts.betaRounds } : {}),
        ...(opts.logDemoShare !== undefined ? { logDemoShare: opts.logDemoShare } : {}),
        ...(opts.cyclistRepeat !== undefined ? { cyclistRepeat: opts.cyclistRepeat } : {}),
        ...(expertGiven && mode === 'dagger' ? { expert: expertCfg } : {}),
      },
    },
  );
  bar.stop();
  const summary = {
    mode,
    out: opts.out,
    steps: res.stepsDone,
    resumedFrom: res.resumedFrom,
    parameters: res.parameters,
    demonstrations: res.demos,
    lambda: res.lambda,
    last: res.curve[res.curve.length - 1] ?? null,
    heldOut: res.heldOut,
  };
  if (!opts.json) {
    const ho = res.heldOut
      ? Object.entries(res.heldOut)
          .map(
            ([k, m]) =>
              `  ${k.padEnd(4)} ADE ${m.ade_m.toFixed(2)} m  collision ${(100 * m.collision_rate).toFixed(1)}%  off-road ${(100 * m.offroad_rate).toFixed(1)}%  progress ${m.progress.toFixed(2)}`,
          )
          .join('\n')
      : '  (no --eval-scenarios)';
    process.stdout.write(
      `${mode}: ${res.parameters} parameters, ${res.stepsDone} ${mode === 'bc' ? 'steps' : mode === 'dagger' ? 'rounds' : 'iterations'}` +
        (res.resumedFrom ? ` (resumed at ${res.resumedFrom})` : '') +
        `\nheld-out closed loop:\n${ho}\nwrote ${opts.out}/agent.onnx, agent.json, curves.svg\n`,
    );
  }
  return summary;
}

export function register(program: Command): void {
  program
    .command('train-agents')
    .description(
      'train the learned traffic agents: behaviour cloning, DAgger (closed-loop imitation of a log-conditioned IDM expert), PPO, or RTR (imitation + λ·PPO under an infraction constraint) in closed loop; exports agent.onnx',
    )
    .requiredOption('--mode <mode>', 'bc | dagger | ppo | rtr')
    .requiredOption(
      '--scenarios <spec>',
      'logged training scenarios: town:A-B (synthetic town seeds) and/or scenario files or folders (drivekit, WOMD, GPUDrive/Nocturne JSON, ScenarioNet, AV2 motion), comma-separated',
    )
    .requiredOption(
      '--out <dir>',
      'run folder: checkpoint (resumed when present), agent.onnx, agent.json, curves.svg',
    )
    .option(
      '--longtail <kinds>',
      'procedural long-tail scenarios (from --seed), kind[:count],…: the RL term of ppo/rtr, or DAgger rounds labelled by the expert following the oracle plan',
    )
    .option(
      '--eval-scenarios <spec>',
      'held-back scenarios scored in closed loop at the end (same forms as --scenarios)',
    )
    .option(
      '--steps <n>',
      'BC optimizer steps, DAgger rounds, or PPO/RTR iterations (default: 2000 / 8 / 40)',
      intOption('--steps', 1),
    )
    .option(
      '--batch <n>',
      `BC minibatch rows (default: ${DEFAULT_TRAIN_AGENTS.batch})`,
      intOption('--batch', 1),
    )
    .option(
      '--per-iteration <n>',
      `scenarios rolled out per DAgger round or PPO/RTR iteration (default: ${DEFAULT_TRAIN_AGENTS.scenariosPerIteration})`,
      intOption('--per-iteration', 1),
    )
    .option(
      '--lambda <x>',
      `initial λ of RTR (default: ${DEFAULT_TRAIN_AGENTS.lambda})`,
      numberOption('--lambda', { min: 0 }),
    )
    .option(
      '--max-lambda <x>',
      `cap of RTR's λ (default: ${DEFAULT_TRAIN_AGENTS.dual.maxLambda}): how far the RL term may outweigh imitation`,
      numberOption('--max-lambda', { min: 0 }),
    )
    .option(
      '--pg <variant>',
      'policy gradient of ppo/rtr: ppo (clipped PPO) or ema (EMA-PG: plus KL to a moving-average anchor over its top-k actions)',
    )
    .option(
      '--checkpoint-every <n>',
      `checkpoint every n BC steps or PPO/RTR iterations (default: ${DEFAULT_TRAIN_AGENTS.checkpointEvery})`,
      intOption('--checkpoint-every', 1),
    )
    .option(
      '--init <checkpoint>',
      "start from another run's parameters: its checkpoint.safetensors or an exported agent.onnx (e.g. --init models/agent.onnx)",
    )
    .option(
      '--rule-agents',
      'the network drives moving vehicles and cyclists; parked vehicles stay put and pedestrians walk by rule (avoiding others)',
    )
    .option(
      '--observation <version>',
      'observation layout: 2 (default; with the expert block: route ahead, lane offset, leader, stop line, history) or 1',
    )
    .option(
      '--steering <kind>',
      "absolute (a curvature bin is the curvature) or residual (a correction to pure pursuit on the agent's route; needs --observation 2) (default: the --init model's, else absolute)",
    )
    .option(
      '--accel <kind>',
      "absolute (an acceleration bin is the acceleration) or residual (a correction to IDM's acceleration: leader, yielding, red lights; needs --observation 2) (default: the --init model's, else absolute)",
    )
    .option(
      '--heads <kind>',
      "joint (one logit per acceleration × curvature pair) or factorised (an acceleration head and a curvature head, summed) (default: the --init model's, else joint)",
    )
    .option(
      '--steps-per-round <n>',
      `DAgger optimizer steps after each round's rollouts (default: ${DEFAULT_TRAIN_AGENTS.dagger.stepsPerRound})`,
      intOption('--steps-per-round', 1),
    )
    .option(
      '--real-expert <expert>',
      `DAgger's expert on real logs: idm (log-conditioned IDM, as on towns) catk (CAT-K: of the policy's top-K actions the one nearest the log) or catk-safe (CAT-K without the actions that would overlap another agent) (default: ${DEFAULT_TRAIN_AGENTS.dagger.realExpert})`,
    )
    .option(
      '--beta-rounds <n>',
      `DAgger rounds over which the expert's share of executed actions falls from 1 to 0; 0 = the learner drives from the start (default: ${DEFAULT_TRAIN_AGENTS.dagger.betaRounds})`,
      intOption('--beta-rounds', 0),
    )
    .option(
      '--logged-goals <x>',
      "share of the training scenarios' agents without a goal that get their last logged position as goal, as the real scenarios give every agent (towns give their ego alone one) (default: none)",
      numberOption('--logged-goals', { min: 0, max: 1 }),
    )
    .option(
      '--log-demo-share <x>',
      `dagger: share of each minibatch drawn from the logged demonstrations, the rest from the labelled rollouts (default: ${DEFAULT_TRAIN_AGENTS.dagger.logDemoShare})`,
      numberOption('--log-demo-share', { min: 0, max: 1 }),
    )
    .option(
      '--cyclist-repeat <n>',
      `dagger: each labelled cyclist row enters the aggregated set n times (default: ${DEFAULT_TRAIN_AGENTS.dagger.cyclistRepeat})`,
      intOption('--cyclist-repeat', 1),
    )
    .option(
      '--rl-recipe <recipe>',
      "ppo/rtr: basic (default) or full — imitation on the policy's own states labelled by the log-conditioned expert, bootstrap at the time limit, scaled returns, 25 % long-tail scenarios, dual ascent on a smoothed infraction rate with step 2, a separate value network",
    )
    .option(
      '--longtail-share <x>',
      `ppo/rtr with --rl-recipe full: share of each iteration's scenarios drawn from --longtail (default: ${FULL_RL.longtailShare})`,
      numberOption('--longtail-share', { min: 0, max: 1 }),
    )
    .option(
      '--expert-catch-up <s>',
      "dagger, or rtr with --rl-recipe full: the labelling expert closes the gap to the agent's logged position within s seconds (raises its desired speed by at most 5 m/s)",
      numberOption('--expert-catch-up', { min: 0.1 }),
    )
    .option(
      '--expert-start-waits',
      'dagger, or rtr with --rl-recipe full: where the log stands, the labelling expert desires the speed the log moves at next, so it waits only for a leader, a yield or a light (LogExpertConfig.startUnobservedWaits)',
    )
    .option(
      '--expert-leader-on-route',
      "dagger, or rtr with --rl-recipe full: the labelling expert's leader must lie on its planned route too, not only on the parabola of its current curvature (which swings over parked cars in curves; LogExpertConfig.leaderOnRoute), and so must the leader of the observation's IDM probe, the base of residual acceleration (ObservationConfig.leaderOnRoute)",
    )
    .option(
      '--merge-yield',
      "dagger, or rtr with --rl-recipe full: of two vehicles side by side whose paths merge, the one behind yields — in the labelling expert (LogExpertConfig.mergeYield) and in the observation's IDM probe, the base of residual acceleration (ObservationConfig.probeMergeYield)",
    )
    .option(
      '--plan-frame-extents',
      "dagger, or rtr with --rl-recipe full: a conflict predicted on the planned path is measured with the other agent's extents in that path point's frame, not in the agent's current heading's (a car parked along a curve held the expert back for good) — in the labelling expert (LogExpertConfig.planFrameExtents) and in the observation's IDM probe (ObservationConfig.probePlanFrameExtents)",
    )
    .option(
      '--expert-yield-horizon <s>',
      `dagger, or rtr with --rl-recipe full: the labelling expert yields only to conflicts predicted within s seconds (LogExpertConfig.yieldHorizonS; default: ${DEFAULT_LOG_EXPERT.yieldHorizonS})`,
      numberOption('--expert-yield-horizon', { min: 0 }),
    )
    .option(
      '--probe-yield-horizon <s>',
      `the observation's IDM probe (the expert block, and the base of residual acceleration) yields only to conflicts predicted within s seconds (ObservationConfig.probeYieldHorizonS; default: ${DEFAULT_LOG_EXPERT.yieldHorizonS}, IDM's)`,
      numberOption('--probe-yield-horizon', { min: 0 }),
    )
    .option(
      '--omit-history',
      "the observation's expert block carries no history (last acceleration and yaw rate, speeds 0.5 s and 1 s ago): a policy that sees its own recent standstill learns to stay standing (ObservationConfig.omitHistory)",
    )
    .option(
      '--crossings <n>',
      'n slots of crossing conflicts in the observation after the expert block: moving agents whose straight path crosses the route ahead within 8 s, earliest first (ObservationConfig.crossings; default: none)',
      intOption('--crossings', 0),
    )
    .option(
      '--drop-unexplained-waits',
      "leave out of the logged demonstrations the waits the observation cannot explain: standing on the lane where IDM's acceleration says go and no crossing conflict is observed (DemoOptions.dropUnexplainedWaits)",
    )
    .option(
      '--probe-holds-lane',
      "the observation's IDM probe (the expert block, and the base of residual steering and acceleration) keeps the agent's lane instead of changing lanes on its behalf when a slow leader holds it back (ObservationConfig.probeHoldsLane)",
    )
    .option(
      '--rl-temperature <t>',
      'ppo/rtr: softmax temperature of the RL rollouts, which the PPO terms optimise and the model then samples at (settings.temperature; imitation stays at 1; default: 1)',
      numberOption('--rl-temperature', { min: 0.05, max: 1 }),
    )
    .option(
      '--progress-reward <perM>',
      `ppo/rtr: reward per metre gained towards the goal, against 1 per collision, off-road or red-light step (default: ${DEFAULT_REWARD.progressPerM})`,
      numberOption('--progress-reward', { min: 0 }),
    )
    .option(
      '--goal-pass <m>',
      `ppo/rtr: a goal behind the agent within this distance is reached, and driving on past it earns and costs nothing (default: ${DEFAULT_REWARD.goalPassM}: never reached, every metre away from the goal costs)`,
      numberOption('--goal-pass', { min: 0 }),
    )
    .option('--seed <s>', 'random seed', intOption('--seed', 0), 1)
    .option('--json', 'print the summary as one JSON line')
    .action(async (opts: TrainAgentsCliOptions) => {
      const summary = await runTrainAgents(opts);
      if (opts.json) printJson(summary);
    });
}
