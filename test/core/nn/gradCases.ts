// The gradient-check cases: one or more per op of the graph API. Each builds the op under test from
// parameter inputs; ops without float64 kernels in onnxruntime's CPU provider are checked in float32.
import type { Graph, Tensor } from '../../../core/nn/graph.ts';
import type { GradCheckInput } from '../../../core/nn/gradcheck.ts';
import * as o from '../../../core/nn/ops/index.ts';
import { ParamStore } from '../../../core/nn/params.ts';
import { multiHeadAttention } from '../../../core/nn/attention.ts';

export interface GradCase {
  name: string;
  inputs: Record<string, GradCheckInput>;
  fn: (g: Graph, x: Record<string, Tensor>) => Tensor;
  /** Why this case runs in float32 (no float64 kernel in onnxruntime CPU), if it does. */
  float32?: string;
}

const s = (...shape: number[]): GradCheckInput => ({ shape });
const pos = (...shape: number[]): GradCheckInput => ({ shape, low: 0.5, high: 2 });
const i64 = (g: Graph, values: number[], shape: number[]) =>
  g.constant(BigInt64Array.from(values.map(BigInt)), shape, 'int64');

export const GRAD_CASES: GradCase[] = [
  // arithmetic with broadcasting
  { name: 'Add (broadcast)', inputs: { a: s(2, 3, 4), b: s(3, 1) }, fn: (_, x) => o.add(x.a, x.b) },
  {
    name: 'Add (a bias: leading axes summed by ones @ dy)',
    inputs: { a: s(2, 3, 4), b: s(4) },
    fn: (_, x) => o.add(x.a, x.b),
  },
  { name: 'Sub (broadcast)', inputs: { a: s(4), b: s(2, 3, 4) }, fn: (_, x) => o.sub(x.a, x.b) },
  { name: 'Mul (broadcast)', inputs: { a: s(2, 3), b: s(2, 1) }, fn: (_, x) => o.mul(x.a, x.b) },
  { name: 'Div (broadcast)', inputs: { a: s(2, 3), b: pos(3) }, fn: (_, x) => o.div(x.a, x.b) },
  { name: 'Pow', inputs: { a: pos(2, 3), b: s(2, 3) }, fn: (_, x) => o.pow(x.a, x.b) },
  { name: 'Pow (scalar exponent)', inputs: { a: pos(5) }, fn: (_, x) => o.pow(x.a, 3) },
  { name: 'Neg', inputs: { a: s(2, 3) }, fn: (_, x) => o.neg(x.a) },
  {
    name: 'Sum (three operands, broadcast)',
    inputs: { a: s(2, 3), b: s(3), c: s(2, 1) },
    // No graph-API builder emits the variadic Sum (add() chains Add), so the node is made directly.
    fn: (g, x) => g.addNode('Sum', [x.a, x.b, x.c], [{ dtype: x.a.dtype, shape: [2, 3] }])[0],
  },
  { name: 'Min', inputs: { a: s(3, 4), b: s(4) }, fn: (_, x) => o.minimum(x.a, x.b) },
  { name: 'Max', inputs: { a: s(3, 4), b: s(3, 4) }, fn: (_, x) => o.maximum(x.a, x.b) },
  // activations and unary math
  { name: 'Relu', inputs: { a: s(3, 5) }, fn: (_, x) => o.relu(x.a) },
  { name: 'LeakyRelu', inputs: { a: s(3, 5) }, fn: (_, x) => o.leakyRelu(x.a, 0.2) },
  {
    name: 'Gelu (tanh form)',
    inputs: { a: { shape: [3, 5], low: -3, high: 3 } },
    fn: (_, x) => o.gelu(x.a, 'tanh'),
  },
  {
    name: 'Gelu (erf form)',
    inputs: { a: { shape: [3, 5], low: -3, high: 3 } },
    fn: (_, x) => o.gelu(x.a),
    float32: 'Erf has no float64 kernel',
  },
  { name: 'Erf', inputs: { a: s(7) }, fn: (_, x) => o.erf(x.a), float32: 'Erf has no float64 kernel' },
  { name: 'Sigmoid', inputs: { a: s(3, 5) }, fn: (_, x) => o.sigmoid(x.a) },
  { name: 'Tanh', inputs: { a: s(3, 5) }, fn: (_, x) => o.tanh(x.a) },
  { name: 'Exp', inputs: { a: s(3, 5) }, fn: (_, x) => o.exp(x.a) },
  { name: 'Log', inputs: { a: pos(3, 5) }, fn: (_, x) => o.log(x.a) },
  { name: 'Sqrt', inputs: { a: pos(3, 5) }, fn: (_, x) => o.sqrt(x.a) },
  { name: 'Reciprocal', inputs: { a: pos(4) }, fn: (_, x) => o.reciprocal(x.a) },
  { name: 'Abs', inputs: { a: s(3, 5) }, fn: (_, x) => o.abs(x.a) },
  { name: 'Sin/Cos', inputs: { a: s(6) }, fn: (_, x) => o.mul(o.sin(x.a), o.cos(x.a)) },
  { name: 'Softmax', inputs: { a: s(2, 3, 4) }, fn: (_, x) => o.softmax(x.a, 1) },
  {
    name: 'Softmax feeding a MatMul (attention: row sums from the output)',
    inputs: { s: s(2, 3, 4), v: s(2, 4, 5) },
    fn: (_, x) => o.matmul(o.softmax(x.s, -1), x.v),
  },
  {
    name: 'Multi-head attention with a causal mask',
    inputs: { x: s(2, 4, 8) },
    fn: (_, x) => {
      const ps = new ParamStore({ dtype: 'float64', seed: 3 });
      return multiHeadAttention(ps, 'attn', { dim: 8, heads: 2 })(x.x, { causal: true });
    },
  },
  { name: 'LogSoftmax', inputs: { a: s(3, 5) }, fn: (_, x) => o.logSoftmax(x.a, -1) },
  // linear algebra
  {
    name: 'MatMul (batched, shared weight)',
    inputs: { a: s(2, 3, 4), b: s(4, 5) },
    fn: (_, x) => o.matmul(x.a, x.b),
  },
  {
    name: 'MatMul (broadcast batch)',
    inputs: { a: s(2, 1, 3, 4), b: s(3, 4, 2) },
    fn: (_, x) => o.matmul(x.a, x.b),
  },
  {
    name: 'Gemm',
    inputs: { a: s(3, 4), b: s(5, 4), c: s(5) },
    fn: (_, x) => o.gemm(x.a, x.b, x.c, { transB: true, alpha: 0.7, beta: 1.3 }),
  },
  {
    name: 'Gemm (transA)',
    inputs: { a: s(4, 3), b: s(4, 2) },
    fn: (_, x) => o.gemm(x.a, x.b, null, { transA: true }),
  },
  // normalisation
  {
    name: 'LayerNormalization',
    inputs: { a: s(2, 3, 6), s: s(6), b: s(6) },
    fn: (_, x) => o.layerNormalization(x.a, x.s, x.b, -1),
    float32: 'LayerNormalization keeps float32 statistics (no float64 stash kernel)',
  },
  {
    name: 'GroupNorm',
    inputs: { a: s(2, 4, 3, 3), s: s(4), b: s(4) },
    fn: (_, x) => o.groupNormalization(x.a, 2, x.s, x.b),
  },
  // convolution and pooling
  {
    name: 'Conv (stride 2, pad 1, bias)',
    inputs: { x: s(2, 3, 7, 6), w: s(4, 3, 3, 3), b: s(4) },
    fn: (_, x) => o.conv(x.x, x.w, x.b, { stride: 2, padding: 1 }),
    float32: 'Conv has only a float32 kernel',
  },
  {
    name: "Conv ('same' 3×3, stride 1: input gradient as a flipped-kernel conv)",
    inputs: { x: s(2, 3, 5, 6), w: s(4, 3, 3, 3), b: s(4) },
    fn: (_, x) => o.conv(x.x, x.w, x.b, { padding: 'same' }),
    float32: 'Conv has only a float32 kernel',
  },
  {
    name: 'Conv (dilation 2, groups 2, asymmetric pads)',
    inputs: { x: s(1, 4, 7, 7), w: s(6, 2, 3, 2) },
    fn: (_, x) => o.conv(x.x, x.w, null, { dilation: 2, groups: 2, padding: [1, 0, 2, 1] }),
    float32: 'Conv has only a float32 kernel',
  },
  {
    name: 'Conv (stride 1, dilation [2, 1], groups 2, asymmetric pads: weight gradient as row × column im2cols)',
    inputs: { x: s(2, 4, 7, 6), w: s(4, 2, 3, 3) },
    fn: (_, x) => o.conv(x.x, x.w, null, { dilation: [2, 1], groups: 2, padding: [2, 0, 1, 2] }),
    float32: 'Conv has only a float32 kernel',
  },
  {
    name: 'Conv1d (stride 3)',
    inputs: { x: s(2, 2, 10), w: s(3, 2, 4) },
    fn: (_, x) => o.conv(x.x, x.w, null, { stride: 3 }),
    float32: 'Conv has only a float32 kernel',
  },
  {
    name: 'ConvTranspose (stride 2, kernel 2, bias)',
    inputs: { x: s(2, 3, 3, 4), w: s(3, 2, 2, 2), b: s(2) },
    fn: (_, x) => o.convTranspose(x.x, x.w, x.b, { stride: 2 }),
    float32: 'ConvTranspose has only a float32 kernel',
  },
  {
    name: 'ConvTranspose (stride 2, pad 1, output padding, groups 2, dilation 2)',
    inputs: { x: s(1, 4, 3, 3), w: s(4, 1, 3, 3) },
    fn: (_, x) =>
      o.convTranspose(x.x, x.w, null, { stride: 2, padding: 1, outputPadding: 1, groups: 2, dilation: 2 }),
    float32: 'ConvTranspose has only a float32 kernel',
  },
  {
    name: 'MaxPool (3×3 stride 2, pad 1)',
    inputs: { x: s(2, 2, 5, 6) },
    fn: (_, x) => o.maxPool(x.x, 3, { stride: 2, padding: 1 }),
  },
  {
    name: 'AveragePool (2×2)',
    inputs: { x: s(2, 3, 4, 6) },
    fn: (_, x) => o.averagePool(x.x, 2),
    float32: 'AveragePool has only a float32 kernel',
  },
  {
    name: 'AveragePool (3×3 stride 2, pad 1, excluding pads)',
    inputs: { x: s(1, 2, 5, 5) },
    fn: (_, x) => o.averagePool(x.x, 3, { stride: 2, padding: 1 }),
    float32: 'AveragePool has only a float32 kernel',
  },
  {
    name: 'AveragePool (counting pads)',
    inputs: { x: s(1, 2, 5, 5) },
    fn: (_, x) => o.averagePool(x.x, 3, { stride: 2, padding: 1, countIncludePad: true }),
    float32: 'AveragePool has only a float32 kernel',
  },
  {
    name: 'Resize (nearest ×2)',
    inputs: { x: s(2, 2, 3, 2) },
    fn: (_, x) => o.upsampleNearest(x.x, 2),
    float32: 'Resize has no float64 kernel',
  },
  // shape and layout
  { name: 'Reshape', inputs: { a: s(2, 3, 4) }, fn: (_, x) => o.mul(o.reshape(x.a, [4, -1]), 2) },
  { name: 'Flatten', inputs: { a: s(2, 3, 4) }, fn: (_, x) => o.flatten(x.a, 2) },
  { name: 'Transpose', inputs: { a: s(2, 3, 4) }, fn: (_, x) => o.transpose(x.a, [2, 0, 1]) },
  { name: 'Concat', inputs: { a: s(2, 3), b: s(2, 5) }, fn: (_, x) => o.concat([x.a, x.b, x.a], 1) },
  {
    name: 'Split (one output unused)',
    inputs: { a: s(6, 2) },
    fn: (_, x) => {
      const [p, , r] = o.split(x.a, [1, 2, 3], 0);
      return o.concat([p, o.mul(r, r)], 0);
    },
  },
  { name: 'Slice', inputs: { a: s(5, 6) }, fn: (_, x) => o.slice(x.a, [1, -4], [4, 100], [0, 1]) },
  {
    name: 'Slice (step 2)',
    inputs: { a: s(7, 6) },
    fn: (_, x) => o.slice(x.a, [1, 0], [7, 5], [0, 1], [2, 3]),
  },
  { name: 'Slice (step −2)', inputs: { a: s(4, 7) }, fn: (_, x) => o.slice(x.a, [-1], [0], [1], [-2]) },
  {
    name: 'Pad (constant)',
    inputs: { a: s(2, 3) },
    fn: (_, x) => o.mul(o.pad(x.a, [1, 0, 0, 2], 'constant', 0.5), 3),
  },
  { name: 'Pad (cropping)', inputs: { a: s(4, 5) }, fn: (_, x) => o.pad(x.a, [-1, 1, 0, -2]) },
  { name: 'Expand', inputs: { a: s(3, 1) }, fn: (_, x) => o.expand(x.a, [2, 3, 4]) },
  { name: 'Identity', inputs: { a: s(2, 3) }, fn: (_, x) => o.mul(o.identity(x.a), x.a) },
  { name: 'Squeeze/Unsqueeze', inputs: { a: s(3, 1, 2) }, fn: (_, x) => o.unsqueeze(o.squeeze(x.a, 1), 0) },
  // indexing
  {
    name: 'Gather (embedding, repeated ids)',
    inputs: { w: s(5, 3) },
    fn: (g, x) => o.gather(x.w, i64(g, [0, 4, 4, 2], [2, 2]), 0),
  },
  {
    // A flat table read at int32 indices, repeated, in a 3-D index array (the renderer's grid lookup).
    name: 'Gather (flat table, int32 indices)',
    inputs: { w: s(6) },
    fn: (g, x) => o.gather(x.w, g.constant(Int32Array.of(5, 0, 5, 2, 2, 2, 1, 5), [2, 2, 2], 'int32'), 0),
  },
  {
    name: 'Gather (axis 1)',
    inputs: { w: s(2, 5, 3) },
    fn: (g, x) => o.gather(x.w, i64(g, [4, 1, 1], [3]), 1),
  },
  {
    name: 'GatherElements',
    inputs: { a: s(3, 4) },
    fn: (g, x) => o.gatherElements(x.a, i64(g, [0, 3, 3, 1, 2, 2], [3, 2]), 1),
  },
  {
    name: 'GatherND',
    inputs: { a: s(3, 4, 2) },
    fn: (g, x) => o.gatherND(x.a, i64(g, [0, 1, 2, 3, 0, 1], [3, 2])),
  },
  {
    name: 'ScatterElements (scatterND add, repeated indices)',
    inputs: { d: s(4, 3), u: s(3, 3) },
    fn: (g, x) => o.scatterND(x.d, i64(g, [1, 3, 1], [3, 1]), x.u, 'add'),
  },
  {
    name: 'ScatterND (overwrite)',
    inputs: { d: s(4, 3), u: s(2, 3) },
    fn: (g, x) => o.scatterND(x.d, i64(g, [2, 0], [2, 1]), x.u),
  },
  {
    name: 'ScatterElements (add)',
    inputs: { d: s(2, 5), u: s(2, 3) },
    fn: (g, x) => o.scatterElements(x.d, i64(g, [0, 4, 0, 1, 1, 3], [2, 3]), x.u, 1, 'add'),
  },
  {
    name: 'OneHot (as a mask)',
    inputs: { a: s(4, 3) },
    fn: (g, x) => o.mul(o.oneHot(i64(g, [2, 0, 1, 2], [4]), 3), x.a),
    float32: 'OneHot has no float64-valued kernel',
  },
  // reductions and scans
  {
    // The product's gradient is formed before the sum's expand (gradHelpers.mulGrad), operands broadcast.
    name: 'ReduceSum of a product (weights broadcast)',
    inputs: { a: s(2, 3, 4), b: s(3, 4) },
    fn: (_, x) => o.reduceSum(o.mul(x.a, x.b), [2]),
  },
  { name: 'ReduceSum', inputs: { a: s(2, 3, 4) }, fn: (_, x) => o.reduceSum(x.a, [0, 2]) },
  { name: 'ReduceMean (keepdims)', inputs: { a: s(2, 3, 4) }, fn: (_, x) => o.reduceMean(x.a, 1, true) },
  { name: 'ReduceMax', inputs: { a: s(3, 5) }, fn: (_, x) => o.reduceMax(x.a, -1) },
  { name: 'ReduceMin (keepdims)', inputs: { a: s(3, 4, 2) }, fn: (_, x) => o.reduceMin(x.a, [0, 2], true) },
  { name: 'CumSum', inputs: { a: s(2, 5) }, fn: (_, x) => o.cumSum(x.a, 1) },
  {
    name: 'CumSum (exclusive, reverse)',
    inputs: { a: s(2, 5) },
    fn: (_, x) => o.cumSum(x.a, 1, { exclusive: true, reverse: true }),
  },
  {
    name: 'ArgMax selects, Gather differentiates',
    inputs: { a: s(4, 5), w: s(5, 2) },
    fn: (_, x) => o.gather(x.w, o.argMax(x.a, 1), 0),
  },
  {
    name: 'ArgMin as a constant index',
    inputs: { a: s(3, 4) },
    fn: (_, x) => o.mul(x.a, o.cast(o.argMin(x.a, 1, true), 'float64')),
  },
  // selection and casts
  {
    name: 'Where',
    inputs: { a: s(3, 4), b: s(4) },
    fn: (_, x) => o.where(o.greater(x.a, 0), x.a, o.mul(x.b, 2)),
  },
  { name: 'Clip', inputs: { a: { shape: [9], low: -2, high: 2 } }, fn: (_, x) => o.clip(x.a, -0.5, 1) },
  {
    name: 'Cast (float32 → float64 → float32)',
    inputs: { a: s(5) },
    fn: (_, x) => o.cast(o.mul(o.cast(x.a, 'float64'), 3), 'float32'),
    float32: 'tests the cast itself',
  },
];
