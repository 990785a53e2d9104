// The self-play teacher's policy (Zhang et al., "Learning to Drive via Asymmetric Self-Play", ECCV 2024) on
// drivekit's learning engine: context (kind one-hot + noise) → MLP → one categorical per draw slot, a value
// head, and the clipped PPO surrogate (Schulman et al. 2017) over one-step episodes; ONNX export, checkpoints.
import * as nn from '../../core/nn/index.ts';
import type { Rng } from '../../core/rng.ts';
import { DEFAULT_DRAW_SPACE, type DrawSpace, TEACHER_KINDS } from './chosenDraws.ts';

export interface TeacherModelConfig {
  space: DrawSpace;
  /** Noise features appended to the kind one-hot, so one kind can yield many different scenarios. */
  noise: number;
  hidden: readonly number[];
  lr: number;
  clip: number;
  valueCoef: number;
  entropyCoef: number;
  seed: number;
  threads: number;
}

export const DEFAULT_TEACHER_MODEL: TeacherModelConfig = {
  space: DEFAULT_DRAW_SPACE,
  noise: 4,
  hidden: [64, 64],
  lr: 3e-3,
  clip: 0.2,
  valueCoef: 0.5,
  entropyCoef: 0.01,
  seed: 1,
  threads: 1,
};

/** One-step episodes of the teacher: contexts, chosen bins, slot masks, old log-probs, rewards. */
export interface TeacherBatch {
  count: number;
  ctx: Float32Array;
  action: BigInt64Array;
  mask: Float32Array;
  oldLogp: Float32Array;
  advantage: Float32Array;
  return: Float32Array;
}

export class TeacherModel {
  readonly ctxSize: number;
  private constructor(
    readonly cfg: TeacherModelConfig,
    readonly params: nn.ParamStore,
    readonly optimizer: nn.Optimizer,
    readonly trainer: nn.Trainer,
    readonly infer: nn.GraphSession,
    private readonly inference: { graph: nn.Graph; logits: nn.Tensor; value: nn.Tensor },
  ) {
    this.ctxSize = TEACHER_KINDS.length + cfg.noise;
  }

  static async create(over: Partial<TeacherModelConfig> = {}): Promise<TeacherModel> {
    const cfg = { ...DEFAULT_TEACHER_MODEL, ...over };
    const C = TEACHER_KINDS.length + cfg.noise;
    const S = cfg.space.slots;
    const K = cfg.space.bins;
    const ps = new nn.ParamStore({ seed: cfg.seed });
    const trunk = nn.mlp(ps, 'trunk', [C, ...cfg.hidden], { activateLast: true });
    const last = cfg.hidden[cfg.hidden.length - 1];
    const head = nn.linear(ps, 'slots', last, S * K);
    const valueHead = nn.linear(ps, 'value', last, 1);
    const apply = (x: nn.Tensor) => {
      const z = trunk(x);
      return { logits: head(z), value: nn.squeeze(valueHead(z), 1) };
    };
    // Training graph: log-prob of the chosen bins summed over the kind's slots, PPO clipped surrogate.
    const g = new nn.Graph({ name: 'drivekit_selfplay_teacher_train' });
    const B = 'batch';
    const x = g.input('ctx', [B, C]);
    const action = g.input('action', [B, S], 'int64');
    const mask = g.input('mask', [B, S]);
    const oldLogp = g.input('old_logp', [B]);
    const adv = g.input('advantage', [B]);
    const ret = g.input('return', [B]);
    const { logits, value } = apply(x);
    const logp = nn.logSoftmax(nn.reshape(logits, [-1, S, K]), -1);
    const chosen = nn.squeeze(nn.gatherElements(logp, nn.unsqueeze(action, -1), -1), -1);
    const lp = nn.reduceSum(nn.mul(chosen, mask), 1);
    const ratio = nn.exp(nn.sub(lp, oldLogp));
    const surrogate = nn.minimum(nn.mul(ratio, adv), nn.mul(nn.clip(ratio, 1 - cfg.clip, 1 + cfg.clip), adv));
    const policy = nn.neg(nn.reduceMean(surrogate));
    const valueLoss = nn.reduceMean(nn.mul(nn.sub(value, ret), nn.sub(value, ret)));
    const ent = nn.reduceSum(nn.mul(nn.reduceSum(nn.mul(nn.exp(logp), logp), 2), mask), 1);
    const entropy = nn.neg(nn.reduceMean(ent));
    const loss = nn.sub(nn.add(policy, nn.mul(valueLoss, cfg.valueCoef)), nn.mul(entropy, cfg.entropyCoef));
    const optimizer = nn.adamW({ weightDecay: 1e-5 });
    const trainer = await nn.Trainer.create(g, {
      loss,
      optimizer,
      lr: cfg.lr,
      clipGradNorm: 1,
      outputs: { policy, value: valueLoss, entropy },
      threads: cfg.threads,
    });
    const ig = new nn.Graph({ name: 'drivekit_selfplay_teacher' });
    const out = apply(ig.input('ctx', ['batch', C]));
    const infer = await nn.GraphSession.create(
      ig,
      { logits: out.logits, value: out.value },
      { threads: cfg.threads },
    );
    return new TeacherModel(cfg, ps, optimizer, trainer, infer, { graph: ig, ...out });
  }

  /** The context of one proposal: the kind's one-hot and uniform noise in [−1, 1]. */
  context(kind: string, rng: Rng, out: Float32Array = new Float32Array(this.ctxSize)): Float32Array {
    const k = TEACHER_KINDS.indexOf(kind);
    if (k < 0) throw new Error(`teacher: unknown kind '${kind}'`);
    out.fill(0);
    out[k] = 1;
    for (let i = 0; i < this.cfg.noise; i++) out[TEACHER_KINDS.length + i] = rng.uniform(-1, 1);
    return out;
  }

  /** Logits [n, slots·bins] and values [n]. */
  async evaluate(ctx: Float32Array, n: number): Promise<{ logits: Float32Array; value: Float32Array }> {
    const r = await this.infer.run({
      ctx: { data: ctx.subarray(0, n * this.ctxSize), dims: [n, this.ctxSize] },
    });
    return { logits: r.logits.data as Float32Array, value: r.value.data as Float32Array };
  }

  /** PPO epochs over the batch (minibatches of `minibatch` rows); mean loss terms. */
  async update(b: TeacherBatch, rng: Rng, epochs = 4, minibatch = 32): Promise<Record<string, number>> {
    const C = this.ctxSize;
    const S = this.cfg.space.slots;
    const order = Int32Array.from({ length: b.count }, (_, i) => i);
    const sums: Record<string, number> = {};
    let steps = 0;
    for (let e = 0; e < epochs; e++) {
      rng.shuffle(order);
      for (let s = 0; s < order.length; s += minibatch) {
        const m = Math.min(minibatch, order.length - s);
        const ctx = new Float32Array(m * C);
        const action = new BigInt64Array(m * S);
        const mask = new Float32Array(m * S);
        const oldLogp = new Float32Array(m);
        const adv = new Float32Array(m);
        const ret = new Float32Array(m);
        for (let r = 0; r < m; r++) {
          const k = order[s + r];
          ctx.set(b.ctx.subarray(k * C, (k + 1) * C), r * C);
          action.set(b.action.subarray(k * S, (k + 1) * S), r * S);
          mask.set(b.mask.subarray(k * S, (k + 1) * S), r * S);
          oldLogp[r] = b.oldLogp[k];
          adv[r] = b.advantage[k];
          ret[r] = b.return[k];
        }
        const res = await this.trainer.step({
          ctx: { data: ctx, dims: [m, C] },
          action: { data: action, dims: [m, S] },
          mask: { data: mask, dims: [m, S] },
          old_logp: { data: oldLogp, dims: [m] },
          advantage: { data: adv, dims: [m] },
          return: { data: ret, dims: [m] },
        });
        sums.loss = (sums.loss ?? 0) + res.loss;
        for (const [k, v] of Object.entries(res.outputs)) sums[k] = (sums[k] ?? 0) + Number(v.data[0]);
        steps++;
      }
    }
    for (const k of Object.keys(sums)) sums[k] /= Math.max(steps, 1);
    return sums;
  }

  onnxBytes(): Uint8Array {
    return nn.exportOnnxBytes(this.inference.graph, {
      logits: this.inference.logits,
      value: this.inference.value,
    });
  }

  parameterCount(): number {
    return this.params.list().reduce((s, p) => s + p.data.length, 0);
  }

  async saveCheckpoint(file: string, rng: nn.Rng, extra: unknown): Promise<void> {
    await nn.saveCheckpoint(file, {
      step: this.trainer.stepCount,
      params: this.params,
      optimizer: this.optimizer,
      rngs: { data: rng },
      extra,
    });
  }

  async loadCheckpoint(file: string, rng: nn.Rng): Promise<unknown> {
    const r = await nn.loadCheckpoint(file, {
      params: this.params,
      optimizer: this.optimizer,
      rngs: { data: rng },
    });
    this.trainer.stepCount = r.step;
    return r.extra;
  }

  /** The parameters of an exported teacher (its ONNX initialisers). */
  loadParams(values: Map<string, Float32Array>): void {
    this.params.load(values);
  }

  async dispose(): Promise<void> {
    await this.trainer.dispose();
    await this.infer.dispose();
  }
}
