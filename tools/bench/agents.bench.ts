// Learned-agent benchmarks (RTR, issue 15.6): agent-steps/s of closed-loop rollouts with the shipped policy
// at 10,000 agents (one batched onnxruntime call per step) and of PPO iterations including the update.
import fs from 'node:fs';
import os from 'node:os';
import { Rng } from '../../core/rng.ts';
import {
  modelMetaPath,
  readLearnedModel,
  SHIPPED_AGENT_MODEL,
  SyncInference,
} from '../../simulation/agents/learned.ts';
import { agentKey } from '../../simulation/agents/agentNoise.ts';
import { SimEnv } from '../../simulation/env.ts';
import { Observer, observationSize } from '../../simulation/observation.ts';
import { ActionBins } from '../../simulation/training/actionBins.ts';
import { AgentModel, type AgentModelConfig } from '../../simulation/training/agentModel.ts';
import { type ClosedLoopConfig, collectExperience } from '../../simulation/training/closedLoop.ts';
import { AggregateSet } from '../../simulation/training/dagger.ts';
import { DEFAULT_PPO, type PpoConfig, ppoUpdate } from '../../simulation/training/ppo.ts';
import { actionBase, drivenAgents, writeActions } from '../../simulation/training/policyStep.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { controlAllPresent } from '../../simulation/training/evaluate.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { type Benchmark, type Figure, peakRssMb } from './benchmark.ts';
import { inChild } from './nn.bench.ts';
import { benchBatch } from './sim.bench.ts';

/** Settings: the rollout on sim_env_10000agents' scenarios; PPO on two synthetic towns, tiny iterations. */
export const AGENTS_BENCH = {
  rolloutScenarios: 100,
  rolloutAgentsPerScenario: 100,
  /** onnxruntime intra-op threads (the project's VMs have 2 cores). */
  threads: 2,
  trainTowns: [1, 2],
  trainIterations: 2,
};

const ms = (v: number) => +v.toFixed(2);
const share = (part: number, total: number) => +(part / total).toFixed(3);

/**
 * One closed-loop rollout with the learned policy (sampled actions), the parts of LearnedPolicy.act
 * timed apart: observations, the batched inference call, action selection, and the simulator's step.
 */
async function rollout(
  scenarios: Scenario[],
  inference: SyncInference,
  observer: Observer,
  bins: ActionBins,
) {
  const env = new SimEnv(scenarios);
  env.setDynamics('bicycle');
  const keys = new Uint32Array(env.n);
  for (let g = 0; g < env.n; g++) {
    const si = env.scenarioOf[g];
    keys[g] = agentKey(0, env.scenarios[si].id, env.rollout[si], env.rowOf[g]);
  }
  const t = { observe: 0, infer: 0, select: 0, step: 0 };
  // CPU time of the whole process (every thread, onnxruntime's included): on a shared, loaded machine
  // wall time mostly measures the neighbours.
  const cpu = { observe: 0, infer: 0, select: 0, step: 0 };
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let agentSteps = 0;
  const rowKeys = new Uint32Array(env.n);
  let agents: Int32Array<ArrayBufferLike> = new Int32Array(0);
  // As LearnedPolicy: one buffer of per-row bases (residual bins), grown, not allocated per step.
  let baseBuf = new Float32Array(0);
  while (!env.done) {
    const c0 = cpuMs();
    const t0 = performance.now();
    agents = drivenAgents(env, agents);
    const n = agents.length;
    // As LearnedPolicy.act: observed into the inference thread's buffer, chunks inferred and their
    // actions picked there as they are written; `infer` is the wait for the rest after the last row,
    // `select` now only writes the picked actions.
    const step = env.stepCount;
    for (let q = 0; q < n; q++) rowKeys[q] = keys[agents[q]];
    const buf = inference.begin(n, { mode: 'sample', keys: rowKeys, step });
    observer.observe(env, agents, buf, {
      every: inference.chunkRows,
      ready: (rows) => inference.ready(rows),
    });
    const t1 = performance.now();
    const c1 = cpuMs();
    inference.finish();
    const t2 = performance.now();
    const c2 = cpuMs();
    if (bins.residual && baseBuf.length < 2 * n) baseBuf = new Float32Array(2 * n);
    const base = bins.residual ? actionBase(buf, n, observer.cfg, baseBuf) : undefined;
    writeActions(env, agents, inference.picked().action, bins, base);
    const t3 = performance.now();
    const c3 = cpuMs();
    env.step();
    const t4 = performance.now();
    cpu.observe += c1 - c0;
    cpu.infer += c2 - c1;
    cpu.select += c3 - c2;
    cpu.step += cpuMs() - c3;
    t.observe += t1 - t0;
    t.infer += t2 - t1;
    t.select += t3 - t2;
    t.step += t4 - t3;
    agentSteps += n;
  }
  return { ...t, cpu, agentSteps, steps: env.horizon, agents: env.n };
}

async function agentsRollout(): Promise<Figure> {
  const { bytes, spec } = readLearnedModel(SHIPPED_AGENT_MODEL);
  const bins = new ActionBins(spec.bins);
  const observer = new Observer(spec.observation);
  const inference = new SyncInference(
    bytes,
    observationSize(spec.observation),
    bins.count,
    AGENTS_BENCH.threads,
  );
  await rollout(benchBatch(2, 200), inference, observer, bins); // warm-up (JIT, session start)
  const r = await rollout(
    benchBatch(AGENTS_BENCH.rolloutScenarios, AGENTS_BENCH.rolloutAgentsPerScenario),
    inference,
    observer,
    bins,
  );
  inference.close();
  const total = r.observe + r.infer + r.select + r.step;
  const cpuTotal = r.cpu.observe + r.cpu.infer + r.cpu.select + r.cpu.step;
  return {
    name: 'agents_rollout',
    agent_steps_per_s: Math.round(r.agentSteps / (total / 1000)),
    agents: r.agents,
    steps: r.steps,
    ms_per_step: ms(total / r.steps),
    observe_ms_per_step: ms(r.observe / r.steps),
    inference_ms_per_step: ms(r.infer / r.steps),
    select_ms_per_step: ms(r.select / r.steps),
    env_step_ms_per_step: ms(r.step / r.steps),
    inference_share: share(r.infer, total),
    simulator_share: share(r.observe + r.select + r.step, total),
    agent_steps_per_cpu_s: Math.round(r.agentSteps / (cpuTotal / 1000)),
    observe_cpu_ms_per_step: ms(r.cpu.observe / r.steps),
    inference_cpu_ms_per_step: ms(r.cpu.infer / r.steps),
    select_cpu_ms_per_step: ms(r.cpu.select / r.steps),
    env_step_cpu_ms_per_step: ms(r.cpu.step / r.steps),
    inference_cpu_share: share(r.cpu.infer, cpuTotal),
    load_average: +os.loadavg()[0].toFixed(1),
    threads: AGENTS_BENCH.threads,
    peak_rss_mb: Math.round(peakRssMb()),
  };
}

/** How an agents_train figure trains: the model, how experience is collected, and the update. */
interface TrainRecipe {
  name: string;
  model: Partial<AgentModelConfig>;
  closedLoop: Partial<ClosedLoopConfig>;
  ppo: PpoConfig;
  /** [imitation, RL]: PPO [0, 1]; RTR [1, λ] with imitation rows from the expert-labelled set. */
  coef: [number, number];
  /** Capacity of RTR's imitation set (0: PPO, no imitation rows). */
  ilSetSize: number;
}

/** PPO with the default network and observation: the figure tracked since the learner's first version. */
const DEFAULT_RECIPE: TrainRecipe = {
  name: 'agents_train',
  model: {},
  closedLoop: {},
  ppo: DEFAULT_PPO,
  coef: [0, 1],
  ilSetSize: 0,
};

/**
 * The shipped model's own recipe, from its metadata: its network, observation and bins, rollouts with
 * rule agents and expert labels every 2nd step, and RTR's update (imitation rows beside the RL rows in
 * every minibatch, at the λ it shipped with).
 */
function shippedRecipe(): TrainRecipe {
  const meta = JSON.parse(fs.readFileSync(modelMetaPath(SHIPPED_AGENT_MODEL), 'utf8'));
  const s = meta.settings;
  return {
    name: 'agents_train_shipped_recipe',
    model: { observation: s.observation, bins: s.bins, net: s.net },
    closedLoop: { ...s.rl.closedLoop, ruleAgents: s.ruleAgents === true },
    ppo: s.ppo,
    coef: [1, meta.lambda],
    ilSetSize: s.rl.ilSetSize,
  };
}

/** Iterations (rollout + GAE inside collectExperience, then the update) on two synthetic towns. */
async function agentsTrain(recipe: TrainRecipe): Promise<Figure> {
  const scenarios = controlAllPresent(
    AGENTS_BENCH.trainTowns.map((seed) => generateTown({ seed }, 91).scenario),
  );
  const model = await AgentModel.create({ ...recipe.model, threads: AGENTS_BENCH.threads });
  const ilSet = recipe.ilSetSize > 0 ? new AggregateSet(model.obsSize, recipe.ilSetSize) : undefined;
  // Time the policy's inference inside the rollout: the rest of the rollout is the simulator's share.
  let inferMs = 0;
  let inferCpu = 0;
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const timed = Object.create(model) as AgentModel;
  timed.evaluate = async (obs, n) => {
    const t = performance.now();
    const c = cpuMs();
    const r = await model.evaluate(obs, n);
    inferMs += performance.now() - t;
    inferCpu += cpuMs() - c;
    return r;
  };
  const rng = new Rng(1);
  const run = async () => {
    const t0 = performance.now();
    const c0 = cpuMs();
    const exp = await collectExperience(timed, scenarios, rng, recipe.closedLoop);
    // RTR's imitation rows: the labelled rows join the set the minibatches draw from (rlIteration's order).
    if (ilSet && exp.labelled.count > 0)
      ilSet.add(exp.labelled.obs, exp.labelled.action, exp.labelled.count, rng);
    const t1 = performance.now();
    const c1 = cpuMs();
    await ppoUpdate(model, exp, rng, recipe.coef, recipe.ppo, ilSet);
    return {
      collect: t1 - t0,
      update: performance.now() - t1,
      collectCpu: c1 - c0,
      updateCpu: cpuMs() - c1,
      samples: exp.count,
    };
  };
  await run(); // warm-up
  inferMs = 0;
  inferCpu = 0;
  let collect = 0;
  let update = 0;
  let collectCpu = 0;
  let updateCpu = 0;
  let samples = 0;
  for (let i = 0; i < AGENTS_BENCH.trainIterations; i++) {
    const r = await run();
    collect += r.collect;
    update += r.update;
    collectCpu += r.collectCpu;
    updateCpu += r.updateCpu;
    samples += r.samples;
  }
  await model.dispose();
  const total = collect + update;
  const it = AGENTS_BENCH.trainIterations;
  return {
    name: recipe.name,
    agent_steps_per_s: Math.round(samples / (total / 1000)),
    samples_per_iteration: Math.round(samples / it),
    iterations: it,
    epochs: recipe.ppo.epochs,
    minibatch: recipe.ppo.minibatch,
    imitation_rows_per_minibatch: recipe.ilSetSize > 0 ? recipe.ppo.demoRows : 0,
    ms_per_iteration: ms(total / it),
    rollout_ms_per_iteration: ms(collect / it),
    rollout_inference_ms_per_iteration: ms(inferMs / it),
    update_ms_per_iteration: ms(update / it),
    learner_share: share(update + inferMs, total),
    simulator_share: share(collect - inferMs, total),
    agent_steps_per_cpu_s: Math.round(samples / ((collectCpu + updateCpu) / 1000)),
    rollout_cpu_ms_per_iteration: ms(collectCpu / it),
    rollout_inference_cpu_ms_per_iteration: ms(inferCpu / it),
    update_cpu_ms_per_iteration: ms(updateCpu / it),
    learner_cpu_share: share(updateCpu + inferCpu, collectCpu + updateCpu),
    // The learner: the network (inference in the rollout and the update); the simulator: the rest.
    bottleneck: updateCpu + inferCpu >= collectCpu - inferCpu ? 'learner' : 'simulator',
    load_average: +os.loadavg()[0].toFixed(1),
    threads: AGENTS_BENCH.threads,
    peak_rss_mb: Math.round(peakRssMb()),
  };
}

export const benchmarks: Benchmark[] = [
  {
    // The policy's training step, also timed against PyTorch by npm run bench:pytorch -- policy.
    names: ['train_step_policy'],
    async run(emit) {
      emit(await inChild('step', 'policy'));
    },
  },
  {
    names: ['agents_rollout'],
    async run(emit) {
      emit(await agentsRollout());
    },
  },
  {
    names: ['agents_train', 'agents_train_shipped_recipe'],
    async run(emit) {
      emit(await agentsTrain(DEFAULT_RECIPE));
      emit(await agentsTrain(shippedRecipe()));
    },
  },
];
