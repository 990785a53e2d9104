// `drivekit stage agents --in … --out …`: the learned traffic-agent policy (RTR / BC / PPO, ONNX) serving
// actions — each batch of observation rows in, one (acceleration, curvature) action per agent id out.
import * as ort from 'onnxruntime-node';
import { actionsToBatch, batchToObservations } from '../../core/arrow/agentCodec.ts';
import { SchemaError } from '../../core/arrow/validate.ts';
import { agentKey, uniformAt } from '../../simulation/agents/agentNoise.ts';
import { readLearnedModel, SHIPPED_AGENT_MODEL } from '../../simulation/agents/learned.ts';
import { keepProbeActions, probeDrivenMask } from '../../simulation/agents/probeDriven.ts';
import { observationSize, observedTypeCode } from '../../simulation/observation.ts';
import { ActionBins } from '../../simulation/training/actionBins.ts';
import { actionBase, selectActions } from '../../simulation/training/policyStep.ts';
import { intOption, numberOption } from './streamOptions.ts';
import { transformStage } from './transformStage.ts';

interface AgentsStageOptions {
  model: string;
  seed?: number;
  temperature?: number;
  threads: number;
}

/** Metadata the answer carries over from the observations (which scenario and step it acts for). */
const PASSED_ON = ['scenario_id', 'step', 'rollout'];

export const register = transformStage<AgentsStageOptions>({
  name: 'agents',
  description:
    'serve actions of a learned agent policy (ONNX): AgentObservations rows in, AgentActions (accel, curvature per agent id) out',
  inputKind: 'agentObservations',
  defaultTopic: 'actions',
  options: (cmd) =>
    cmd
      .option(
        '--model <onnx>',
        'agent policy with its .json metadata (default: the shipped models/agent.onnx)',
        SHIPPED_AGENT_MODEL,
      )
      .option(
        '--seed <n>',
        'sample actions, seeded per scenario, agent and step (default: argmax)',
        intOption(0),
      )
      .option(
        '--temperature <t>',
        "softmax temperature of sampled actions (default: the model's own, else 1)",
        numberOption(0.01),
      )
      .option('--threads <n>', 'onnxruntime intra-op threads', intOption(1), 2),
  create: async (opts) => {
    const { bytes, spec } = readLearnedModel(opts.model);
    const bins = new ActionBins(spec.bins);
    const size = observationSize(spec.observation);
    const session = await ort.InferenceSession.create(bytes, {
      intraOpNumThreads: opts.threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    const mode = opts.seed === undefined ? 'argmax' : 'sample';
    const temperature = opts.temperature ?? spec.temperature ?? 1;
    const probeMask = spec.probeDriven?.length ? probeDrivenMask(spec.probeDriven) : null;
    return async (batch) => {
      // A batch of another kind or of the wrong row length throws a SchemaError: counted as wrong-schema.
      const o = batchToObservations(batch, 'agents input');
      const n = o.agentId.length;
      if (n > 0 && o.size !== size)
        throw new SchemaError(`agents input: observation rows of ${o.size} floats, the model takes ${size}`);
      const meta: Record<string, string> = {};
      for (const k of PASSED_ON) {
        const v = batch.schema.metadata.get(k);
        if (v !== undefined) meta[k] = v;
      }
      const action = new Int32Array(n);
      const logp = new Float32Array(n);
      const base = actionBase(o.obs, n, spec.observation);
      if (n > 0) {
        const res = await session.run({ obs: new ort.Tensor('float32', o.obs.slice(), [n, size]) });
        const step = Number(meta.step ?? 0);
        const scenario = meta.scenario_id ?? '';
        const rollout = Number(meta.rollout ?? 0);
        selectActions(
          res.logits.data as Float32Array,
          n,
          bins.count,
          mode,
          (q) => uniformAt(agentKey(opts.seed ?? 0, scenario, rollout, o.agentId[q]), step, 11),
          action,
          logp,
          temperature,
        );
        // Classes the model leaves to its probe, known by each row's own type one-hot.
        if (probeMask) keepProbeActions((q) => observedTypeCode(o.obs, q, size), n, action, bins, probeMask);
      }
      return actionsToBatch(
        {
          agentId: o.agentId,
          action,
          accel: Float32Array.from(action, (a, q) => bins.accelOf(a, base[2 * q + 1])),
          curvature: Float32Array.from(action, (a, q) => bins.curvatureOf(a, base[2 * q])),
        },
        meta,
      );
    };
  },
});
