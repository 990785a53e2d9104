// `train-agents` as a library: BC, DAgger, PPO or RTR training of the shared traffic-agent policy with progress,
// checkpoints a killed run resumes from, training curves, and the ONNX export with its metadata.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { makeDirs } from '../../core/dirs.ts';
import { Rng } from '../../core/rng.ts';
import { type LearnedModelSpec, LearnedPolicy, SyncInference } from '../agents/learned.ts';
import { AGENTS } from '../agents/registry.ts';
import type { Scenario } from '../scenario.ts';
import { AgentModel, type AgentModelConfig } from './agentModel.ts';
import { bcStep, demoScores, emptyBatch, fillDemoRows } from './bc.ts';
import { curvesSvg } from './curves.ts';
import {
  AggregateSet,
  DEFAULT_DAGGER,
  type DaggerConfig,
  type DaggerRollout,
  daggerBeta,
  daggerRollout,
} from './dagger.ts';
import { buildDemoSet, type DemoSet } from './demoData.ts';
import { DEFAULT_DUAL_ASCENT, type DualAscentConfig } from './dualAscent.ts';
import { DEFAULT_EMA_PG, EmaAnchor, type EmaPgConfig } from './emaAnchor.ts';
import { closedLoopScores, type MeanScores } from './evaluate.ts';
import { DEFAULT_PPO, type PpoConfig } from './ppo.ts';
import { withLogRoutes } from './logExpert.ts';
import { rlIteration } from './rtr.ts';
import type { ClosedLoopConfig } from './closedLoop.ts';
import { DEFAULT_REWARD, type RewardConfig } from './reward.ts';

export type TrainMode = 'bc' | 'dagger' | 'ppo' | 'rtr';

export interface TrainAgentsConfig {
  mode: TrainMode;
  /** BC: optimizer steps; DAgger: rounds; PPO / RTR: closed-loop iterations. */
  steps: number;
  /** BC / DAgger minibatch rows. */
  batch: number;
  /** Scenarios rolled out per DAgger round or PPO / RTR iteration. */
  scenariosPerIteration: number;
  /** Checkpoint every this many steps (BC), rounds (DAgger) or iterations (PPO / RTR). */
  checkpointEvery: number;
  /** Curve point every this many BC steps. */
  logEvery: number;
  /** Initial λ of RTR. */
  lambda: number;
  seed: number;
  ppo: PpoConfig;
  /** Policy-gradient variant of PPO / RTR: plain clipped PPO, or EMA-PG (KL to an EMA anchor). */
  pg: 'ppo' | 'ema';
  emaPg: EmaPgConfig;
  dual: DualAscentConfig;
  dagger: DaggerConfig;
  rl: RlRecipe;
  /**
   * The network drives moving vehicles and cyclists only; parked vehicles and pedestrians follow
   * simulation/agents/ruleAgents.ts, in training (DAgger) and in the exported model's use.
   */
  ruleAgents: boolean;
  /** Leave the waits the observation cannot explain out of the logged demonstrations (DemoOptions.dropUnexplainedWaits). */
  dropUnexplainedWaits: boolean;
  model: Partial<AgentModelConfig>;
}

/** PPO / RTR beyond the PPO update itself: how experience is collected, what imitation sees, how λ moves. */
export interface RlRecipe {
  /** Bootstrap at the time limit, return scaling and expert labels (closedLoop.ts); rule agents follow `ruleAgents`. */
  closedLoop: Pick<ClosedLoopConfig, 'labelStride' | 'bootstrap' | 'normaliseReturns' | 'expert'> & {
    /** The RL reward's settings over DEFAULT_REWARD (reward.ts). */
    reward?: Partial<RewardConfig>;
  };
  /** Share of each iteration's scenarios drawn from the long-tail ones (0: one pool of logged and long-tail). */
  longtailShare: number;
  /** Dual ascent on an exponential average of the infraction rate with this weight on the past (0: raw). */
  rateSmoothing: number;
  /** Rows the imitation set keeps when the rollouts are expert-labelled (closedLoop.labelStride > 0). */
  ilSetSize: number;
}

/** The recipe PPO and RTR were first trained with. */
export const DEFAULT_RL: RlRecipe = {
  closedLoop: { labelStride: 0, bootstrap: false, normaliseReturns: false, expert: {} },
  longtailShare: 0,
  rateSmoothing: 0,
  ilSetSize: 120_000,
};

/**
 * The full recipe (`--rl-recipe full`): imitation rows on the policy's own states labelled by the
 * log-conditioned expert, bootstrap at the time limit, scaled returns, a quarter long-tail scenarios, and
 * dual ascent on a smoothed rate with a small step (FULL_RL_DUAL; its 0.5 % target sits below the DAgger
 * policy's own rate, so the RL term keeps a weight instead of fading to 0 as with the basic 2 %); with a
 * value network of its own (FULL_RL_VALUE_HIDDEN).
 */
export const FULL_RL: RlRecipe = {
  closedLoop: { labelStride: 2, bootstrap: true, normaliseReturns: true, expert: {} },
  longtailShare: 0.25,
  rateSmoothing: 0.8,
  ilSetSize: 120_000,
};
export const FULL_RL_DUAL: DualAscentConfig = { targetRate: 0.005, stepSize: 2, maxLambda: 10 };
export const FULL_RL_VALUE_HIDDEN: readonly number[] = [128];

/** RTR's file of expert-labelled imitation rows (runs with closedLoop.labelStride > 0), resumed with the run. */
export const RTR_IL_SET_FILE = 'rtr-il-set.bin';

export const DEFAULT_TRAIN_AGENTS: TrainAgentsConfig = {
  mode: 'bc',
  steps: 2000,
  batch: 256,
  scenariosPerIteration: 2,
  checkpointEvery: 100,
  logEvery: 50,
  lambda: 0.5,
  seed: 1,
  ppo: DEFAULT_PPO,
  pg: 'ppo',
  emaPg: DEFAULT_EMA_PG,
  dual: DEFAULT_DUAL_ASCENT,
  dagger: DEFAULT_DAGGER,
  rl: DEFAULT_RL,
  ruleAgents: false,
  dropUnexplainedWaits: false,
  model: {},
};

export interface TrainAgentsInput {
  /** Logged scenarios with demonstrations. */
  scenarios: Scenario[];
  /** Procedurally generated long-tail scenarios (RL only). */
  longtail?: Scenario[];
  /** Held-back scenarios scored in closed loop at the end. */
  evalScenarios?: Scenario[];
  /** Names of the data, kept in the metadata. */
  data: Record<string, string>;
  out: string;
  /** Start from another run's checkpoint (its parameters only). */
  init?: string;
  onProgress?: (done: number, total: number, status: string) => void;
  /** Called once when a checkpoint is resumed, with the steps or iterations it had done. */
  onResume?: (done: number) => void;
}

export const TRAIN_FILES = {
  checkpoint: 'checkpoint.safetensors',
  model: 'agent.onnx',
  meta: 'agent.json',
  curves: 'curves.svg',
  curveJson: 'curve.json',
} as const;

/** DAgger's aggregated set in the run folder (what a resumed DAgger run continues with). */
export const DAGGER_SET_FILE = 'dagger-set.bin';
/** Its long-tail counterpart (runs with --longtail). */
export const DAGGER_LONGTAIL_SET_FILE = 'dagger-longtail-set.bin';

type CurvePoint = Record<string, number>;

export interface TrainAgentsResult {
  mode: TrainMode;
  stepsDone: number;
  resumedFrom: number;
  parameters: number;
  demos: { samples: number; expertSteps: number; infeasibleShare: number; droppedWaits?: number } | null;
  curve: CurvePoint[];
  heldOut: Record<string, MeanScores> | null;
  lambda: number;
}

/** Train (or resume) a policy and export it; everything lands in `input.out`. */
export async function trainAgents(
  input: TrainAgentsInput,
  over: Partial<TrainAgentsConfig> = {},
): Promise<TrainAgentsResult> {
  const cfg = { ...DEFAULT_TRAIN_AGENTS, ...over };
  makeDirs(input.out);
  // The KL-to-anchor term only where EMA-PG feeds it.
  const model = await AgentModel.create({ ...cfg.model, anchorTerm: cfg.pg === 'ema' });
  try {
    const rng = new Rng(cfg.seed);
    const ckpt = path.join(input.out, TRAIN_FILES.checkpoint);
    let start = 0;
    let lambda = cfg.mode === 'ppo' ? 1 : cfg.lambda;
    let curve: CurvePoint[] = [];
    let smoothedRate: number | undefined;
    if (fs.existsSync(ckpt)) {
      const r = await model.loadCheckpoint(ckpt, rng);
      const extra = r.extra as {
        mode: TrainMode;
        done: number;
        lambda: number;
        curve: CurvePoint[];
        smoothedRate?: number;
      };
      if (extra.mode !== cfg.mode)
        throw new Error(`${ckpt}: a ${extra.mode} run, not ${cfg.mode} (use another --out)`);
      start = extra.done;
      lambda = extra.lambda;
      curve = extra.curve;
      smoothedRate = extra.smoothedRate;
    } else if (input.init) {
      await model.loadWeights(input.init);
    }
    const resumedFrom = start;
    if (resumedFrom > 0) input.onResume?.(resumedFrom);
    const needDemos = cfg.mode !== 'ppo';
    const demos: DemoSet | undefined = needDemos
      ? buildDemoSet(input.scenarios, model.bins, model.cfg.observation, {
          skipRuleAgents: cfg.ruleAgents,
          dropUnexplainedWaits: cfg.dropUnexplainedWaits,
        })
      : undefined;
    const save = (done: number) =>
      model.saveCheckpoint(ckpt, model.trainer.stepCount, rng, {
        mode: cfg.mode,
        done,
        lambda,
        curve,
        smoothedRate,
      });
    if (cfg.mode === 'bc') {
      const b = emptyBatch(cfg.batch, model.obsSize);
      let sum = 0;
      let k = 0;
      for (let s = start; s < cfg.steps; s++) {
        sum += await bcStep(model, demos!, rng, b);
        k++;
        if ((s + 1) % cfg.logEvery === 0 || s + 1 === cfg.steps) {
          curve.push({ step: s + 1, ce: sum / k });
          input.onProgress?.(s + 1, cfg.steps, `ce ${(sum / k).toFixed(3)}`);
          sum = 0;
          k = 0;
        }
        if ((s + 1) % cfg.checkpointEvery === 0 || s + 1 === cfg.steps) await save(s + 1);
      }
    } else if (cfg.mode === 'dagger') {
      await daggerRounds(model, input, cfg, demos!, rng, start, curve, save);
    } else {
      const rl = cfg.rl;
      const labels = rl.closedLoop.labelStride > 0;
      // The expert follows each logged agent's own lanes (as in DAgger's rollouts).
      const logged = labels ? input.scenarios.map((s) => withLogRoutes(s)) : input.scenarios;
      const longtail = input.longtail ?? [];
      const pool = [...logged, ...longtail];
      const anchor = cfg.pg === 'ema' ? new EmaAnchor(model, cfg.emaPg) : undefined;
      const ilFile = path.join(input.out, RTR_IL_SET_FILE);
      let ilSet: AggregateSet | undefined;
      if (labels && cfg.mode === 'rtr') {
        if (start > 0 && fs.existsSync(ilFile))
          ilSet = AggregateSet.fromBytes(fs.readFileSync(ilFile), model.obsSize, rl.ilSetSize, ilFile);
        else {
          // Seeded with the log demonstrations; the policy's own labelled states replace them over time.
          ilSet = new AggregateSet(model.obsSize, rl.ilSetSize);
          if (demos) ilSet.add(demos.obs, demos.action, demos.count, rng);
        }
      }
      const draw = (from: readonly Scenario[]) => from[rng.int(from.length)];
      for (let it = start; it < cfg.steps; it++) {
        const k = Math.min(cfg.scenariosPerIteration, pool.length);
        const fromLongtail = longtail.length && rl.longtailShare > 0 ? Math.round(k * rl.longtailShare) : 0;
        const batch =
          fromLongtail > 0
            ? [
                ...Array.from({ length: k - fromLongtail }, () => draw(logged)),
                ...Array.from({ length: fromLongtail }, () => draw(longtail)),
              ]
            : Array.from({ length: k }, () => draw(pool));
        const r = await rlIteration(model, batch, rng, {
          mode: cfg.mode,
          lambda,
          ppo: cfg.ppo,
          dual: cfg.dual,
          demos,
          anchor,
          closedLoop: {
            ...rl.closedLoop,
            reward: { ...DEFAULT_REWARD, ...rl.closedLoop.reward },
            ruleAgents: cfg.ruleAgents,
          },
          ilSet,
          rateSmoothing: rl.rateSmoothing,
          smoothedRate,
        });
        lambda = r.nextLambda;
        smoothedRate = r.smoothedRate;
        curve.push({
          iteration: it + 1,
          return: r.meanEpisodeReturn,
          collision: r.collisionRate,
          offroad: r.offroadRate,
          red_light: r.redLightRate,
          infraction: r.infractionRate,
          lambda: r.lambda,
          ...(rl.rateSmoothing > 0 ? { infraction_smoothed: r.smoothedRate } : {}),
          ce: r.terms.ce ?? NaN,
          ...(anchor ? { kl: r.terms.kl ?? NaN } : {}),
        });
        input.onProgress?.(
          it + 1,
          cfg.steps,
          `return ${r.meanEpisodeReturn.toFixed(2)} infractions ${(100 * r.infractionRate).toFixed(1)}% λ ${r.lambda.toFixed(2)}`,
        );
        if ((it + 1) % cfg.checkpointEvery === 0 || it + 1 === cfg.steps) {
          if (ilSet) writeFileAtomicSync(ilFile, ilSet.toBytes());
          await save(it + 1);
        }
      }
    }
    const settings: LearnedModelSpec & Record<string, unknown> = {
      observation: model.cfg.observation,
      bins: model.cfg.bins,
      net: model.net.cfg,
      mode: cfg.mode,
      steps: cfg.steps,
      batch: cfg.batch,
      scenariosPerIteration: cfg.scenariosPerIteration,
      ppo: cfg.ppo,
      pg: cfg.mode === 'ppo' || cfg.mode === 'rtr' ? cfg.pg : undefined,
      emaPg: (cfg.mode === 'ppo' || cfg.mode === 'rtr') && cfg.pg === 'ema' ? cfg.emaPg : undefined,
      dual: cfg.dual,
      dagger: cfg.mode === 'dagger' ? cfg.dagger : undefined,
      rl: cfg.mode === 'ppo' || cfg.mode === 'rtr' ? cfg.rl : undefined,
      ruleAgents: cfg.ruleAgents,
      // RL tuned the policy at this temperature: it is what the shipped agent samples at.
      ...((cfg.mode === 'ppo' || cfg.mode === 'rtr') && (model.cfg.ppoLoss.temperature ?? 1) !== 1
        ? { temperature: model.cfg.ppoLoss.temperature }
        : {}),
      lr: model.cfg.lr,
      seed: cfg.seed,
    };
    let heldOut: Record<string, MeanScores> | null = null;
    const bytes = model.onnxBytes();
    if (input.evalScenarios?.length) {
      const inf = new SyncInference(bytes, model.obsSize, model.bins.count);
      try {
        heldOut = {
          [cfg.mode]: closedLoopScores(
            input.evalScenarios,
            () => new LearnedPolicy(inf, settings, { seed: 0 }),
          ),
          cv: closedLoopScores(input.evalScenarios, () => AGENTS.cv()),
        };
      } finally {
        inf.close();
      }
    }
    const demoInfo = demos
      ? {
          samples: demos.count,
          expertSteps: demos.expertSteps,
          infeasibleShare: demos.infeasibleSteps / Math.max(demos.expertSteps, 1),
          ...(cfg.dropUnexplainedWaits ? { droppedWaits: demos.droppedWaits ?? 0 } : {}),
        }
      : null;
    const heldDemo =
      demos && input.evalScenarios?.length
        ? await demoScores(model, buildDemoSet(input.evalScenarios, model.bins, model.cfg.observation))
        : null;
    writeFileAtomicSync(path.join(input.out, TRAIN_FILES.model), bytes);
    const meta = {
      format: 'drivekit-agent-model/1',
      settings,
      parameters: model.parameterCount(),
      data: { ...input.data, demonstrations: demoInfo },
      heldOut: { closedLoop: heldOut, openLoop: heldDemo },
      lambda,
      curve,
    };
    writeFileAtomicSync(path.join(input.out, TRAIN_FILES.meta), JSON.stringify(meta, null, 1) + '\n');
    const x = cfg.mode === 'bc' ? 'step' : cfg.mode === 'dagger' ? 'round' : 'iteration';
    const keys = Object.keys(curve[0] ?? {}).filter((k) => k !== x);
    writeFileAtomicSync(
      path.join(input.out, TRAIN_FILES.curves),
      curvesSvg(
        `drivekit train-agents --mode ${cfg.mode}`,
        x,
        keys.map((k) => ({ name: k, points: curve.map((p) => [p[x], p[k]] as const) })),
      ),
    );
    return {
      mode: cfg.mode,
      stepsDone: Math.max(cfg.steps, start),
      resumedFrom,
      parameters: model.parameterCount(),
      demos: demoInfo,
      curve,
      heldOut,
      lambda,
    };
  } finally {
    await model.dispose();
  }
}

/**
 * DAgger rounds `start` … steps − 1: roll out the learner (expert share β falling to 0) on a few logged
 * scenarios with their log routes, add the expert-labelled states to the aggregated set (kept in the run
 * folder, so a resumed run continues with it), then train on minibatches mixing it with the log demos.
 */
async function daggerRounds(
  model: AgentModel,
  input: TrainAgentsInput,
  cfg: TrainAgentsConfig,
  demos: DemoSet,
  rng: Rng,
  start: number,
  curve: CurvePoint[],
  save: (done: number) => Promise<void>,
): Promise<void> {
  const dc = cfg.dagger;
  const setFile = path.join(input.out, DAGGER_SET_FILE);
  const set =
    start > 0 && fs.existsSync(setFile)
      ? AggregateSet.fromBytes(fs.readFileSync(setFile), model.obsSize, dc.maxSamples, setFile)
      : new AggregateSet(model.obsSize, dc.maxSamples);
  const logged = input.scenarios.map((s) => withLogRoutes(s));
  // Long-tail scenarios carry their own routes and the oracle's plan as the ego's log: the expert
  // follows that route at the plan's speed, braking behind whoever cuts in (IDM's leader logic).
  const longtail = input.longtail ?? [];
  const ltFile = path.join(input.out, DAGGER_LONGTAIL_SET_FILE);
  const ltSet =
    start > 0 && fs.existsSync(ltFile)
      ? AggregateSet.fromBytes(fs.readFileSync(ltFile), model.obsSize, dc.maxSamples, ltFile)
      : new AggregateSet(model.obsSize, dc.maxSamples);
  const b = emptyBatch(cfg.batch, model.obsSize);
  const fromLog = Math.round(cfg.batch * dc.logDemoShare);
  const fromLt = longtail.length ? Math.round(cfg.batch * dc.longtailShare) : 0;
  for (let r = start; r < cfg.steps; r++) {
    const beta = daggerBeta(r, dc);
    const picks = Array.from(
      { length: Math.min(cfg.scenariosPerIteration, logged.length) },
      () => logged[rng.int(logged.length)],
    );
    const roll = await daggerRollout(model, picks, rng, beta, cfg.ruleAgents, dc.sampleStride, dc);
    set.add(roll.obs, roll.action, roll.count, rng);
    let lt: DaggerRollout | null = null;
    if (longtail.length) {
      const ltPicks = Array.from(
        { length: Math.min(dc.longtailPerRound, longtail.length) },
        () => longtail[rng.int(longtail.length)],
      );
      lt = await daggerRollout(model, ltPicks, rng, beta, cfg.ruleAgents, 1, dc);
      ltSet.add(lt.obs, lt.action, lt.count, rng);
    }
    const ltRows = ltSet.count > 0 ? fromLt : 0;
    let ce = 0;
    for (let k = 0; k < dc.stepsPerRound; k++) {
      fillDemoRows(b, demos, rng, 0, fromLog - ltRows);
      if (ltRows) fillDemoRows(b, ltSet, rng, fromLog - ltRows, fromLog);
      fillDemoRows(b, set, rng, fromLog, cfg.batch);
      b.coef = [1, 0];
      ce += (await model.step(b)).ce;
    }
    curve.push({
      round: r + 1,
      beta,
      offroad: roll.offroadRate,
      collision: roll.collisionRate,
      agreement: roll.agreement,
      samples: set.count,
      ce: ce / Math.max(dc.stepsPerRound, 1),
      ...(lt
        ? {
            longtail_offroad: lt.offroadRate,
            longtail_collision: lt.collisionRate,
            longtail_samples: ltSet.count,
          }
        : {}),
    });
    input.onProgress?.(
      r + 1,
      cfg.steps,
      `β ${beta.toFixed(2)} off-road ${(100 * roll.offroadRate).toFixed(1)}% collision ${(100 * roll.collisionRate).toFixed(1)}% agree ${(100 * roll.agreement).toFixed(0)}% set ${set.count}` +
        (lt
          ? ` long-tail off-road ${(100 * lt.offroadRate).toFixed(1)}% collision ${(100 * lt.collisionRate).toFixed(1)}%`
          : ''),
    );
    if ((r + 1) % cfg.checkpointEvery === 0 || r + 1 === cfg.steps) {
      writeFileAtomicSync(setFile, set.toBytes());
      if (longtail.length) writeFileAtomicSync(ltFile, ltSet.toBytes());
      await save(r + 1);
    }
  }
}
