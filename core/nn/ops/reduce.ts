// Reductions and scans (ONNX opset 17): ReduceSum (axes as input), ReduceMean/Max/Min (axes as
// attribute), ArgMax/ArgMin, CumSum, and the axis-wise Softmax / LogSoftmax.
import { attr, requireFloat, type Tensor } from '../graph.ts';
import { normAxis, ShapeError, type Dim } from '../shape.ts';

function reducedShape(x: Tensor, axes: readonly number[], keepDims: boolean): Dim[] {
  const out: Dim[] = [];
  x.shape.forEach((d, i) => {
    if (axes.includes(i)) {
      if (keepDims) out.push(1);
    } else out.push(d);
  });
  return out;
}

function normAxes(op: string, x: Tensor, axes?: number | readonly number[]): number[] {
  const list = axes === undefined ? x.shape.map((_, i) => i) : typeof axes === 'number' ? [axes] : [...axes];
  const norm = list.map((a) => normAxis(op, a, x.rank));
  if (new Set(norm).size !== norm.length) throw new ShapeError(`${op}: repeated axis in [${list.join(',')}]`);
  return norm.sort((a, b) => a - b);
}

/** Sum over `axes` (default all). */
export function reduceSum(x: Tensor, axes?: number | readonly number[], keepDims = false): Tensor {
  const g = x.graph;
  const ax = normAxes(g.where('ReduceSum'), x, axes);
  if (ax.length === 0) return x;
  return g.addNode(
    'ReduceSum',
    [x, g.int64s(ax)],
    [{ dtype: x.dtype, shape: reducedShape(x, ax, keepDims) }],
    {
      keepdims: attr.int(keepDims ? 1 : 0),
    },
  )[0];
}

function reduceAttr(
  op: string,
  x: Tensor,
  axes: number | readonly number[] | undefined,
  keepDims: boolean,
): Tensor {
  const g = x.graph;
  const ax = normAxes(g.where(op), x, axes);
  if (ax.length === 0) return x;
  return g.addNode(op, [x], [{ dtype: x.dtype, shape: reducedShape(x, ax, keepDims) }], {
    axes: attr.ints(ax),
    keepdims: attr.int(keepDims ? 1 : 0),
  })[0];
}

/** Mean over `axes` (default all). */
export const reduceMean = (x: Tensor, axes?: number | readonly number[], keepDims = false): Tensor =>
  reduceAttr('ReduceMean', x, axes, keepDims);
/** Maximum over `axes` (default all); the gradient is shared equally among tied maxima. */
export const reduceMax = (x: Tensor, axes?: number | readonly number[], keepDims = false): Tensor =>
  reduceAttr('ReduceMax', x, axes, keepDims);
/** Minimum over `axes` (default all). */
export const reduceMin = (x: Tensor, axes?: number | readonly number[], keepDims = false): Tensor =>
  reduceAttr('ReduceMin', x, axes, keepDims);

function argReduce(op: string, x: Tensor, axis: number, keepDims: boolean): Tensor {
  const g = x.graph;
  const a = normAxis(g.where(op), axis, x.rank);
  return g.addNode(op, [x], [{ dtype: 'int64', shape: reducedShape(x, [a], keepDims) }], {
    axis: attr.int(a),
    keepdims: attr.int(keepDims ? 1 : 0),
  })[0];
}
/** Index of the maximum along `axis` (int64, first occurrence; no gradient). */
export const argMax = (x: Tensor, axis = -1, keepDims = false): Tensor =>
  argReduce('ArgMax', x, axis, keepDims);
/** Index of the minimum along `axis` (int64, first occurrence; no gradient). */
export const argMin = (x: Tensor, axis = -1, keepDims = false): Tensor =>
  argReduce('ArgMin', x, axis, keepDims);

/** Cumulative sum along `axis`; `exclusive` shifts by one, `reverse` runs from the end. */
export function cumSum(
  x: Tensor,
  axis: number,
  opts: { exclusive?: boolean; reverse?: boolean } = {},
): Tensor {
  const g = x.graph;
  const a = normAxis(g.where('CumSum'), axis, x.rank);
  return g.addNode('CumSum', [x, g.scalar(a, 'int64')], [{ dtype: x.dtype, shape: x.shape }], {
    exclusive: attr.int(opts.exclusive ? 1 : 0),
    reverse: attr.int(opts.reverse ? 1 : 0),
  })[0];
}

/** Softmax along `axis` (default the last). */
export function softmax(x: Tensor, axis = -1): Tensor {
  const g = x.graph;
  requireFloat(g.where('Softmax'), x);
  const a = normAxis(g.where('Softmax'), axis, x.rank);
  return g.addNode('Softmax', [x], [{ dtype: x.dtype, shape: x.shape }], { axis: attr.int(a) })[0];
}

/** log(softmax(x)) along `axis`, computed stably. */
export function logSoftmax(x: Tensor, axis = -1): Tensor {
  const g = x.graph;
  requireFloat(g.where('LogSoftmax'), x);
  const a = normAxis(g.where('LogSoftmax'), axis, x.rank);
  return g.addNode('LogSoftmax', [x], [{ dtype: x.dtype, shape: x.shape }], { axis: attr.int(a) })[0];
}
