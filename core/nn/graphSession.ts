// A graph compiled to an onnxruntime session: feeds typed arrays by input name, feeds parameters
// straight from their Float32Arrays (tensors made once, no copies), returns outputs by name.
import { buildModel, type BuiltModel } from './onnxModel.ts';
import { createSession, ort, type RuntimeOptions } from './runtime.ts';
import { matchesDType, type TypedArray } from './dtype.ts';
import type { Graph, Tensor } from './graph.ts';
import type { Parameter } from './params.ts';
import { fmtShape, ShapeError } from './shape.ts';

/** A value fed to a graph input: a typed array (shape from the graph), an explicit shape, or an ort.Tensor. */
export type Feed = TypedArray | { data: TypedArray; dims: readonly number[] } | ort.Tensor;
export type Feeds = Readonly<Record<string, Feed>>;

export interface GraphSessionOptions extends RuntimeOptions {
  /** 'inputs' (default): parameters are read from their arrays on every run; 'initializers': baked in. */
  params?: 'inputs' | 'initializers';
}

/** A compiled graph. Dispose it when done (it holds native memory). */
export class GraphSession {
  private readonly paramFeeds: Record<string, ort.Tensor> = {};
  private disposed = false;

  private constructor(
    readonly model: BuiltModel,
    readonly session: ort.InferenceSession,
  ) {
    for (const t of model.paramInputs) {
      const p = (t.source as { kind: 'param'; param: Parameter }).param;
      // The tensor wraps the parameter's own buffer: optimizer updates are seen without copying.
      this.paramFeeds[t.name] = new ort.Tensor(t.dtype as 'float32' | 'float64', p.data, [...p.shape]);
    }
  }

  static async create(
    graph: Graph,
    outputs: Readonly<Record<string, Tensor>>,
    opts: GraphSessionOptions = {},
  ): Promise<GraphSession> {
    const model = buildModel(graph, { outputs, params: opts.params ?? 'inputs' });
    const session = await createSession(model.bytes, opts);
    return new GraphSession(model, session);
  }

  /** Names of the data inputs this session needs. */
  get inputNames(): string[] {
    return this.model.dataInputs.map((t) => t.name);
  }

  /**
   * Run once. Inputs are wrapped, not copied. Outputs come back in fresh arrays: onnxruntime-node
   * (1.30) copies every output into a new ArrayBuffer even when a preallocated output tensor is
   * passed (it writes into that buffer, then copies it), and it exposes no CPU IO binding, so
   * preallocating outputs would only add work.
   */
  async run(feeds: Feeds): Promise<Record<string, ort.Tensor>> {
    if (this.disposed) throw new Error('GraphSession used after dispose()');
    const all: Record<string, ort.Tensor> = { ...this.paramFeeds };
    for (const t of this.model.dataInputs) {
      const f = feeds[t.name];
      if (f === undefined)
        throw new ShapeError(`missing feed for input '${t.name}' ${t.dtype}${fmtShape(t.shape)}`);
      all[t.name] = toOrtTensor(t, f);
    }
    return (await this.session.run(all)) as Record<string, ort.Tensor>;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.session.release();
  }
}

/** Wrap a feed as an ort.Tensor for graph input `t`, checking dtype and shape. */
export function toOrtTensor(t: Tensor, f: Feed): ort.Tensor {
  if (f instanceof ort.Tensor) {
    if (f.type !== t.dtype) throw new ShapeError(`feed '${t.name}': expected ${t.dtype}, got ${f.type}`);
    checkDims(t, f.dims);
    return f;
  }
  const data = ArrayBuffer.isView(f) ? (f as TypedArray) : (f as { data: TypedArray }).data;
  const dims = 'dims' in f && !ArrayBuffer.isView(f) ? [...f.dims] : inferDims(t, data.length);
  if (!matchesDType(data, t.dtype)) {
    throw new ShapeError(`feed '${t.name}': expected ${t.dtype} data, got ${data.constructor.name}`);
  }
  checkDims(t, dims);
  const n = dims.reduce((a, b) => a * b, 1);
  if (n !== data.length)
    throw new ShapeError(`feed '${t.name}': ${data.length} values for shape ${fmtShape(dims)}`);
  const type = t.dtype === 'bool' ? 'bool' : t.dtype;
  return new ort.Tensor(type as 'float32', data as Float32Array, dims);
}

function checkDims(t: Tensor, dims: readonly number[]): void {
  const ok = dims.length === t.rank && t.shape.every((d, i) => typeof d !== 'number' || d === dims[i]);
  if (!ok)
    throw new ShapeError(`feed '${t.name}': shape ${fmtShape(dims)} does not fit ${fmtShape(t.shape)}`);
}

/** Fill in one symbolic dim from the element count (more than one needs explicit dims). */
function inferDims(t: Tensor, length: number): number[] {
  const sym = t.shape.filter((d) => typeof d !== 'number').length;
  const known = t.shape.reduce<number>((a, d) => (typeof d === 'number' ? a * d : a), 1);
  if (sym === 0) return t.shape as number[];
  if (sym > 1 || known === 0 || length % known !== 0) {
    throw new ShapeError(`feed '${t.name}' ${fmtShape(t.shape)}: pass { data, dims } for this shape`);
  }
  return t.shape.map((d) => (typeof d === 'number' ? d : length / known));
}
