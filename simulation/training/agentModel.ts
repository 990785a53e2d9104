// The trainable agent policy: network, the one training session of every mode, an inference session on
// the live parameters, ONNX export with its metadata, and checkpoints a killed run resumes from.
import fs from 'node:fs';
import * as nn from '../../core/nn/index.ts';
import { decodeModel } from '../../core/nn/onnxProto.ts';
import {
  DEFAULT_OBSERVATION,
  type ObservationConfig,
  observationSize,
  observationVersion,
} from '../observation.ts';
import { ActionBins, type ActionBinsConfig, DEFAULT_ACTION_BINS } from './actionBins.ts';
import {
  createPolicyNet,
  DEFAULT_PPO_LOSS,
  inferenceGraph,
  lossGraph,
  type PolicyNet,
  type PolicyNetConfig,
  type PpoLossConfig,
} from './policyNet.ts';

export interface AgentModelConfig {
  observation: ObservationConfig;
  bins: ActionBinsConfig;
  net: Partial<PolicyNetConfig>;
  ppoLoss: PpoLossConfig;
  /** AdamW learning rate. */
  lr: number;
  /** Global gradient-norm clip. */
  clipGradNorm: number;
  /** onnxruntime intra-op threads (the project's VMs have 2 cores). */
  threads: number;
  /**
   * Let idle onnxruntime threads spin-wait between kernels. Off by default: the learner alternates
   * short onnxruntime runs with JavaScript (simulator, optimizer), and spinning threads burn the core
   * that work (or a neighbour) needs.
   */
  spin: boolean;
  /**
   * Build EMA-PG's KL-to-anchor term into the training graph (train-agents --pg ema). Off, the graph has
   * no anchor inputs and a step given an anchor is refused; the loss and gradients are those of a zero anchor.
   */
  anchorTerm: boolean;
}

export const DEFAULT_AGENT_MODEL: AgentModelConfig = {
  observation: DEFAULT_OBSERVATION,
  bins: DEFAULT_ACTION_BINS,
  net: {},
  ppoLoss: DEFAULT_PPO_LOSS,
  lr: 1e-3,
  clipGradNorm: 1,
  threads: 2,
  spin: false,
  anchorTerm: false,
};

/** One minibatch of the training graph (see lossGraph): rows of obs with their labels and weights. */
export interface TrainBatch {
  obs: Float32Array;
  action: BigInt64Array;
  ilWeight: Float32Array;
  rlWeight: Float32Array;
  oldLogp: Float32Array;
  advantage: Float32Array;
  return: Float32Array;
  /** [imitation coefficient, RL coefficient]. */
  coef: [number, number];
  /** EMA-PG: the anchor's top-k probabilities renormalised over the k, per row ([rows, actions], 0 elsewhere). */
  anchor?: { p: Float32Array; klCoef: number };
}

export class AgentModel {
  readonly bins: ActionBins;
  readonly obsSize: number;
  private noAnchor = new Float32Array(0);
  private constructor(
    readonly cfg: AgentModelConfig,
    readonly net: PolicyNet,
    readonly optimizer: nn.Optimizer,
    readonly trainer: nn.Trainer,
    readonly infer: nn.GraphSession,
    private readonly inference: ReturnType<typeof inferenceGraph>,
  ) {
    this.bins = new ActionBins(cfg.bins);
    this.obsSize = observationSize(cfg.observation);
  }

  static async create(over: Partial<AgentModelConfig> = {}): Promise<AgentModel> {
    const cfg = { ...DEFAULT_AGENT_MODEL, ...over };
    const bins = new ActionBins(cfg.bins);
    if (bins.residual && observationVersion(cfg.observation) !== 2)
      throw new Error('residual bins need observation version 2 (pure pursuit and IDM acceleration)');
    const net = createPolicyNet([bins.accel.length, bins.curvature.length], cfg.observation, cfg.net);
    const lg = lossGraph(net, cfg.ppoLoss, { anchorTerm: cfg.anchorTerm });
    const optimizer = nn.adamW({ weightDecay: 1e-5 });
    const trainer = await nn.Trainer.create(lg.graph, {
      loss: lg.loss,
      optimizer,
      lr: cfg.lr,
      clipGradNorm: cfg.clipGradNorm,
      outputs: lg.terms,
      threads: cfg.threads,
      spin: cfg.spin,
    });
    const inf = inferenceGraph(net);
    const infer = await nn.GraphSession.create(
      inf.graph,
      { logits: inf.logits, value: inf.value },
      { threads: cfg.threads, spin: cfg.spin },
    );
    return new AgentModel(cfg, net, optimizer, trainer, infer, inf);
  }

  /** One optimizer step; returns the loss and its terms. */
  async step(b: TrainBatch): Promise<Record<string, number>> {
    const n = b.action.length;
    const A = this.bins.count;
    if (b.anchor && !this.cfg.anchorTerm)
      throw new Error(
        'agent model: an anchor was given, but the training graph has no anchor term (set anchorTerm)',
      );
    let anchorFeeds = {};
    if (this.cfg.anchorTerm) {
      if (this.noAnchor.length < n * A) this.noAnchor = new Float32Array(n * A);
      const ap = b.anchor ? b.anchor.p.subarray(0, n * A) : this.noAnchor.subarray(0, n * A);
      anchorFeeds = {
        anchor_p: { data: ap, dims: [n, A] },
        kl_coef: Float32Array.of(b.anchor?.klCoef ?? 0),
      };
    }
    const res = await this.trainer.step({
      obs: { data: b.obs.subarray(0, n * this.obsSize), dims: [n, this.obsSize] },
      action: { data: b.action, dims: [n] },
      il_weight: { data: b.ilWeight, dims: [n] },
      rl_weight: { data: b.rlWeight, dims: [n] },
      old_logp: { data: b.oldLogp, dims: [n] },
      advantage: { data: b.advantage, dims: [n] },
      return: { data: b.return, dims: [n] },
      coef: Float32Array.from(b.coef),
      ...anchorFeeds,
    });
    const out: Record<string, number> = { loss: res.loss };
    for (const [k, v] of Object.entries(res.outputs)) out[k] = Number(v.data[0]);
    return out;
  }

  /** Logits [n, actions] and values [n] of n observations on the current parameters. */
  async evaluate(obs: Float32Array, n: number): Promise<{ logits: Float32Array; value: Float32Array }> {
    const r = await this.infer.run({
      obs: { data: obs.subarray(0, n * this.obsSize), dims: [n, this.obsSize] },
    });
    return { logits: r.logits.data as Float32Array, value: r.value.data as Float32Array };
  }

  /** The inference model (obs → logits, value) with the current weights, as ONNX bytes. */
  onnxBytes(): Uint8Array {
    return nn.exportOnnxBytes(this.inference.graph, {
      logits: this.inference.logits,
      value: this.inference.value,
    });
  }

  parameterCount(): number {
    return this.net.params.list().reduce((s, p) => s + p.data.length, 0);
  }

  async saveCheckpoint(path: string, step: number, rng: nn.Rng, extra: unknown): Promise<void> {
    await nn.saveCheckpoint(path, {
      step,
      params: this.net.params,
      optimizer: this.optimizer,
      rngs: { data: rng },
      extra,
    });
  }

  /** Restore from a checkpoint; returns its step and extra. */
  async loadCheckpoint(path: string, rng: nn.Rng): Promise<{ step: number; extra: unknown }> {
    const r = await nn.loadCheckpoint(path, {
      params: this.net.params,
      optimizer: this.optimizer,
      rngs: { data: rng },
    });
    this.trainer.stepCount = r.step;
    return r;
  }

  /** Only the parameters of another run's checkpoint (e.g. RTR starting from a BC run). */
  async loadWeights(path: string): Promise<void> {
    // The value head may start fresh: a model trained with a separate value network (policyNet valueHidden)
    // loads into one with the shared-trunk head and the reverse; acting never reads the value.
    const valueNet = (name: string) =>
      name.startsWith('value.') || name.startsWith('valueTrunk') || name.startsWith('valueOut');
    if (path.endsWith('.onnx')) {
      this.net.params.load(
        onnxParams(fs.readFileSync(path), this.net.params.list(), path, valueNet),
        valueNet,
      );
      return;
    }
    const { tensors } = await nn.readSafetensors(path);
    const params = new Map<string, ArrayLike<number>>();
    for (const [k, t] of tensors) if (k.startsWith('param/')) params.set(k.slice(6), t.data as Float32Array);
    this.net.params.load(params, valueNet);
  }

  async dispose(): Promise<void> {
    await this.trainer.dispose();
    await this.infer.dispose();
  }
}

/**
 * The parameters baked into an exported agent.onnx (its initializers carry the parameter names), so a
 * shipped model can start a fine-tuning run (`--init models/agent.onnx`) without its training checkpoint.
 */
export function onnxParams(
  bytes: Uint8Array,
  wanted: readonly { name: string; data: ArrayLike<number> }[],
  what: string,
  keepInit?: (name: string) => boolean,
): Map<string, Float32Array> {
  const init = new Map(decodeModel(bytes).graph.initializer.map((t) => [t.name, t]));
  const out = new Map<string, Float32Array>();
  for (const p of wanted) {
    const t = init.get(p.name);
    const raw = t?.rawData;
    const data = raw?.length
      ? new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength))
      : Float32Array.from(t?.floatData ?? []);
    if (!t || data.length !== p.data.length) {
      if (keepInit?.(p.name)) continue;
      throw new Error(
        `${what}: no parameter '${p.name}' of ${p.data.length} values (not a model of this network and observation)`,
      );
    }
    out.set(p.name, data);
  }
  return out;
}
