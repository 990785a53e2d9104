// The junction-intention head: one small MLP scores every branch of a fork from its features
// (branchFeatures.ts), a softmax over the fork's branches gives the turn probabilities (a conditional logit).
import * as nn from '../../core/nn/index.ts';
import { createSession, ort } from '../../core/nn/runtime.ts';
import { BRANCH_FEATURES, MAX_BRANCHES } from './branchFeatures.ts';

export interface IntentionModelConfig {
  /** Hidden layer widths of the per-branch score (none: linear). */
  hidden: readonly number[];
  /** AdamW learning rate. */
  lr: number;
  /** AdamW weight decay. */
  weightDecay: number;
  /** Seed of the initial weights. */
  seed: number;
  /** onnxruntime threads. */
  threads: number;
}

export const DEFAULT_INTENTION_MODEL: IntentionModelConfig = {
  // Linear: two hidden layers of 16 over-fitted the few real forks (worse than the turn prior on both folds).
  hidden: [],
  lr: 1e-2,
  weightDecay: 1e-2,
  seed: 1,
  threads: 1,
};

/** A batch of forks: features [n, MAX_BRANCHES, BRANCH_FEATURES], branch counts, chosen branch, weight. */
export interface ForkBatch {
  count: number;
  x: Float32Array;
  branches: Int32Array;
  chosen: Int32Array;
  weight: Float32Array;
}

/** Additive logit of an absent branch slot: its probability underflows to 0. */
const ABSENT = -30;

/** Logit offsets that drop each fork's unused slots. */
export function absentSlots(branches: Int32Array, n: number): Float32Array {
  const pad = new Float32Array(n * MAX_BRANCHES);
  for (let i = 0; i < n; i++) pad.fill(ABSENT, i * MAX_BRANCHES + branches[i], (i + 1) * MAX_BRANCHES);
  return pad;
}

export class IntentionModel {
  private constructor(
    readonly cfg: IntentionModelConfig,
    readonly params: nn.ParamStore,
    readonly optimizer: nn.Optimizer,
    readonly trainer: nn.Trainer,
    private readonly infer: nn.GraphSession,
    private readonly inference: { graph: nn.Graph; logits: nn.Tensor },
  ) {}

  static async create(over: Partial<IntentionModelConfig> = {}): Promise<IntentionModel> {
    const cfg = { ...DEFAULT_INTENTION_MODEL, ...over };
    const F = BRANCH_FEATURES;
    const ps = new nn.ParamStore({ seed: cfg.seed });
    const score = nn.mlp(ps, 'branch', [F, ...cfg.hidden, 1], { activation: 'tanh' });
    const logitsOf = (x: nn.Tensor) => nn.reshape(score(nn.reshape(x, [-1, F])), [-1, MAX_BRANCHES]);
    const g = new nn.Graph({ name: 'drivekit_intention_train' });
    const x = g.input('branches', ['batch', MAX_BRANCHES, F]);
    const pad = g.input('absent', ['batch', MAX_BRANCHES]);
    const chosen = g.input('chosen', ['batch'], 'int64');
    const weight = g.input('weight', ['batch']);
    const loss = nn.crossEntropy(nn.add(logitsOf(x), pad), chosen, { weights: weight });
    const optimizer = nn.adamW({ weightDecay: cfg.weightDecay });
    const trainer = await nn.Trainer.create(g, {
      loss,
      optimizer,
      lr: cfg.lr,
      clipGradNorm: 1,
      threads: cfg.threads,
    });
    // The exported head: branch features in, one logit per slot out (the caller drops unused slots).
    const ig = new nn.Graph({ name: 'drivekit_intention' });
    const logits = logitsOf(ig.input('branches', ['batch', MAX_BRANCHES, F]));
    const infer = await nn.GraphSession.create(ig, { logits }, { threads: cfg.threads });
    return new IntentionModel(cfg, ps, optimizer, trainer, infer, { graph: ig, logits });
  }

  /** One optimiser step on forks `rows` of the batch; the weighted mean negative log-likelihood. */
  async step(b: ForkBatch, rows: Int32Array): Promise<number> {
    const F = BRANCH_FEATURES;
    const n = rows.length;
    const x = new Float32Array(n * MAX_BRANCHES * F);
    const branches = new Int32Array(n);
    const chosen = new BigInt64Array(n);
    const weight = new Float32Array(n);
    rows.forEach((k, i) => {
      x.set(b.x.subarray(k * MAX_BRANCHES * F, (k + 1) * MAX_BRANCHES * F), i * MAX_BRANCHES * F);
      branches[i] = b.branches[k];
      chosen[i] = BigInt(b.chosen[k]);
      weight[i] = b.weight[k];
    });
    const r = await this.trainer.step({
      branches: { data: x, dims: [n, MAX_BRANCHES, F] },
      absent: { data: absentSlots(branches, n), dims: [n, MAX_BRANCHES] },
      chosen: { data: chosen, dims: [n] },
      weight: { data: weight, dims: [n] },
    });
    return r.loss;
  }

  /** Branch probabilities [n, MAX_BRANCHES] of forks `rows` of the batch under the current parameters. */
  async probabilities(b: ForkBatch, rows: Int32Array): Promise<Float32Array> {
    const S = MAX_BRANCHES * BRANCH_FEATURES;
    const n = rows.length;
    const x = new Float32Array(n * S);
    const branches = new Int32Array(n);
    rows.forEach((k, i) => {
      x.set(b.x.subarray(k * S, (k + 1) * S), i * S);
      branches[i] = b.branches[k];
    });
    const r = await this.infer.run({ branches: { data: x, dims: [n, MAX_BRANCHES, BRANCH_FEATURES] } });
    return softmaxOverBranches(r.logits.data as Float32Array, branches, n);
  }

  onnxBytes(): Uint8Array {
    return nn.exportOnnxBytes(this.inference.graph, { logits: this.inference.logits });
  }

  /** Parameter values by name (a copy: the best epoch is kept while training goes on). */
  snapshot(): Map<string, Float32Array> {
    return this.params.snapshot();
  }

  restore(values: ReadonlyMap<string, Float32Array>): void {
    this.params.load(values);
  }

  async dispose(): Promise<void> {
    await this.trainer.dispose();
    await this.infer.dispose();
  }
}

/** An exported head on onnxruntime: branch probabilities of forks. */
export class IntentionHead {
  private constructor(private readonly session: ort.InferenceSession) {}

  static async fromBytes(bytes: Uint8Array): Promise<IntentionHead> {
    return new IntentionHead(await createSession(bytes, { threads: 1 }));
  }

  /** Probabilities [n, MAX_BRANCHES] of n forks' branches (0 in unused slots). */
  async probabilities(x: Float32Array, branches: Int32Array, n: number): Promise<Float32Array> {
    if (n === 0) return new Float32Array(0);
    const feeds = {
      branches: new ort.Tensor('float32', x.subarray(0, n * MAX_BRANCHES * BRANCH_FEATURES), [
        n,
        MAX_BRANCHES,
        BRANCH_FEATURES,
      ]),
    };
    const logits = (await this.session.run(feeds)).logits.data as Float32Array;
    return softmaxOverBranches(logits, branches, n);
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** Per fork, the softmax of its first branches[i] logits; unused slots 0. */
export function softmaxOverBranches(logits: Float32Array, branches: Int32Array, n: number): Float32Array {
  const p = new Float32Array(n * MAX_BRANCHES);
  for (let i = 0; i < n; i++) {
    const o = i * MAX_BRANCHES;
    let max = -Infinity;
    for (let k = 0; k < branches[i]; k++) max = Math.max(max, logits[o + k]);
    let sum = 0;
    for (let k = 0; k < branches[i]; k++) sum += p[o + k] = Math.exp(logits[o + k] - max);
    for (let k = 0; k < branches[i]; k++) p[o + k] /= sum;
  }
  return p;
}
