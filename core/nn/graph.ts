// The graph a model is written into: symbolic tensors (dtype + static/symbolic shape) and the ONNX
// nodes that produce them, recorded in creation (= topological) order; serialised by onnxModel.ts.
import {
  allocArray,
  arrayFrom,
  isFloat,
  matchesDType,
  type DType,
  type FloatType,
  type TypedArray,
} from './dtype.ts';
import { fmtShape, ShapeError, type Dim, type Shape } from './shape.ts';
import type { Parameter } from './params.ts';
import * as ops from './ops/index.ts';

export type AttrValue =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'ints'; value: readonly number[] }
  | { kind: 'floats'; value: readonly number[] }
  | { kind: 'string'; value: string }
  | { kind: 'tensor'; value: ConstValue };

export type Attrs = Readonly<Record<string, AttrValue>>;

/** Attribute constructors: attrs are typed because ONNX distinguishes int 1 from float 1.0. */
export const attr = {
  int: (value: number): AttrValue => ({ kind: 'int', value }),
  float: (value: number): AttrValue => ({ kind: 'float', value }),
  ints: (value: readonly number[]): AttrValue => ({ kind: 'ints', value }),
  floats: (value: readonly number[]): AttrValue => ({ kind: 'floats', value }),
  string: (value: string): AttrValue => ({ kind: 'string', value }),
  tensor: (value: ConstValue): AttrValue => ({ kind: 'tensor', value }),
};

/** A constant's value. */
export interface ConstValue {
  dtype: DType;
  shape: readonly number[];
  data: TypedArray;
}

export type Source =
  | { kind: 'input' }
  | { kind: 'param'; param: Parameter }
  | { kind: 'const'; value: ConstValue }
  | { kind: 'node'; node: Node; index: number };

export interface Node {
  readonly id: number;
  /** ONNX op type, e.g. 'Conv'. */
  readonly op: string;
  readonly domain: string;
  /** Unique node name (scope path + op + id); onnxruntime's profiler reports it. */
  readonly name: string;
  /** Inputs in ONNX order; null for an omitted optional input. */
  readonly inputs: readonly (Tensor | null)[];
  readonly outputs: readonly Tensor[];
  readonly attrs: Attrs;
  /** An Identity that gradients do not flow through (stopGradient). */
  readonly stopGradient: boolean;
}

export type TensorLike = Tensor | number;

/** A symbolic tensor: a value of the graph that will exist when onnxruntime runs it. */
export class Tensor {
  constructor(
    readonly graph: Graph,
    readonly id: number,
    readonly name: string,
    readonly dtype: DType,
    readonly shape: Shape,
    readonly source: Source,
  ) {}

  get rank(): number {
    return this.shape.length;
  }

  toString(): string {
    return `${this.name}: ${this.dtype}${fmtShape(this.shape)}`;
  }

  // Fluent forms of the common ops (each is the function of the same name in ops/).
  add(b: TensorLike): Tensor {
    return ops.add(this, b);
  }
  sub(b: TensorLike): Tensor {
    return ops.sub(this, b);
  }
  mul(b: TensorLike): Tensor {
    return ops.mul(this, b);
  }
  div(b: TensorLike): Tensor {
    return ops.div(this, b);
  }
  pow(b: TensorLike): Tensor {
    return ops.pow(this, b);
  }
  neg(): Tensor {
    return ops.neg(this);
  }
  matmul(b: Tensor): Tensor {
    return ops.matmul(this, b);
  }
  relu(): Tensor {
    return ops.relu(this);
  }
  gelu(): Tensor {
    return ops.gelu(this);
  }
  sigmoid(): Tensor {
    return ops.sigmoid(this);
  }
  tanh(): Tensor {
    return ops.tanh(this);
  }
  exp(): Tensor {
    return ops.exp(this);
  }
  log(): Tensor {
    return ops.log(this);
  }
  sqrt(): Tensor {
    return ops.sqrt(this);
  }
  abs(): Tensor {
    return ops.abs(this);
  }
  square(): Tensor {
    return ops.mul(this, this);
  }
  sum(axes?: number | readonly number[], keepDims = false): Tensor {
    return ops.reduceSum(this, axes, keepDims);
  }
  mean(axes?: number | readonly number[], keepDims = false): Tensor {
    return ops.reduceMean(this, axes, keepDims);
  }
  max(axes?: number | readonly number[], keepDims = false): Tensor {
    return ops.reduceMax(this, axes, keepDims);
  }
  softmax(axis = -1): Tensor {
    return ops.softmax(this, axis);
  }
  logSoftmax(axis = -1): Tensor {
    return ops.logSoftmax(this, axis);
  }
  reshape(shape: readonly Dim[]): Tensor {
    return ops.reshape(this, shape);
  }
  transpose(perm?: readonly number[]): Tensor {
    return ops.transpose(this, perm);
  }
  flatten(axis = 1): Tensor {
    return ops.flatten(this, axis);
  }
  cast(dtype: DType): Tensor {
    return ops.cast(this, dtype);
  }
  stopGradient(): Tensor {
    return ops.stopGradient(this);
  }
}

export interface GraphOptions {
  /** Element type of inputs, parameters and float constants by default (float32). */
  floatType?: FloatType;
  name?: string;
}

export interface NodeOptions {
  domain?: string;
  stopGradient?: boolean;
}

/** Records a model's computation. One Graph per traced computation (training, inference, export). */
export class Graph {
  readonly name: string;
  readonly floatType: FloatType;
  readonly nodes: Node[] = [];
  readonly inputs: Tensor[] = [];
  private readonly paramTensors = new Map<Parameter, Tensor>();
  private readonly usedNames = new Set<string>();
  private readonly constCache = new Map<string, Tensor>();
  private readonly scopes: string[] = [];
  private nextId = 0;

  constructor(opts: GraphOptions = {}) {
    this.floatType = opts.floatType ?? 'float32';
    this.name = opts.name ?? 'drivekit';
  }

  /** A graph input fed at run time. Dims may be numbers or symbols such as 'batch'. */
  input(name: string, shape: readonly Dim[], dtype: DType = this.floatType): Tensor {
    this.claimName(name);
    const t = new Tensor(this, this.nextId++, name, dtype, [...shape], { kind: 'input' });
    this.inputs.push(t);
    return t;
  }

  /** The tensor standing for a parameter (one per parameter and graph). */
  param(p: Parameter): Tensor {
    let t = this.paramTensors.get(p);
    if (!t) {
      if (p.data instanceof Float64Array !== (this.floatType === 'float64')) {
        throw new ShapeError(
          `parameter '${p.name}' is ${p.data.constructor.name} but the graph is ${this.floatType}`,
        );
      }
      this.claimName(p.name);
      t = new Tensor(this, this.nextId++, p.name, this.floatType, [...p.shape], { kind: 'param', param: p });
      this.paramTensors.set(p, t);
    }
    return t;
  }

  /** Parameters referenced by this graph, in first-use order. */
  params(): Parameter[] {
    return [...this.paramTensors.keys()];
  }

  /** A constant tensor (an initializer in the ONNX model). */
  constant(values: TypedArray | readonly number[], shape: readonly number[], dtype?: DType): Tensor {
    const dt = dtype ?? (Array.isArray(values) ? this.floatType : dtypeOfArray(values as TypedArray));
    const data = Array.isArray(values) ? arrayFrom(dt, values) : (values as TypedArray);
    if (!matchesDType(data, dt)) throw new ShapeError(`constant: data is not ${dt}`);
    const n = shape.reduce((a, b) => a * b, 1);
    if (data.length !== n)
      throw new ShapeError(`constant: ${data.length} values for shape ${fmtShape(shape)}`);
    const name = this.uniqueName(`${this.scopePrefix()}const${this.nextId}`);
    const value: ConstValue = { dtype: dt, shape: [...shape], data };
    return new Tensor(this, this.nextId++, name, dt, [...shape], { kind: 'const', value });
  }

  /** A scalar constant (shape []), shared by every use of the same value and dtype. */
  scalar(value: number, dtype: DType = this.floatType): Tensor {
    const key = `s:${dtype}:${value}`;
    let t = this.constCache.get(key);
    if (!t) {
      const data = allocArray(dtype, 1);
      if (data instanceof BigInt64Array) data[0] = BigInt(value);
      else data[0] = value;
      t = this.constant(data, [], dtype);
      this.constCache.set(key, t);
    }
    return t;
  }

  /** A 1-D int64 constant (axes, shapes, pads), shared by every use of the same values. */
  int64s(values: readonly number[]): Tensor {
    const key = `i64:${values.join(',')}`;
    let t = this.constCache.get(key);
    if (!t) {
      t = this.constant(arrayFrom('int64', values), [values.length], 'int64');
      this.constCache.set(key, t);
    }
    return t;
  }

  /** Turn a number into a scalar constant of `like`'s dtype. */
  lift(v: TensorLike, like: Tensor): Tensor {
    if (typeof v === 'number') return this.scalar(v, like.dtype);
    if (v.graph !== this) throw new ShapeError(`tensor ${v.name} belongs to another graph`);
    return v;
  }

  /** Append a node; `outputs` gives each output's dtype and shape (from the op's shape inference). */
  addNode(
    op: string,
    inputs: readonly (Tensor | null)[],
    outputs: readonly { dtype: DType; shape: Shape }[],
    attrs: Attrs = {},
    opts: NodeOptions = {},
  ): Tensor[] {
    for (const t of inputs) {
      if (t && t.graph !== this) throw new ShapeError(`${op}: input ${t.name} belongs to another graph`);
    }
    const id = this.nextId++;
    const name = this.uniqueName(`${this.scopePrefix()}${op}_${id}`);
    const outs: Tensor[] = [];
    const node: Node = {
      id,
      op,
      domain: opts.domain ?? '',
      name,
      inputs: [...inputs],
      outputs: outs,
      attrs,
      stopGradient: opts.stopGradient ?? false,
    };
    outputs.forEach((o, k) => {
      const tname = k === 0 ? name : `${name}:${k}`;
      this.usedNames.add(tname);
      outs.push(
        new Tensor(this, this.nextId++, tname, o.dtype, [...o.shape], { kind: 'node', node, index: k }),
      );
    });
    this.nodes.push(node);
    return outs;
  }

  /** Run `fn` with `name` added to the scope path of every node it creates (e.g. 'enc1/Conv_12'). */
  scope<T>(name: string, fn: () => T): T {
    this.scopes.push(name);
    try {
      return fn();
    } finally {
      this.scopes.pop();
    }
  }

  /** `op` with the current scope, for error messages ('Conv in enc1/conv2'). */
  where(op: string): string {
    return this.scopes.length ? `${op} in ${this.scopes.join('/')}` : op;
  }

  private scopePrefix(): string {
    return this.scopes.length ? this.scopes.join('/') + '/' : '';
  }

  private claimName(name: string): void {
    if (this.usedNames.has(name))
      throw new ShapeError(`name '${name}' is already used in graph ${this.name}`);
    this.usedNames.add(name);
  }

  private uniqueName(base: string): string {
    let name = base;
    for (let k = 1; this.usedNames.has(name); k++) name = `${base}_${k}`;
    this.usedNames.add(name);
    return name;
  }
}

export function dtypeOfArray(a: TypedArray): DType {
  if (a instanceof Float32Array) return 'float32';
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof BigInt64Array) return 'int64';
  return 'uint8';
}

/** Throw unless `t` has a floating dtype (ops that only make sense on reals). */
export function requireFloat(op: string, t: Tensor): void {
  if (!isFloat(t.dtype)) throw new ShapeError(`${op}: ${t.name} must be float32/float64, got ${t.dtype}`);
}

/** Throw unless all tensors share one dtype. */
export function requireSameDType(op: string, ts: readonly Tensor[]): void {
  for (const t of ts) {
    if (t.dtype !== ts[0].dtype) {
      throw new ShapeError(`${op}: mixed dtypes ${ts.map((u) => `${u.name}:${u.dtype}`).join(', ')}`);
    }
  }
}

/** Throw unless `t` has rank `rank`. */
export function requireRank(op: string, t: Tensor, rank: number, what = 'input'): void {
  if (t.rank !== rank)
    throw new ShapeError(`${op}: ${what} must have rank ${rank}, got ${fmtShape(t.shape)}`);
}
