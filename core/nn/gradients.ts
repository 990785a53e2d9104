// Every gradient rule of the engine, one entry per ONNX op (tinygrad's one-file derivative table): a rule
// maps a node's output gradients to its inputs'; heavier lowerings live in convGrad.ts and indexGrad.ts.
import type { GradContext, GradRule } from './autodiff.ts';
import {
  averagePoolGrad,
  convBiasGrad,
  convGeo,
  convInputGrad,
  convTransposeWeightGrad,
  convWeightGrad,
  maxPoolGrad,
  resizeGrad,
} from './convGrad.ts';
import { isFloat } from './dtype.ts';
import {
  constValues,
  fail,
  floatAttr,
  intAttr,
  intsAttr,
  masked,
  mulGrad,
  mT,
  staticDim,
  stringAttr,
  unbroadcast,
} from './gradHelpers.ts';
import type { Tensor } from './graph.ts';
import { gatherGrad, sliceGrad } from './indexGrad.ts';
import * as o from './ops/index.ts';
import { numel } from './shape.ts';

// ---------------------------------------------------------------------------------------------
// Helpers of the reduction rules

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
    return [c.needs[0] ? unb(c, 0, mulGrad(dy, b)) : null, c.needs[1] ? unb(c, 1, mulGrad(dy, a)) : null];
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
  Gather: (c) => [gatherGrad(c.x[0]!, c.x[1]!, intAttr(c.node, 'axis', 0), c.dy[0]!), null],
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

  // --- convolution and pooling (lowered in convGrad.ts)
  Conv: (c) => {
    const [x, w, b] = c.x as Tensor[];
    const dy = c.dy[0]!;
    const geo = convGeo(c.node);
    return [
      c.needs[0] ? convInputGrad(c.node, x, dy, w, geo) : null, // the transposed convolution
      c.needs[1] ? convWeightGrad(c.node, x, dy, geo, w.shape) : null, // x correlated with dy
      b && c.needs[2] ? convBiasGrad(dy, geo) : null,
    ];
  },
  ConvTranspose: (c) => {
    const [x, w, b] = c.x as Tensor[];
    const dy = c.dy[0]!;
    const geo = convGeo(c.node);
    const { strides: stride, pads: padding, dilations: dilation, groups } = geo;
    // The adjoint of a transposed convolution is the convolution with the same geometry.
    return [
      c.needs[0] ? o.conv(dy, w, null, { stride, padding, dilation, groups }) : null,
      c.needs[1] ? convTransposeWeightGrad(c.node, x, dy, geo, w.shape) : null,
      b && c.needs[2] ? convBiasGrad(dy, geo) : null,
    ];
  },
  MaxPool: (c) => [maxPoolGrad(c.node, c.x[0]!, c.y, c.dy[0]!)],
  AveragePool: (c) => [averagePoolGrad(c.node, c.x[0]!, c.dy[0]!)],
  Resize: (c) => [resizeGrad(c.node, c.x[0]!, c.x[2], c.dy[0]!), null, null, null],
};

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
  // The share dy / count is formed on the reduced shape, then spread by the mask: one full-size pass less.
  return [o.mul(mask, o.div(dy, o.reduceSum(mask, axes, true)))];
}
