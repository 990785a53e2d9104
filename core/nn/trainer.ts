// A training step on onnxruntime: the graph plus its backward part runs as one session returning the
// loss and every gradient; then clipping and the optimizer update the parameters in place.
import { grad } from './autodiff.ts';
import { clipGradNorm, globalNorm } from './clip.ts';
import type { Graph, Tensor } from './graph.ts';
import { GraphSession, type Feeds } from './graphSession.ts';
import type { Optimizer } from './optimizers.ts';
import type { Parameter } from './params.ts';
import { runtimeOptions, type RuntimeOptions } from './runtime.ts';
import type { LrSchedule } from './schedules.ts';
import type { ort } from './runtime.ts';
import { neededNodes } from './onnxModel.ts';
import { ShapeError } from './shape.ts';

export interface TrainerOptions extends RuntimeOptions {
  /** Scalar loss to minimise. */
  loss: Tensor;
  optimizer: Optimizer;
  /** Learning rate or schedule (a function of the number of steps done). */
  lr: number | LrSchedule;
  /** Parameters to train (default: every parameter the loss depends on). */
  params?: readonly Parameter[];
  /** Clip the global gradient norm to this (default: no clipping). */
  clipGradNorm?: number;
  /** Extra forward values each step returns (metrics, predictions). */
  outputs?: Readonly<Record<string, Tensor>>;
}

export interface StepResult {
  loss: number;
  lr: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  outputs: Record<string, ort.Tensor>;
}

/** Owns the training session; `step(feeds)` runs forward + backward + update. */
export class Trainer {
  /** Steps completed (restored from checkpoints). */
  stepCount = 0;

  private constructor(
    readonly session: GraphSession,
    readonly params: readonly Parameter[],
    readonly optimizer: Optimizer,
    private readonly lr: LrSchedule,
    private readonly clip: number | undefined,
    private readonly extraNames: readonly string[],
  ) {}

  static async create(graph: Graph, opts: TrainerOptions): Promise<Trainer> {
    const { loss } = opts;
    if (loss.rank !== 0) throw new ShapeError(`Trainer: loss must be a scalar, got ${loss}`);
    const params = opts.params ?? paramsReaching(graph, loss);
    if (params.length === 0) throw new ShapeError('Trainer: the loss depends on no parameter');
    const grads = grad(
      loss,
      params.map((p) => graph.param(p)),
    );
    const outputs: Record<string, Tensor> = { loss };
    params.forEach((p, i) => (outputs[`grad:${p.name}`] = grads[i]));
    const extraNames = Object.keys(opts.outputs ?? {});
    for (const k of extraNames) {
      if (k in outputs) throw new ShapeError(`Trainer: output name '${k}' is reserved`);
      outputs[k] = opts.outputs![k];
    }
    const session = await GraphSession.create(graph, outputs, runtimeOptions(opts));
    const lr =
      typeof opts.lr === 'number'
        ? (
            (v: number) => () =>
              v
          )(opts.lr)
        : opts.lr;
    return new Trainer(session, params, opts.optimizer, lr, opts.clipGradNorm, extraNames);
  }

  /** Learning rate the next step will use. */
  get currentLr(): number {
    return this.lr(this.stepCount);
  }

  async step(feeds: Feeds): Promise<StepResult> {
    const res = await this.session.run(feeds);
    const grads = this.params.map((p) => res[`grad:${p.name}`].data as Float32Array);
    const gradNorm = this.clip !== undefined ? clipGradNorm(grads, this.clip) : globalNorm(grads);
    const lr = this.lr(this.stepCount);
    const loss = Number(res.loss.data[0]);
    if (!Number.isFinite(loss))
      throw new Error(`training diverged: loss is ${loss} at step ${this.stepCount}`);
    this.optimizer.step(this.params, grads, lr);
    this.stepCount++;
    const outputs: Record<string, ort.Tensor> = {};
    for (const k of this.extraNames) outputs[k] = res[k];
    return { loss, lr, gradNorm, outputs };
  }

  async dispose(): Promise<void> {
    await this.session.dispose();
  }
}

/** Parameters of `graph` that `loss` depends on, in first-use order. */
export function paramsReaching(graph: Graph, loss: Tensor): Parameter[] {
  const used = new Set<Tensor>();
  for (const n of neededNodes(graph, [loss])) for (const t of n.inputs) if (t) used.add(t);
  return graph.params().filter((p) => used.has(graph.param(p)));
}
