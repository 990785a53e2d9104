// The self-play student: the learned traffic agent (models/agent.onnx by default) as a trainable AgentModel
// with its shipped settings, and an argmax policy on its live parameters for judging the teacher's scenarios.
import fs from 'node:fs';
import { InputError } from '../../core/errors.ts';
import type { Policy } from '../agents/policy.ts';
import { type LearnedModelSpec, LearnedPolicy, modelMetaPath, SyncInference } from '../agents/learned.ts';
import { AgentModel } from '../training/agentModel.ts';
import type { ClosedLoopConfig } from '../training/closedLoop.ts';
import type { DualAscentConfig } from '../training/dualAscent.ts';
import type { PolicyNetConfig } from '../training/policyNet.ts';
import type { PpoConfig } from '../training/ppo.ts';
import { loadOnnxParams } from './onnxWeights.ts';

export interface StudentSpec extends LearnedModelSpec {
  net: PolicyNetConfig;
  /** How the model was trained, as its metadata records it (absent in older models). */
  training: StudentTraining;
}

/** The RL settings a trained agent model's metadata records (`settings.ppo`, `.dual`, `.rl`; its last λ). */
export interface StudentTraining {
  ppo?: Partial<PpoConfig>;
  dual?: DualAscentConfig;
  closedLoop?: Partial<ClosedLoopConfig>;
  rateSmoothing?: number;
  /** Rows of the expert-labelled imitation set (runs with closedLoop.labelStride > 0). */
  ilSetSize?: number;
  lambda?: number;
}

/** The settings of a shipped agent model (its metadata JSON). */
export function readStudentSpec(onnx: string): StudentSpec {
  const metaFile = modelMetaPath(onnx);
  if (!fs.existsSync(metaFile))
    throw new InputError(metaFile, 'missing: the student model needs its metadata JSON');
  let meta: {
    settings?: Partial<StudentSpec> & {
      ppo?: Partial<PpoConfig>;
      dual?: DualAscentConfig;
      rl?: { closedLoop?: Partial<ClosedLoopConfig>; rateSmoothing?: number; ilSetSize?: number };
    };
    lambda?: number;
  };
  try {
    meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as typeof meta;
  } catch (e) {
    throw new InputError(metaFile, `not valid JSON (${(e as Error).message})`);
  }
  const s = meta.settings;
  if (!s?.observation || !s.bins || !s.net)
    throw new InputError(metaFile, 'settings.observation, settings.bins and settings.net are required');
  const training: StudentTraining = {
    ppo: s.ppo,
    dual: s.dual,
    closedLoop: s.rl?.closedLoop,
    rateSmoothing: s.rl?.rateSmoothing,
    ilSetSize: s.rl?.ilSetSize,
    lambda: typeof meta.lambda === 'number' ? meta.lambda : undefined,
  };
  return { observation: s.observation, bins: s.bins, net: s.net, ruleAgents: s.ruleAgents, training };
}

/** A trainable student initialised with the weights of `onnx`. */
export async function loadStudent(
  onnx: string,
  threads = 1,
): Promise<{ model: AgentModel; spec: StudentSpec }> {
  const spec = readStudentSpec(onnx);
  const model = await AgentModel.create({
    observation: spec.observation,
    bins: spec.bins,
    net: spec.net,
    threads,
  });
  loadOnnxParams(onnx, model.net.params);
  return { model, spec };
}

/** An argmax policy of the student's current parameters; close() frees its inference thread. */
export function studentPolicy(
  model: AgentModel,
  spec: LearnedModelSpec,
  threads = 1,
): { make: () => Policy; close: () => void } {
  const inf = new SyncInference(model.onnxBytes(), model.obsSize, model.bins.count, threads);
  return { make: () => new LearnedPolicy(inf, spec), close: () => inf.close() };
}
