// Convolution and pooling over NC(spatial…) tensors (ONNX opset 17): Conv and ConvTranspose
// (stride, padding, dilation, groups), MaxPool, AveragePool, and nearest upsampling (Resize).
import { attr, requireFloat, requireSameDType, type AttrValue, type Tensor } from '../graph.ts';
import { fmtShape, ShapeError, unknownDim, type Dim } from '../shape.ts';

/** Padding: a number (all sides), one number per spatial dim, full ONNX pads, or 'same' (d·(k−1)/2). */
export type Padding = number | readonly number[] | 'same';

export interface ConvOptions {
  stride?: number | readonly number[];
  padding?: Padding;
  dilation?: number | readonly number[];
  groups?: number;
}

export interface ConvTransposeOptions extends ConvOptions {
  /** Extra size added to one side of the output (to pick among the sizes a stride allows). */
  outputPadding?: number | readonly number[];
}

/** Resolved convolution geometry (one entry per spatial dim; pads in ONNX begin…end order). */
export interface ConvGeometry {
  kernel: number[];
  strides: number[];
  pads: number[];
  dilations: number[];
  groups: number;
}

function perDim(
  op: string,
  v: number | readonly number[] | undefined,
  n: number,
  dflt: number,
  what: string,
): number[] {
  if (v === undefined) return new Array(n).fill(dflt);
  if (typeof v === 'number') return new Array(n).fill(v);
  if (v.length !== n) throw new ShapeError(`${op}: ${what} needs ${n} values, got [${v.join(',')}]`);
  return [...v];
}

/** Resolve options against a kernel of spatial size `kernel`. */
export function convGeometry(op: string, kernel: readonly number[], opts: ConvOptions): ConvGeometry {
  const n = kernel.length;
  const strides = perDim(op, opts.stride, n, 1, 'stride');
  const dilations = perDim(op, opts.dilation, n, 1, 'dilation');
  let pads: number[];
  const p = opts.padding ?? 0;
  if (p === 'same') {
    const total = kernel.map((k, i) => dilations[i] * (k - 1));
    pads = [...total.map((t) => Math.floor(t / 2)), ...total.map((t) => t - Math.floor(t / 2))];
  } else if (typeof p === 'number') pads = new Array(2 * n).fill(p);
  else if (p.length === n) pads = [...p, ...p];
  else if (p.length === 2 * n) pads = [...p];
  else throw new ShapeError(`${op}: padding needs 1, ${n} or ${2 * n} values, got [${p.join(',')}]`);
  if ([...strides, ...dilations].some((v) => !Number.isInteger(v) || v < 1) || pads.some((v) => v < 0)) {
    throw new ShapeError(`${op}: strides/dilations must be ≥ 1 and pads ≥ 0`);
  }
  return { kernel: [...kernel], strides, pads, dilations, groups: opts.groups ?? 1 };
}

function convOutDim(d: Dim, k: number, s: number, pb: number, pe: number, dil: number): Dim {
  if (typeof d !== 'number') return unknownDim();
  return Math.floor((d + pb + pe - dil * (k - 1) - 1) / s) + 1;
}

function geometryAttrs(geo: ConvGeometry) {
  return {
    kernel_shape: attr.ints(geo.kernel),
    strides: attr.ints(geo.strides),
    pads: attr.ints(geo.pads),
    dilations: attr.ints(geo.dilations),
  };
}

/** Convolution: x [N, C, …], w [K, C/groups, k…], optional bias [K]. */
export function conv(x: Tensor, w: Tensor, bias: Tensor | null = null, opts: ConvOptions = {}): Tensor {
  const g = x.graph;
  const op = g.where('Conv');
  requireFloat(op, x);
  requireSameDType(op, bias ? [x, w, bias] : [x, w]);
  if (x.rank < 3 || w.rank !== x.rank) {
    throw new ShapeError(
      `${op}: x ${fmtShape(x.shape)} and w ${fmtShape(w.shape)} must be [N,C,…] and [K,C/g,…]`,
    );
  }
  const kernel = w.shape.slice(2);
  if (!kernel.every((k): k is number => typeof k === 'number'))
    throw new ShapeError(`${op}: kernel must be static`);
  const geo = convGeometry(op, kernel, opts);
  const [K, Cg] = w.shape;
  const C = x.shape[1];
  if (typeof C === 'number' && typeof Cg === 'number' && C !== Cg * geo.groups) {
    throw new ShapeError(
      `${op}: x has ${C} channels but w ${fmtShape(w.shape)} with ${geo.groups} group(s) wants ${Cg * geo.groups}`,
    );
  }
  if (typeof K === 'number' && K % geo.groups !== 0)
    throw new ShapeError(`${op}: ${K} filters not divisible by groups`);
  if (bias && (bias.rank !== 1 || bias.shape[0] !== K))
    throw new ShapeError(`${op}: bias must be [${K}], got ${bias}`);
  const nsp = kernel.length;
  const spatial = x.shape
    .slice(2)
    .map((d, i) =>
      convOutDim(d, kernel[i], geo.strides[i], geo.pads[i], geo.pads[i + nsp], geo.dilations[i]),
    );
  if (spatial.some((d) => typeof d === 'number' && d < 1))
    throw new ShapeError(`${op}: output of ${x} would be empty`);
  return g.addNode(
    'Conv',
    bias ? [x, w, bias] : [x, w],
    [{ dtype: x.dtype, shape: [x.shape[0], K, ...spatial] }],
    {
      ...geometryAttrs(geo),
      group: attr.int(geo.groups),
    },
  )[0];
}

/** Transposed convolution: x [N, C, …], w [C, K/groups, k…], optional bias [K]. */
export function convTranspose(
  x: Tensor,
  w: Tensor,
  bias: Tensor | null = null,
  opts: ConvTransposeOptions = {},
): Tensor {
  const g = x.graph;
  const op = g.where('ConvTranspose');
  requireFloat(op, x);
  requireSameDType(op, bias ? [x, w, bias] : [x, w]);
  if (x.rank < 3 || w.rank !== x.rank) {
    throw new ShapeError(
      `${op}: x ${fmtShape(x.shape)} and w ${fmtShape(w.shape)} must be [N,C,…] and [C,K/g,…]`,
    );
  }
  const kernel = w.shape.slice(2);
  if (!kernel.every((k): k is number => typeof k === 'number'))
    throw new ShapeError(`${op}: kernel must be static`);
  const geo = convGeometry(op, kernel, opts);
  const nsp = kernel.length;
  const outPad = perDim(op, opts.outputPadding, nsp, 0, 'outputPadding');
  const C = x.shape[1];
  if (typeof C === 'number' && w.shape[0] !== C)
    throw new ShapeError(`${op}: x has ${C} channels, w is ${fmtShape(w.shape)}`);
  const K = typeof w.shape[1] === 'number' ? w.shape[1] * geo.groups : unknownDim();
  if (bias && (bias.rank !== 1 || bias.shape[0] !== K))
    throw new ShapeError(`${op}: bias must be [${K}], got ${bias}`);
  const spatial = x.shape.slice(2).map((d, i) => {
    if (typeof d !== 'number') return unknownDim();
    const k = geo.dilations[i] * (kernel[i] - 1) + 1;
    return geo.strides[i] * (d - 1) + outPad[i] + k - geo.pads[i] - geo.pads[i + nsp];
  });
  return g.addNode(
    'ConvTranspose',
    bias ? [x, w, bias] : [x, w],
    [{ dtype: x.dtype, shape: [x.shape[0], K, ...spatial] }],
    { ...geometryAttrs(geo), group: attr.int(geo.groups), output_padding: attr.ints(outPad) },
  )[0];
}

export interface PoolOptions {
  stride?: number | readonly number[];
  padding?: Padding;
  /** AveragePool only: count padded zeros in the divisor (default false; PyTorch defaults to true). */
  countIncludePad?: boolean;
}

function pool(
  op: string,
  x: Tensor,
  kernel: number | readonly number[],
  opts: PoolOptions,
  withIndices: boolean,
) {
  const g = x.graph;
  const where = g.where(op);
  requireFloat(where, x);
  if (x.rank < 3) throw new ShapeError(`${where}: x must be [N,C,…], got ${x}`);
  const nsp = x.rank - 2;
  const k = perDim(where, kernel, nsp, 1, 'kernel');
  const geo = convGeometry(where, k, { stride: opts.stride ?? k, padding: opts.padding });
  const spatial = x.shape
    .slice(2)
    .map((d, i) => convOutDim(d, k[i], geo.strides[i], geo.pads[i], geo.pads[i + nsp], 1));
  const shape = [x.shape[0], x.shape[1], ...spatial];
  const attrs: Record<string, AttrValue> = {
    kernel_shape: attr.ints(k),
    strides: attr.ints(geo.strides),
    pads: attr.ints(geo.pads),
  };
  if (op === 'AveragePool') attrs.count_include_pad = attr.int(opts.countIncludePad ? 1 : 0);
  const outs = [{ dtype: x.dtype, shape }];
  if (withIndices) outs.push({ dtype: 'int64', shape });
  return g.addNode(op, [x], outs, attrs);
}

/** Max pooling (stride defaults to the kernel). */
export function maxPool(x: Tensor, kernel: number | readonly number[], opts: PoolOptions = {}): Tensor {
  return pool('MaxPool', x, kernel, opts, false)[0];
}

/** Max pooling that also returns the flat (N·C·spatial) index of each maximum, for gradients. */
export function maxPoolWithIndices(
  x: Tensor,
  kernel: number | readonly number[],
  opts: PoolOptions = {},
): Tensor[] {
  return pool('MaxPool', x, kernel, opts, true);
}

/** Average pooling (stride defaults to the kernel; padded zeros excluded from the mean by default). */
export function averagePool(x: Tensor, kernel: number | readonly number[], opts: PoolOptions = {}): Tensor {
  return pool('AveragePool', x, kernel, opts, false)[0];
}

/** Nearest-neighbour upsampling of the spatial dims by integer factors (ONNX Resize, asymmetric/floor). */
export function upsampleNearest(x: Tensor, factor: number | readonly number[]): Tensor {
  const g = x.graph;
  const op = g.where('Resize');
  if (x.rank < 3) throw new ShapeError(`${op}: x must be [N,C,…], got ${x}`);
  const f = perDim(op, factor, x.rank - 2, 1, 'factor');
  if (f.some((v) => !Number.isInteger(v) || v < 1))
    throw new ShapeError(`${op}: factors must be integers ≥ 1`);
  const scales = g.constant(new Float32Array([1, 1, ...f]), [x.rank], 'float32');
  const shape = x.shape.map((d, i) => (i < 2 ? d : typeof d === 'number' ? d * f[i - 2] : unknownDim()));
  return g.addNode('Resize', [x, null, scales], [{ dtype: x.dtype, shape }], {
    mode: attr.string('nearest'),
    coordinate_transformation_mode: attr.string('asymmetric'),
    nearest_mode: attr.string('floor'),
  })[0];
}
