// Asymmetric self-play training (Zhang et al., "Learning to Drive via Asymmetric Self-Play", ECCV 2024): rounds
// alternate a teacher update (PPO on its reward: the student's failure where its own solution succeeds) and
// student updates (RTR iterations on nominal towns mixed with the teacher's scenarios); resumable per round.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { makeDirs } from '../../core/dirs.ts';
import { Rng } from '../../core/rng.ts';
import { generateLongtail } from '../longtail/generate.ts';
import type { Scenario } from '../scenario.ts';
import type { AgentModel } from '../training/agentModel.ts';
import { curvesSvg } from '../training/curves.ts';
import { buildDemoSet, type DemoSet } from '../training/demoData.ts';
import { DEFAULT_DUAL_ASCENT, type DualAscentConfig } from '../training/dualAscent.ts';
import { DEFAULT_PPO, type PpoConfig } from '../training/ppo.ts';
import type { ClosedLoopConfig } from '../training/closedLoop.ts';
import { rlIteration } from '../training/rtr.ts';
import { AggregateSet } from '../training/dagger.ts';
import { withLogRoutes } from '../training/logExpert.ts';
import { FULL_RL, RTR_IL_SET_FILE } from '../training/trainAgents.ts';
import { TEACHER_KINDS } from './chosenDraws.ts';
import { DEFAULT_GAME, type GameConfig, judge, type Judged, propose } from './proposals.ts';
import { loadStudent, type StudentSpec, studentPolicy } from './student.ts';
import { TeacherModel, type TeacherModelConfig } from './teacherModel.ts';
import { loadOnnxParams } from './onnxWeights.ts';

/**
 * What the student's long-tail share comes from: the teacher in the asymmetric game ('selfplay'), the same
 * teacher without the solvability check ('adversarial'), the procedural generator ('longtail', no teacher),
 * or nothing ('nominal': towns only). The last two are the student baselines at the same budget.
 */
export type SelfplayGenerator = 'selfplay' | 'adversarial' | 'longtail' | 'nominal';

export interface SelfplayConfig {
  generator: SelfplayGenerator;
  rounds: number;
  /** Scenarios the teacher proposes (and is updated on) per round. */
  proposalsPerRound: number;
  teacherEpochs: number;
  teacherMinibatch: number;
  /** Student RTR iterations per round (0: the student stays frozen, the teacher alone learns). */
  studentIterations: number;
  /** Nominal towns and generated long-tail scenarios in each student iteration. */
  townsPerIteration: number;
  longtailPerIteration: number;
  /**
   * How the student learns: 'model' — with the recipe its metadata records (PPO and dual-ascent settings, rule
   * walkers and parked cars, bootstrap, return scaling, the smoothed rate, its last λ, and for `--rl-recipe
   * full` imitation rows on its own states labelled by the log-conditioned expert); 'basic' — RTR's first recipe
   * (`ppo`, `dual`, `lambda` below, the network driving every agent). A student fine-tuned with another recipe
   * than the one that trained it starts by unlearning it.
   */
  studentRecipe: 'model' | 'basic';
  /** Initial RTR λ ('basic'). */
  lambda: number;
  ppo: PpoConfig;
  dual: DualAscentConfig;
  game: Omit<GameConfig, 'mode'>;
  teacher: Partial<TeacherModelConfig>;
  seed: number;
  /** onnxruntime threads of each session. */
  threads: number;
}

export const DEFAULT_SELFPLAY: SelfplayConfig = {
  generator: 'selfplay',
  rounds: 10,
  proposalsPerRound: 32,
  teacherEpochs: 4,
  teacherMinibatch: 16,
  studentIterations: 1,
  townsPerIteration: 1,
  longtailPerIteration: 4,
  studentRecipe: 'model',
  lambda: 0.5,
  ppo: DEFAULT_PPO,
  dual: DEFAULT_DUAL_ASCENT,
  game: DEFAULT_GAME,
  teacher: {},
  seed: 1,
  threads: 1,
};

export const SELFPLAY_FILES = {
  state: 'selfplay-state.json',
  studentCheckpoint: 'student.safetensors',
  teacherCheckpoint: 'teacher.safetensors',
  /** The student's expert-labelled imitation rows (recipes with labels), resumed with the run. */
  ilSet: RTR_IL_SET_FILE,
  student: 'agent.onnx',
  studentMeta: 'agent.json',
  teacher: 'selfplay-teacher.onnx',
  teacherMeta: 'selfplay-teacher.json',
  curves: 'curves.svg',
} as const;

/** Procedural long-tail training scenarios come from seeds at or above this (1001 is the held-back seed). */
export const TRAIN_LONGTAIL_SEED = 5000;

export interface SelfplayInput {
  /** Nominal scenarios (towns, every present agent controlled) with their demonstrations. */
  nominal: Scenario[];
  /** The student's starting model (ONNX + metadata JSON). */
  studentInit: string;
  /** A teacher to start from (ONNX); absent: a fresh one. */
  teacherInit?: string;
  out: string;
  /** Names of the data and the command, kept in the metadata. */
  data: Record<string, string>;
  onProgress?: (done: number, total: number, status: string) => void;
  /** Called once when a checkpoint is resumed, with the steps or iterations it had done. */
  onResume?: (done: number) => void;
}

export type RoundPoint = Record<string, number>;

export interface SelfplayResult {
  roundsDone: number;
  resumedFrom: number;
  curve: RoundPoint[];
  files: string[];
}

interface State {
  generator: SelfplayGenerator;
  done: number;
  lambda: number;
  /** The infraction rate dual ascent last stepped on (recipes with rate smoothing). */
  smoothedRate?: number;
  curve: RoundPoint[];
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** Teacher update on judged proposals: one-step PPO, advantage = reward − value, normalised. */
async function updateTeacher(
  teacher: TeacherModel,
  judged: readonly Judged[],
  rng: Rng,
  cfg: SelfplayConfig,
): Promise<Record<string, number>> {
  const n = judged.length;
  const C = teacher.ctxSize;
  const S = teacher.cfg.space.slots;
  const adv = Float32Array.from(judged, (j) => j.reward - j.value);
  const m = mean([...adv]);
  const sd = Math.sqrt(mean([...adv].map((a) => (a - m) ** 2))) || 1;
  for (let i = 0; i < n; i++) adv[i] = (adv[i] - m) / sd;
  const b = {
    count: n,
    ctx: new Float32Array(n * C),
    action: new BigInt64Array(n * S),
    mask: new Float32Array(n * S),
    oldLogp: Float32Array.from(judged, (j) => j.logp),
    advantage: adv,
    return: Float32Array.from(judged, (j) => j.reward),
  };
  judged.forEach((j, i) => {
    b.ctx.set(j.ctx, i * C);
    for (let s = 0; s < S; s++) b.action[i * S + s] = BigInt(j.bins[s]);
    b.mask.set(j.mask, i * S);
  });
  return teacher.update(b, rng, cfg.teacherEpochs, cfg.teacherMinibatch);
}

export interface StudentRecipe {
  ppo: PpoConfig;
  dual: DualAscentConfig;
  closedLoop: Partial<ClosedLoopConfig>;
  rateSmoothing: number;
  /** Rows of the expert-labelled imitation set, seeded with the towns' demonstrations (0: the demonstrations). */
  ilSetSize: number;
  lambda: number;
}

/** The student's per-iteration settings under `cfg.studentRecipe` (see SelfplayConfig). */
export function studentRecipe(cfg: SelfplayConfig, spec: StudentSpec): StudentRecipe {
  if (cfg.studentRecipe === 'basic')
    return {
      ppo: cfg.ppo,
      dual: cfg.dual,
      closedLoop: {},
      rateSmoothing: 0,
      ilSetSize: 0,
      lambda: cfg.lambda,
    };
  const t = spec.training;
  return {
    ppo: { ...cfg.ppo, ...t.ppo },
    dual: t.dual ?? cfg.dual,
    closedLoop: { ...t.closedLoop, ruleAgents: spec.ruleAgents ?? false },
    rateSmoothing: t.rateSmoothing ?? 0,
    ilSetSize: (t.closedLoop?.labelStride ?? 0) > 0 ? (t.ilSetSize ?? FULL_RL.ilSetSize) : 0,
    lambda: t.lambda ?? cfg.lambda,
  };
}

/** Train (or resume) the teacher and the student; everything lands in `input.out`. */
export async function trainSelfplay(
  input: SelfplayInput,
  over: Partial<SelfplayConfig> = {},
): Promise<SelfplayResult> {
  const cfg = { ...DEFAULT_SELFPLAY, ...over };
  const usesTeacher = cfg.generator === 'selfplay' || cfg.generator === 'adversarial';
  makeDirs(input.out);
  const { model, spec } = await loadStudent(input.studentInit, cfg.threads);
  const recipe = studentRecipe(cfg, spec);
  const teacher = usesTeacher ? await TeacherModel.create({ ...cfg.teacher, threads: cfg.threads }) : null;
  try {
    const rng = new Rng(cfg.seed);
    const f = (k: keyof typeof SELFPLAY_FILES) => path.join(input.out, SELFPLAY_FILES[k]);
    let state: State = { generator: cfg.generator, done: 0, lambda: recipe.lambda, curve: [] };
    if (fs.existsSync(f('state'))) {
      state = JSON.parse(fs.readFileSync(f('state'), 'utf8')) as State;
      if (state.generator !== cfg.generator)
        throw new Error(`${f('state')}: a ${state.generator} run, not ${cfg.generator} (use another --out)`);
      await model.loadCheckpoint(f('studentCheckpoint'), rng);
      if (teacher) await teacher.loadCheckpoint(f('teacherCheckpoint'), rng);
    } else if (teacher && input.teacherInit) loadOnnxParams(input.teacherInit, teacher.params);
    const resumedFrom = state.done;
    if (resumedFrom > 0) input.onResume?.(resumedFrom);
    // With expert labels the towns are driven along each logged agent's own lanes, as train-agents does.
    const labels = recipe.ilSetSize > 0 && cfg.studentIterations > 0;
    const nominal = labels ? input.nominal.map((s) => withLogRoutes(s)) : input.nominal;
    const demos: DemoSet | undefined =
      cfg.studentIterations > 0 && input.nominal.length
        ? buildDemoSet(input.nominal, model.bins, model.cfg.observation, {
            skipRuleAgents: spec.ruleAgents ?? false,
          })
        : undefined;
    // Seeded with the demonstrations; the student's own expert-labelled states replace them over time.
    let ilSet: AggregateSet | undefined;
    if (labels && demos) {
      if (resumedFrom > 0 && fs.existsSync(f('ilSet')))
        ilSet = AggregateSet.fromBytes(
          fs.readFileSync(f('ilSet')),
          model.obsSize,
          recipe.ilSetSize,
          f('ilSet'),
        );
      else {
        ilSet = new AggregateSet(model.obsSize, recipe.ilSetSize);
        ilSet.add(demos.obs, demos.action, demos.count, rng);
      }
    }
    const game: GameConfig = {
      ...cfg.game,
      mode: cfg.generator === 'adversarial' ? 'adversarial' : 'selfplay',
    };
    for (let round = state.done; round < cfg.rounds; round++) {
      const point: RoundPoint = { round: round + 1 };
      let pool: Scenario[] = [];
      if (teacher) {
        const judgeWith = studentPolicy(model, spec, cfg.threads);
        let judged: Judged[];
        try {
          const props = await propose(
            teacher,
            cfg.proposalsPerRound,
            rng,
            `selfplay-r${round}`,
            TEACHER_KINDS,
            cfg.game.oracle,
          );
          judged = judge(props, judgeWith.make, game);
        } finally {
          judgeWith.close();
        }
        const t = await updateTeacher(teacher, judged, rng, cfg);
        point.teacher_reward = mean(judged.map((j) => j.reward));
        point.solvable = mean(judged.map((j) => (j.solvable ? 1 : 0)));
        point.student_failure = mean(judged.map((j) => (j.studentFailed ? 1 : 0)));
        point.hard_solvable = mean(judged.map((j) => (j.solvable && j.studentFailed ? 1 : 0)));
        point.plausible = mean(judged.map((j) => (j.plausible ? 1 : 0)));
        point.teacher_entropy = t.entropy;
        // The student learns on what the teacher would export: solvable scenarios (self-play), or all of them
        // (the adversarial baseline has no solvability check).
        pool = judged.filter((j) => cfg.generator === 'adversarial' || j.solvable).map((j) => j.scenario);
      } else if (cfg.generator === 'longtail') {
        for (let i = 0; i < cfg.longtailPerIteration * cfg.studentIterations; i++) {
          const kind = TEACHER_KINDS[rng.int(TEACHER_KINDS.length)];
          pool.push(generateLongtail(kind, 1, TRAIN_LONGTAIL_SEED + round * 64 + i)[0].scenario);
        }
      }
      const iters: Record<string, number>[] = [];
      for (let it = 0; it < cfg.studentIterations; it++) {
        const batch: Scenario[] = [];
        for (let k = 0; k < Math.min(cfg.townsPerIteration, nominal.length); k++)
          batch.push(nominal[rng.int(nominal.length)]);
        for (let k = 0; k < Math.min(cfg.longtailPerIteration, pool.length); k++)
          batch.push(pool[rng.int(pool.length)]);
        if (!batch.length) break;
        const r = await rlIteration(model, batch, rng, {
          mode: 'rtr',
          lambda: state.lambda,
          ppo: recipe.ppo,
          dual: recipe.dual,
          demos,
          closedLoop: recipe.closedLoop,
          ilSet,
          rateSmoothing: recipe.rateSmoothing,
          smoothedRate: state.smoothedRate,
        });
        state.lambda = r.nextLambda;
        state.smoothedRate = r.smoothedRate;
        iters.push({ infraction: r.infractionRate, collision: r.collisionRate, ret: r.meanEpisodeReturn });
      }
      if (iters.length) {
        point.student_infraction = mean(iters.map((x) => x.infraction));
        point.student_collision = mean(iters.map((x) => x.collision));
        point.lambda = state.lambda;
      }
      state.curve.push(point);
      state.done = round + 1;
      await model.saveCheckpoint(f('studentCheckpoint'), model.trainer.stepCount, rng, null);
      if (ilSet) writeFileAtomicSync(f('ilSet'), ilSet.toBytes());
      if (teacher) await teacher.saveCheckpoint(f('teacherCheckpoint'), rng, null);
      // The state names the round both checkpoints hold; written last, so a kill between files resumes the
      // previous round's state with at most one round's extra updates in the checkpoints.
      writeFileAtomicSync(f('state'), JSON.stringify(state) + '\n');
      input.onProgress?.(
        round + 1,
        cfg.rounds,
        Object.entries(point)
          .filter(([k]) => k !== 'round')
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(' '),
      );
    }
    const files = writeModels(input, cfg, model, spec, recipe, teacher, state);
    return { roundsDone: state.done, resumedFrom, curve: state.curve, files };
  } finally {
    await model.dispose();
    await teacher?.dispose();
  }
}

function writeModels(
  input: SelfplayInput,
  cfg: SelfplayConfig,
  model: AgentModel,
  spec: StudentSpec,
  recipe: StudentRecipe,
  teacher: TeacherModel | null,
  state: State,
): string[] {
  const f = (k: keyof typeof SELFPLAY_FILES) => path.join(input.out, SELFPLAY_FILES[k]);
  const files: string[] = [];
  const settings = {
    ...spec,
    mode: `selfplay-${cfg.generator}`,
    rounds: cfg.rounds,
    studentRecipe: cfg.studentRecipe,
    ppo: recipe.ppo,
    dual: recipe.dual,
    closedLoop: recipe.closedLoop,
    rateSmoothing: recipe.rateSmoothing,
  };
  writeFileAtomicSync(f('student'), model.onnxBytes());
  writeFileAtomicSync(
    f('studentMeta'),
    JSON.stringify(
      {
        format: 'drivekit-agent-model/1',
        settings,
        parameters: model.parameterCount(),
        data: input.data,
        lambda: state.lambda,
        curve: state.curve,
      },
      null,
      1,
    ) + '\n',
  );
  files.push(f('student'), f('studentMeta'));
  if (teacher) {
    writeFileAtomicSync(f('teacher'), teacher.onnxBytes());
    writeFileAtomicSync(
      f('teacherMeta'),
      JSON.stringify(
        {
          format: 'drivekit-selfplay-teacher/1',
          settings: {
            ...teacher.cfg,
            kinds: TEACHER_KINDS,
            generator: cfg.generator,
            game: cfg.game,
            proposalsPerRound: cfg.proposalsPerRound,
          },
          parameters: teacher.parameterCount(),
          data: input.data,
          curve: state.curve,
        },
        null,
        1,
      ) + '\n',
    );
    files.push(f('teacher'), f('teacherMeta'));
  }
  const keys = Object.keys(state.curve[0] ?? {}).filter((k) => k !== 'round' && k !== 'lambda');
  writeFileAtomicSync(
    f('curves'),
    curvesSvg(
      `drivekit train-selfplay --generator ${cfg.generator}`,
      'round',
      keys.map((k) => ({ name: k, points: state.curve.map((p) => [p.round, p[k]] as const) })),
    ),
  );
  files.push(f('curves'));
  return files;
}
