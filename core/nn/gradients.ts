// Every gradient rule of the engine, one entry per ONNX op (in the spirit of tinygrad's one-file
// derivative table). A rule maps the output gradients of a node to gradients of its inputs.
import type { GradContext, GradRule } from './autodiff.ts';
import { isFloat } from './dtype.ts';
import type { Node, Tensor } from './graph.ts';
import * as o from './ops/index.ts';
import { fmtShape, isStaticShape, numel, ShapeError, type Dim } from './shape.ts';

// ---------------------------------------------------------------------------------------------
// Helpers

function intAttr(n: Node, name: string, dflt: number): number {
  const a = n.attrs[name];
  return a && a.kind === 'int' ? a.value : dflt;
}
function intsAttr(n: Node, name: string): number[] {
  const a = n.attrs[name];
  return a && a.kind === 'ints' ? [...a.value] : [];
}
function floatAttr(n: Node, name: string, dflt: number): number {
  const a = n.attrs[name];
  return a && a.kind === 'float' ? a.value : dflt;
}
function stringAttr(n: Node, name: string, dflt: string): string {
  const a = n.attrs[name];
  return a && a.kind === 'string' ? a.value : dflt;
}

/** Values of a constant input (axes, pads, sizes, scales); rules need them at graph-build time. */
function constValues(n: Node, t: Tensor | null, what: string): number[] {
  if (!t) return [];
  if (t.source.kind !== 'const')
    throw new ShapeError(`grad: ${n.op} (node ${n.name}) needs constant ${what}`);
  return Array.from(t.source.value.data as ArrayLike<number | bigint>, (v) => Number(v));
}

function fail(n: Node, why: string): never {
  throw new ShapeError(`grad: ${n.op} (node ${n.name}): ${why}`);
}

/** Sum `dy` over the axes along which `like` was broadcast, giving it like's shape. */
function unbroadcast(dy: Tensor, like: Tensor): Tensor {
  const lead = dy.rank - like.rank;
  const axes: number[] = [];
  for (let i = 0; i < lead; i++) axes.push(i);
  const keep: number[] = [];
  like.shape.forEach((d, i) => {
    if (d === 1 && dy.shape[i + lead] !== 1) keep.push(i + lead);
  });
  let r = dy;
  if (keep.length) r = o.reduceSum(r, keep, true);
  if (axes.length) r = o.reduceSum(r, axes, false);
  // Symbolic dims may hide broadcasting that shape inference could not see.
  if (r.rank !== like.rank) return o.reshapeLike(r, like);
  return r;
}

/**
 * dy where `mask` holds, else 0, as dy · float(mask): onnxruntime's Mul + Cast run about twice as
 * fast as its Where on large tensors (measured on ReLU gradients of [2, 32, 256, 256]).
 */
function masked(dy: Tensor, mask: Tensor): Tensor {
  return o.mul(dy, o.cast(mask, dy.dtype));
}

/** Swap the last two axes. */
function mT(x: Tensor): Tensor {
  const perm = x.shape.map((_, i) => i);
  [perm[x.rank - 2], perm[x.rank - 1]] = [perm[x.rank - 1], perm[x.rank - 2]];
  return o.transpose(x, perm);
}

/** Element count of `axes` of x as a scalar of x's dtype (run-time when dims are symbolic). */
function countOf(x: Tensor, axes: readonly number[]): Tensor {
  const n = numel(axes.map((a) => x.shape[a]));
  const g = x.graph;
  if (n !== null) return g.scalar(n, x.dtype);
  const dims = o.gather(o.shapeOf(x), g.int64s(axes), 0);
  const prod = g.addNode('ReduceProd', [dims], [{ dtype: 'int64', shape: [] }], {
    keepdims: { kind: 'int', value: 0 },
  })[0];
  return o.cast(prod, x.dtype);
}

/** Output gradient reshaped back to keep-dims form for a reduction over `axes`. */
function keepDims(dy: Tensor, axes: readonly number[], kept: boolean): Tensor {
  return kept ? dy : o.unsqueeze(dy, axes);
}

function reduceAxes(c: GradContext): number[] {
  const x = c.x[0]!;
  const axes = c.node.op === 'ReduceSum' ? constValues(c.node, c.x[1], 'axes') : intsAttr(c.node, 'axes');
  const all = axes.length === 0 ? x.shape.map((_, i) => i) : axes;
  return all.map((a) => (a < 0 ? a + x.rank : a)).sort((a, b) => a - b);
}

function staticSpatial(n: Node, t: Tensor): number[] {
  const s = t.shape.slice(2);
  if (!s.every((d): d is number => typeof d === 'number')) fail(n, `needs static spatial dims, got ${t}`);
  return s;
}

function staticDim(n: Node, d: Dim, what: string): number {
  if (typeof d !== 'number') fail(n, `needs a static ${what}`);
  return d;
}

/**
 * im2col as one depthwise convolution with one-hot kernels: output channel c·∏k + j copies input
 * channel c shifted by kernel offset j, giving [N, C·∏k, ∏O] (channel-major, like weights [*, C, k…]).
 * onnxruntime runs this as a single strided pass, several times faster than ∏k Slice ops + Concat.
 * `padBegin` pads the start; the end is padded as far as the last of `out` windows reaches.
 */
function im2col(
  x: Tensor,
  kernel: readonly number[],
  strides: readonly number[],
  dilations: readonly number[],
  padBegin: readonly number[],
  out: readonly number[],
): Tensor {
  const g = x.graph;
  const inSp = x.shape.slice(2) as number[];
  const C = x.shape[1] as number;
  const kk = kernel.reduce((a, b) => a * b, 1);
  const O = out.reduce((a, b) => a * b, 1);
  if (kk === 1 && strides.every((s) => s === 1) && padBegin.every((p) => p === 0) && sameDims(inSp, out)) {
    return o.reshape(x, [0, C, O]);
  }
  const padEnd = inSp.map((d, j) =>
    Math.max(0, (out[j] - 1) * strides[j] + (kernel[j] - 1) * dilations[j] + 1 - d - padBegin[j]),
  );
  const eye = new Array<number>(C * kk * kk).fill(0);
  for (let c = 0; c < C; c++) for (let j = 0; j < kk; j++) eye[(c * kk + j) * kk + j] = 1;
  const w = g.constant(eye, [C * kk, 1, ...kernel], x.dtype);
  let cols = o.conv(x, w, null, {
    stride: strides,
    dilation: dilations,
    padding: [...padBegin, ...padEnd],
    groups: C,
  });
  const got = cols.shape.slice(2) as number[];
  if (!sameDims(got, out)) {
    cols = o.slice(
      cols,
      out.map(() => 0),
      out,
      out.map((_, j) => j + 2),
    );
  }
  return o.reshape(cols, [0, C * kk, O]);
}

function sameDims(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Σ over batch and positions of a ⊗ cols: a [N, G, M, P], cols [N, G, Q, P] → [G, M, Q]. Measured
 * with MLAS here: the narrow operand as the left factor is fastest unless it has under 64 rows.
 */
function patchProduct(a: Tensor, cols: Tensor): Tensor {
  const M = a.shape[2] as number;
  const Q = cols.shape[2] as number;
  if (Math.min(M, Q) < 64 && M < Q) return o.reduceSum(o.matmul(cols, mT(a)), [0]).transpose([0, 2, 1]);
  return o.reduceSum(o.matmul(a, mT(cols)), [0]);
}

function convGeo(n: Node) {
  const kernel = intsAttr(n, 'kernel_shape');
  const nsp = kernel.length;
  return {
    kernel,
    strides: intsAttr(n, 'strides').length ? intsAttr(n, 'strides') : new Array(nsp).fill(1),
    dilations: intsAttr(n, 'dilations').length ? intsAttr(n, 'dilations') : new Array(nsp).fill(1),
    pads: intsAttr(n, 'pads').length ? intsAttr(n, 'pads') : new Array(2 * nsp).fill(0),
    groups: intAttr(n, 'group', 1),
  };
}

/** Weight gradient of a (grouped) convolution as im2col + batched MatMul, summed over the batch. */
function convWeightGrad(
  n: Node,
  input: Tensor,
  outGrad: Tensor,
  geo: ReturnType<typeof convGeo>,
  wShape: readonly Dim[],
): Tensor {
  const G = geo.groups;
  const nsp = geo.kernel.length;
  const out = staticSpatial(n, outGrad);
  const kk = geo.kernel.reduce((a, b) => a * b, 1);
  const C = staticDim(n, input.shape[1], 'channel count');
  const K = staticDim(n, outGrad.shape[1], 'channel count');
  const split = nsp === 2 && geo.strides.every((s) => s === 1) && geo.kernel.every((k) => k > 1);
  if (split && C * geo.kernel[1] + K * geo.kernel[0] < C * kk)
    return convWeightGradRowsCols(input, outGrad, geo, C, K, out);
  const cols = im2col(input, geo.kernel, geo.strides, geo.dilations, geo.pads.slice(0, nsp), out); // [N, C·kk, O]
  const O = out.reduce((a, b) => a * b, 1);
  const colsG = o.reshape(cols, [0, G, (C / G) * kk, O]);
  const dyG = o.reshape(outGrad, [0, G, K / G, O]);
  return o.reshape(patchProduct(dyG, colsG), wShape as number[]); // [G, K/G, C/G·kk] → [K, C/G, k…]
}

/**
 * Weight gradient of a stride-1 2-D convolution with the kernel's row offsets taken on dy and its
 * column offsets on x: dW[k, c, i, j] = Σ_t,w dy[k, t − i·dH, w] · x[c, t − pT, w − pL + j·dW].
 * The two im2cols hold C·kW + K·kH channel copies instead of C·kH·kW (6 instead of 9 per channel for
 * a 3×3 layer with as many inputs as outputs), and the same single MatMul makes every (i, j) pair; on
 * these memory-bound machines the im2col traffic, not the MatMul, is what the plain form spends its
 * extra time on.
 */
function convWeightGradRowsCols(
  x: Tensor,
  dy: Tensor,
  geo: ReturnType<typeof convGeo>,
  C: number,
  K: number,
  out: readonly number[],
): Tensor {
  const G = geo.groups;
  const [kH, kW] = geo.kernel;
  const [dH, dW] = geo.dilations;
  const rows = out[0] + (kH - 1) * dH; // every row t = h + i·dH some (output row, kernel row) pair reads
  const P = rows * out[1];
  // xCols[n, c·kW + j, t, w] = x[n, c, t − pT, w − pL + j·dW]
  const xCols = im2col(x, [1, kW], [1, 1], [1, dW], [geo.pads[0], geo.pads[1]], [rows, out[1]]);
  // dyRows[n, k·kH + r, t, w] = dy[n, k, t − (kH − 1 − r)·dH, w]: kernel row i = kH − 1 − r
  const dyRows = im2col(dy, [kH, 1], [1, 1], [dH, 1], [(kH - 1) * dH, 0], [rows, out[1]]);
  const prod = patchProduct(
    o.reshape(dyRows, [0, G, (K / G) * kH, P]),
    o.reshape(xCols, [0, G, (C / G) * kW, P]),
  );
  // [G, K/G·kH, C/G·kW] → [K, kH, C/G, kW] → rows back in kernel order → [K, C/G, kH, kW]
  let dw = o.reshape(prod, [K, kH, C / G, kW]);
  dw = o.slice(dw, [-1], [-Number.MAX_SAFE_INTEGER], [1], [-1]);
  return o.transpose(dw, [0, 2, 1, 3]);
}

// ---------------------------------------------------------------------------------------------
// The rules

/** Ops whose outputs carry no gradient (indices, comparisons, shapes, random draws). */
export const NON_DIFFERENTIABLE = new Set([
  'ArgMax',
  'ArgMin',
  'Shape',
  'Size',
  'ConstantOfShape',
  'Equal',
  'Greater',
  'GreaterOrEqual',
  'Less',
  'LessOrEqual',
  'And',
  'Or',
  'Not',
  'OneHot',
  'Floor',
  'Round',
  'Sign',
  'Ceil',
]);

const unb = (c: GradContext, i: number, d: Tensor): Tensor | null =>
  c.needs[i] ? unbroadcast(d, c.x[i]!) : null;

export const GRAD_RULES: Record<string, GradRule> = {
  // --- arithmetic (numpy broadcasting: gradients are summed back to each operand's shape)
  Add: (c) => [unb(c, 0, c.dy[0]!), unb(c, 1, c.dy[0]!)],
  Sub: (c) => [unb(c, 0, c.dy[0]!), c.needs[1] ? unb(c, 1, o.neg(c.dy[0]!)) : null],
  Mul: (c) => {
    const [a, b] = c.x as Tensor[];
    const dy = c.dy[0]!;
    return [c.needs[0] ? unb(c, 0, o.mul(dy, b)) : null, c.needs[1] ? unb(c, 1, o.mul(dy, a)) : null];
  },
  Div: (c) => {
    const b = c.x[1]!;
    const dy = c.dy[0]!;
    const y = c.y[0];
    return [
      c.needs[0] ? unb(c, 0, o.div(dy, b)) : null,
      c.needs[1] ? unb(c, 1, o.neg(o.div(o.mul(dy, y), b))) : null,
    ];
  },
  Pow: (c) => {
    const [a, b] = c.x as Tensor[];
    const dy = c.dy[0]!;
    return [
      c.needs[0] ? unb(c, 0, o.mul(dy, o.mul(b, o.pow(a, o.sub(b, 1))))) : null,
      c.needs[1] ? unb(c, 1, o.mul(dy, o.mul(c.y[0], o.log(a)))) : null,
    ];
  },
  Sum: (c) => c.x.map((_, i) => unb(c, i, c.dy[0]!)),
  Neg: (c) => [o.neg(c.dy[0]!)],
  Abs: (c) => [o.mul(c.dy[0]!, o.sign(c.x[0]!))],
  Reciprocal: (c) => [o.neg(o.mul(c.dy[0]!, o.mul(c.y[0], c.y[0])))],
  Sqrt: (c) => [o.div(o.mul(c.dy[0]!, 0.5), c.y[0])],
  Exp: (c) => [o.mul(c.dy[0]!, c.y[0])],
  Log: (c) => [o.div(c.dy[0]!, c.x[0]!)],
  Sin: (c) => [o.mul(c.dy[0]!, o.cos(c.x[0]!))],
  Cos: (c) => [o.neg(o.mul(c.dy[0]!, o.sin(c.x[0]!)))],
  Erf: (c) => {
    const x = c.x[0]!;
    return [o.mul(c.dy[0]!, o.mul(o.exp(o.neg(o.mul(x, x))), 2 / Math.sqrt(Math.PI)))];
  },
  Identity: (c) => [c.dy[0]],
  Cast: (c) => [isFloat(c.x[0]!.dtype) ? o.cast(c.dy[0]!, c.x[0]!.dtype) : null],
  Min: (c) => minMax(c, o.lessOrEqual),
  Max: (c) => minMax(c, o.greaterOrEqual),

  // --- activations
  Relu: (c) => [masked(c.dy[0]!, o.greater(c.y[0], 0))],
  LeakyRelu: (c) => {
    const dy = c.dy[0]!;
    return [o.where(o.greater(c.x[0]!, 0), dy, o.mul(dy, floatAttr(c.node, 'alpha', 0.01)))];
  },
  Sigmoid: (c) => {
    const y = c.y[0];
    return [o.mul(c.dy[0]!, o.mul(y, o.sub(1, y)))];
  },
  Tanh: (c) => {
    const y = c.y[0];
    return [o.mul(c.dy[0]!, o.sub(1, o.mul(y, y)))];
  },
  Softmax: (c) => {
    const y = c.y[0];
    const dy = c.dy[0]!;
    const axis = intAttr(c.node, 'axis', -1);
    // dx = y ⊙ (dy − Σ dy ⊙ y). In attention (softmax(s) @ v and nothing else reads it),
    // Σ_j dy·y = Σ_d dctx·ctx (FlashAttention's trick): the row sums come from the small [.., T, d]
    // output instead of another pass over the T×T weights.
    const users = c.consumers(y);
    const last = axis === -1 || axis === y.rank - 1;
    if (last && users.length === 1 && users[0].node.op === 'MatMul' && users[0].index === 0) {
      const out = users[0].node.outputs[0];
      const dOut = c.gradOf(out);
      if (dOut) return [o.mul(y, o.sub(dy, o.reduceSum(o.mul(dOut, out), -1, true)))];
    }
    const dyy = o.mul(dy, y);
    return [o.sub(dyy, o.mul(y, o.reduceSum(dyy, axis, true)))];
  },
  LogSoftmax: (c) => {
    const axis = intAttr(c.node, 'axis', -1);
    const dy = c.dy[0]!;
    return [o.sub(dy, o.mul(o.exp(c.y[0]), o.reduceSum(dy, axis, true)))];
  },

  // --- selection
  Where: (c) => {
    const [cond] = c.x as Tensor[];
    const dy = c.dy[0]!;
    return [
      null,
      c.needs[1] ? unb(c, 1, o.where(cond, dy, 0)) : null,
      c.needs[2] ? unb(c, 2, o.where(cond, 0, dy)) : null,
    ];
  },
  Clip: (c) => {
    if (c.needs[1] || c.needs[2]) fail(c.node, 'gradient w.r.t. the bounds is not supported');
    const [x, lo, hi] = c.x;
    let mask: Tensor | null = null;
    if (lo) mask = o.greaterOrEqual(x!, lo);
    if (hi) mask = mask ? o.logicalAnd(mask, o.lessOrEqual(x!, hi)) : o.lessOrEqual(x!, hi);
    return [mask ? masked(c.dy[0]!, mask) : c.dy[0]];
  },

  // --- linear algebra
  MatMul: (c) => {
    const [a, b] = c.x as Tensor[];
    const dy = c.dy[0]!;
    let da: Tensor | null = null;
    let db: Tensor | null = null;
    if (c.needs[0]) da = unbroadcast(o.matmul(dy, mT(b)), a);
    if (c.needs[1]) {
      if (b.rank === 2 && a.rank > 2) {
        // Shared weight: fold the batch dims into one long contraction (one GEMM, no reduction).
        const k = a.shape[a.rank - 1];
        const m = dy.shape[dy.rank - 1];
        db = o.matmul(mT(o.reshape(a, [-1, k])), o.reshape(dy, [-1, m]));
      } else db = unbroadcast(o.matmul(mT(a), dy), b);
    }
    return [da, db];
  },
  Gemm: (c) => {
    const [a, b, cc] = c.x;
    const dy = c.dy[0]!;
    const alpha = floatAttr(c.node, 'alpha', 1);
    const beta = floatAttr(c.node, 'beta', 1);
    const tA = intAttr(c.node, 'transA', 0) === 1;
    const tB = intAttr(c.node, 'transB', 0) === 1;
    const da = !c.needs[0]
      ? null
      : tA
        ? o.gemm(b!, dy, null, { alpha, transA: tB, transB: true })
        : o.gemm(dy, b!, null, { alpha, transB: !tB });
    const db = !c.needs[1]
      ? null
      : tB
        ? o.gemm(dy, a!, null, { alpha, transA: true, transB: tA })
        : o.gemm(a!, dy, null, { alpha, transA: !tA });
    const dc = cc && c.needs[2] ? unbroadcast(beta === 1 ? dy : o.mul(dy, beta), cc) : null;
    return [da, db, dc];
  },

  // --- reductions and scans
  ReduceSum: (c) => {
    const x = c.x[0]!;
    const axes = reduceAxes(c);
    return [o.expandAs(keepDims(c.dy[0]!, axes, intAttr(c.node, 'keepdims', 1) === 1), x), null];
  },
  ReduceMean: (c) => {
    const x = c.x[0]!;
    const axes = reduceAxes(c);
    const dy = keepDims(c.dy[0]!, axes, intAttr(c.node, 'keepdims', 1) === 1);
    return [o.expandAs(o.div(dy, countOf(x, axes)), x)];
  },
  ReduceMax: (c) => extremumGrad(c),
  ReduceMin: (c) => extremumGrad(c),
  CumSum: (c) => {
    const axis = constValues(c.node, c.x[1], 'axis')[0];
    const exclusive = intAttr(c.node, 'exclusive', 0) === 1;
    const reverse = intAttr(c.node, 'reverse', 0) === 1;
    return [o.cumSum(c.dy[0]!, axis, { exclusive, reverse: !reverse }), null];
  },

  // --- shape and layout
  Reshape: (c) => [o.reshapeLike(c.dy[0]!, c.x[0]!), null],
  Flatten: (c) => [o.reshapeLike(c.dy[0]!, c.x[0]!)],
  Squeeze: (c) => [o.reshapeLike(c.dy[0]!, c.x[0]!), null],
  Unsqueeze: (c) => [o.reshapeLike(c.dy[0]!, c.x[0]!), null],
  Expand: (c) => [unbroadcast(c.dy[0]!, c.x[0]!), null],
  Transpose: (c) => {
    const perm = intsAttr(c.node, 'perm');
    const inv = new Array<number>(perm.length);
    perm.forEach((p, i) => (inv[p] = i));
    return [o.transpose(c.dy[0]!, inv)];
  },
  Concat: (c) => {
    const axis = intAttr(c.node, 'axis', 0);
    const sizes = c.x.map((t) =>
      staticDim(c.node, t!.shape[axis < 0 ? axis + t!.rank : axis], 'concat axis'),
    );
    const parts = o.split(c.dy[0]!, sizes, axis);
    return parts.map((p, i) => (c.needs[i] ? p : null));
  },
  Split: (c) => {
    const axis = intAttr(c.node, 'axis', 0);
    const parts = c.dy.map((d, i) => d ?? o.zerosLike(c.y[i]));
    return [o.concat(parts, axis), null];
  },
  Slice: (c) => [sliceGrad(c), null, null, null, null],
  Pad: (c) => {
    if (stringAttr(c.node, 'mode', 'constant') !== 'constant')
      fail(c.node, 'only constant padding has a gradient');
    const pads = constValues(c.node, c.x[1], 'pads');
    return [
      o.pad(
        c.dy[0]!,
        pads.map((p) => -p),
      ),
      null,
      null,
    ];
  },

  // --- indexing
  Gather: (c) => {
    const [data, idx] = c.x as Tensor[];
    const axis = intAttr(c.node, 'axis', 0);
    const dy = c.dy[0]!;
    const idx64 = o.unsqueeze(o.cast(idx, 'int64'), -1);
    if (axis === 0) return [o.scatterND(o.zerosLike(data), idx64, dy, 'add'), null];
    // Move the gathered axis to the front, scatter, move it back.
    const r = data.rank;
    const ni = idx.rank;
    const permD = [axis, ...Array.from({ length: r }, (_, i) => i).filter((i) => i !== axis)];
    const permDy = [
      ...Array.from({ length: ni }, (_, i) => axis + i),
      ...Array.from({ length: axis }, (_, i) => i),
      ...Array.from({ length: r - axis - 1 }, (_, i) => axis + ni + i),
    ];
    const zeros = o.zerosLike(o.transpose(data, permD));
    const scattered = o.scatterND(zeros, idx64, o.transpose(dy, permDy), 'add');
    const inv = new Array<number>(r);
    permD.forEach((p, i) => (inv[p] = i));
    return [o.transpose(scattered, inv), null];
  },
  GatherElements: (c) => {
    const [data, idx] = c.x as Tensor[];
    return [o.scatterElements(o.zerosLike(data), idx, c.dy[0]!, intAttr(c.node, 'axis', 0), 'add'), null];
  },
  GatherND: (c) => {
    if (intAttr(c.node, 'batch_dims', 0) !== 0) fail(c.node, 'batch_dims must be 0');
    const [data, idx] = c.x as Tensor[];
    return [o.scatterND(o.zerosLike(data), idx, c.dy[0]!, 'add'), null];
  },
  ScatterND: (c) => {
    const [, idx, upd] = c.x as Tensor[];
    const dy = c.dy[0]!;
    const add = stringAttr(c.node, 'reduction', 'none') === 'add';
    if (!add && stringAttr(c.node, 'reduction', 'none') !== 'none') fail(c.node, 'only none/add reductions');
    return [
      c.needs[0] ? (add ? dy : o.scatterND(dy, idx, o.zerosLike(upd))) : null,
      null,
      c.needs[2] ? o.gatherND(dy, idx) : null,
    ];
  },
  ScatterElements: (c) => {
    const [, idx, upd] = c.x as Tensor[];
    const dy = c.dy[0]!;
    const axis = intAttr(c.node, 'axis', 0);
    const add = stringAttr(c.node, 'reduction', 'none') === 'add';
    if (!add && stringAttr(c.node, 'reduction', 'none') !== 'none') fail(c.node, 'only none/add reductions');
    return [
      c.needs[0] ? (add ? dy : o.scatterElements(dy, idx, o.zerosLike(upd), axis)) : null,
      null,
      c.needs[2] ? o.gatherElements(dy, idx, axis) : null,
    ];
  },

  // --- normalisation
  LayerNormalization: (c) => {
    const [x, scale, bias] = c.x;
    const mean = o.cast(c.y[1], x!.dtype);
    const invStd = o.cast(c.y[2], x!.dtype);
    const dy = c.dy[0];
    if (!dy) return [];
    const axis0 = intAttr(c.node, 'axis', -1);
    const a = axis0 < 0 ? axis0 + x!.rank : axis0;
    const normAxes = Array.from({ length: x!.rank - a }, (_, i) => a + i);
    const outerAxes = Array.from({ length: a }, (_, i) => i);
    const xhat = o.mul(o.sub(x!, mean), invStd);
    let dx: Tensor | null = null;
    if (c.needs[0]) {
      const dxhat = o.mul(dy, scale!);
      const m1 = o.reduceMean(dxhat, normAxes, true);
      const m2 = o.reduceMean(o.mul(dxhat, xhat), normAxes, true);
      dx = o.mul(invStd, o.sub(o.sub(dxhat, m1), o.mul(xhat, m2)));
    }
    const dscale = c.needs[1] ? o.reduceSum(o.mul(dy, xhat), outerAxes) : null;
    const dbias = bias && c.needs[2] ? o.reduceSum(dy, outerAxes) : null;
    return [dx, dscale, dbias];
  },

  // --- convolution and pooling
  Conv: (c) => {
    const [x, w, b] = c.x as Tensor[];
    const dy = c.dy[0]!;
    const n = c.node;
    const geo = convGeo(n);
    const nsp = geo.kernel.length;
    let dx: Tensor | null = null;
    if (c.needs[0]) {
      const inSp = staticSpatial(n, x);
      const outSp = staticSpatial(n, dy);
      dx = convInputGradByConv(dy, w, geo, inSp, outSp);
    }
    if (c.needs[0] && !dx) {
      // Input gradient: the transposed convolution, with output padding restoring x's size.
      const inSp = staticSpatial(n, x);
      const outSp = staticSpatial(n, dy);
      const outPad = inSp.map(
        (d, j) =>
          d -
          ((outSp[j] - 1) * geo.strides[j] +
            geo.dilations[j] * (geo.kernel[j] - 1) +
            1 -
            geo.pads[j] -
            geo.pads[j + nsp]),
      );
      dx = o.convTranspose(dy, w, null, {
        stride: geo.strides,
        padding: geo.pads,
        dilation: geo.dilations,
        groups: geo.groups,
        outputPadding: outPad,
      });
    }
    const dw = c.needs[1] ? convWeightGrad(n, x, dy, geo, w.shape) : null;
    const db = b && c.needs[2] ? o.reduceSum(dy, [0, ...Array.from({ length: nsp }, (_, j) => j + 2)]) : null;
    return [dx, dw, db];
  },
  ConvTranspose: (c) => {
    const [x, w, b] = c.x as Tensor[];
    const dy = c.dy[0]!;
    const n = c.node;
    const geo = convGeo(n);
    const nsp = geo.kernel.length;
    // The adjoint of a transposed convolution is the convolution with the same geometry.
    const dx = c.needs[0]
      ? o.conv(dy, w, null, {
          stride: geo.strides,
          padding: geo.pads,
          dilation: geo.dilations,
          groups: geo.groups,
        })
      : null;
    let dw: Tensor | null = null;
    if (c.needs[1]) {
      // dW[c, k, i] = Σ x[n, c, p] · dy[n, k, p·s − pad + i·d]: im2col of dy over x's positions.
      const inSp = staticSpatial(n, x);
      const G = geo.groups;
      const C = staticDim(n, x.shape[1], 'channel count');
      const K = staticDim(n, dy.shape[1], 'channel count');
      const kk = geo.kernel.reduce((a, v) => a * v, 1);
      const P = inSp.reduce((a, v) => a * v, 1);
      // Positions the output crop (end pads) removed get zero gradient: im2col pads them back with zeros.
      const cols = im2col(dy, geo.kernel, geo.strides, geo.dilations, geo.pads.slice(0, nsp), inSp); // [N, K·kk, P]
      const colsG = o.reshape(cols, [0, G, (K / G) * kk, P]);
      const xG = o.reshape(x, [0, G, C / G, P]);
      dw = o.reshape(patchProduct(xG, colsG), w.shape as number[]);
    }
    const db = b && c.needs[2] ? o.reduceSum(dy, [0, ...Array.from({ length: nsp }, (_, j) => j + 2)]) : null;
    return [dx, dw, db];
  },
  MaxPool: (c) => {
    const x = c.x[0]!;
    const n = c.node;
    if (intAttr(n, 'ceil_mode', 0) !== 0 || intsAttr(n, 'dilations').some((d) => d !== 1)) {
      fail(n, 'gradient needs ceil_mode 0 and no dilation');
    }
    // Recompute with indices (flat positions in x), then scatter-add the gradient there.
    const indices =
      c.y.length > 1
        ? c.y[1]
        : o.maxPoolWithIndices(x, intsAttr(n, 'kernel_shape'), {
            stride: intsAttr(n, 'strides'),
            padding: intsAttr(n, 'pads'),
          })[1];
    const flatX = o.reshape(x, [-1]);
    const scattered = o.scatterElements(
      o.zerosLike(flatX),
      o.reshape(indices, [-1]),
      o.reshape(c.dy[0]!, [-1]),
      0,
      'add',
    );
    return [o.reshapeLike(scattered, x)];
  },
  AveragePool: (c) => {
    const x = c.x[0]!;
    const n = c.node;
    if (intAttr(n, 'ceil_mode', 0) !== 0) fail(n, 'gradient needs ceil_mode 0');
    const kernel = intsAttr(n, 'kernel_shape');
    const nsp = kernel.length;
    const strides = intsAttr(n, 'strides').length ? intsAttr(n, 'strides') : new Array(nsp).fill(1);
    const pads = intsAttr(n, 'pads').length ? intsAttr(n, 'pads') : new Array(2 * nsp).fill(0);
    const C = staticDim(n, x.shape[1], 'channel count');
    const inSp = staticSpatial(n, x);
    const outSp = staticSpatial(n, c.dy[0]!);
    const g = x.graph;
    const kk = kernel.reduce((a, b) => a * b, 1);
    let dy = c.dy[0]!;
    let scale = 1 / kk;
    if (intAttr(n, 'count_include_pad', 0) === 0 && pads.some((p) => p > 0)) {
      // Divisors vary near the border: count the real elements under each window.
      const ones = g.constant(new Array(inSp.reduce((a, b) => a * b, 1)).fill(1), [1, 1, ...inSp], x.dtype);
      const k1 = g.constant(new Array(kk).fill(1), [1, 1, ...kernel], x.dtype);
      dy = o.div(dy, o.conv(ones, k1, null, { stride: strides, padding: pads }));
      scale = 1;
    }
    const w = g.constant(new Array(C * kk).fill(scale), [C, 1, ...kernel], x.dtype);
    const outPad = inSp.map(
      (d, j) => d - ((outSp[j] - 1) * strides[j] + kernel[j] - pads[j] - pads[j + nsp]),
    );
    return [
      o.convTranspose(dy, w, null, { stride: strides, padding: pads, groups: C, outputPadding: outPad }),
    ];
  },
  Resize: (c) => {
    const x = c.x[0]!;
    const n = c.node;
    if (
      stringAttr(n, 'mode', 'nearest') !== 'nearest' ||
      stringAttr(n, 'coordinate_transformation_mode', '') !== 'asymmetric'
    ) {
      fail(n, 'only nearest/asymmetric upsampling by integer factors has a gradient');
    }
    const scales = constValues(n, c.x[2], 'scales');
    const inSp = staticSpatial(n, x);
    const f = scales.slice(2).map((s) => Math.round(s));
    if (f.some((v, j) => v !== scales[j + 2])) fail(n, 'scales must be integers');
    // Each input pixel was copied to an f1×f2… block: sum the block.
    const split: Dim[] = [0, 0];
    inSp.forEach((d, j) => split.push(d, f[j]));
    const blocks = o.reshape(c.dy[0]!, split);
    const axes = inSp.map((_, j) => 3 + 2 * j);
    return [o.reduceSum(blocks, axes), null, null, null];
  },
};

/**
 * For stride 1, the input gradient is a plain convolution of dy with the spatially flipped,
 * in/out-swapped kernel — onnxruntime's forward Conv is about twice as fast as its ConvTranspose.
 * Returns null where that does not apply (strides > 1, or pads larger than the kernel reach).
 */
function convInputGradByConv(
  dy: Tensor,
  w: Tensor,
  geo: ReturnType<typeof convGeo>,
  inSp: readonly number[],
  outSp: readonly number[],
): Tensor | null {
  if (geo.strides.some((s) => s !== 1)) return null;
  const reach = geo.kernel.map((k, j) => (k - 1) * geo.dilations[j]);
  const padB = reach.map((r, j) => r - geo.pads[j]);
  const padE = inSp.map((d, j) => d - outSp[j] + geo.pads[j]);
  if ([...padB, ...padE].some((p) => p < 0)) return null;
  const G = geo.groups;
  const [K, Cg] = w.shape as number[];
  // [K, C/G, k…] → [G, K/G, C/G, k…] → [G, C/G, K/G, k…] → [C, K/G, k…], then flip every spatial axis.
  let wt = o.reshape(w, [G, K / G, Cg, ...geo.kernel]);
  wt = o.transpose(wt, [0, 2, 1, ...geo.kernel.map((_, j) => j + 3)]);
  wt = o.reshape(wt, [G * Cg, K / G, ...geo.kernel]);
  const axes = geo.kernel.map((_, j) => j + 2);
  const flipped = o.slice(
    wt,
    axes.map(() => -1),
    axes.map(() => -Number.MAX_SAFE_INTEGER),
    axes,
    axes.map(() => -1),
  );
  return o.conv(dy, flipped, null, { dilation: geo.dilations, padding: [...padB, ...padE], groups: G });
}

function minMax(c: GradContext, pick: (a: Tensor, b: Tensor) => Tensor): (Tensor | null)[] {
  if (c.x.length !== 2) fail(c.node, 'gradient only for two inputs');
  const [a, b] = c.x as Tensor[];
  const dy = c.dy[0]!;
  const mask = pick(a, b); // ties go to the first operand
  return [
    c.needs[0] ? unb(c, 0, o.where(mask, dy, 0)) : null,
    c.needs[1] ? unb(c, 1, o.where(mask, 0, dy)) : null,
  ];
}

function extremumGrad(c: GradContext): (Tensor | null)[] {
  const x = c.x[0]!;
  const axes = reduceAxes(c);
  const kept = intAttr(c.node, 'keepdims', 1) === 1;
  const y = keepDims(c.y[0], axes, kept);
  const dy = keepDims(c.dy[0]!, axes, kept);
  // Ties share the gradient equally.
  const mask = o.cast(o.equal(x, y), x.dtype);
  return [o.mul(o.div(mask, o.reduceSum(mask, axes, true)), dy)];
}

/** Gradient of Slice: the output gradient placed back at the sliced positions, zeros elsewhere. */
function sliceGrad(c: GradContext): Tensor {
  const n = c.node;
  const x = c.x[0]!;
  let d = c.dy[0]!;
  const starts = constValues(n, c.x[1], 'starts');
  const axes = c.x[3]
    ? constValues(n, c.x[3], 'axes').map((a) => (a < 0 ? a + x.rank : a))
    : starts.map((_, i) => i);
  const steps = c.x[4] ? constValues(n, c.x[4], 'steps') : starts.map(() => 1);
  const pads = new Array(2 * x.rank).fill(0);
  axes.forEach((a, k) => {
    const D = staticDim(n, x.shape[a], `size on sliced axis ${a}`);
    const L = staticDim(n, d.shape[a], `size on sliced axis ${a}`);
    if (L === 0) return;
    let step = steps[k];
    let s = starts[k] < 0 ? starts[k] + D : starts[k];
    s = step > 0 ? Math.min(Math.max(s, 0), D) : Math.min(Math.max(s, -1), D - 1);
    if (step < 0) {
      // Reverse so the positions increase: first picked position is s − (L−1)|step|.
      d = o.slice(d, [-1], [-Number.MAX_SAFE_INTEGER], [a], [-1]);
      step = -step;
      s = s - (L - 1) * step;
    }
    if (step > 1) {
      // Interleave step−1 zeros after each element: [.., L, 1, ..] → pad → [.., L·step, ..].
      const u = o.unsqueeze(d, a + 1);
      const p = new Array(2 * u.rank).fill(0);
      p[u.rank + a + 1] = step - 1;
      const shape: Dim[] = d.shape.map((v, i) => (i < a ? 0 : i === a ? L * step : v));
      d = o.reshape(o.pad(u, p), shape);
    }
    pads[a] = s;
    pads[a + x.rank] = D - s - L * step;
  });
  const res = pads.some((p) => p !== 0) ? o.pad(d, pads) : d;
  if (!isStaticShape(res.shape) || !isStaticShape(x.shape)) return o.reshapeLike(res, x);
  if (res.shape.some((v, i) => v !== x.shape[i])) fail(n, `internal: ${fmtShape(res.shape)} vs ${x}`);
  return res;
}
