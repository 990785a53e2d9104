// Shape and layout ops (ONNX opset 17): Reshape, Flatten, Transpose, Concat, Split, Slice, Pad,
// Expand, (Un)Squeeze, Shape, ConstantOfShape, Identity, plus stop-gradient and straight-through.
import { attr, type AttrValue, type Tensor } from '../graph.ts';
import { allocArray, type DType } from '../dtype.ts';
import {
  broadcastShapes,
  dimsCompatible,
  fmtShape,
  isStaticShape,
  normAxis,
  numel,
  productDim,
  ShapeError,
  unknownDim,
  type Dim,
  type Shape,
} from '../shape.ts';
import { add, sub } from './elementwise.ts';

/** Shape(x)[start:end] as an int64 1-D tensor. */
export function shapeOf(x: Tensor, start?: number, end?: number): Tensor {
  const attrs: Record<string, AttrValue> = {};
  if (start !== undefined) attrs.start = attr.int(start);
  if (end !== undefined) attrs.end = attr.int(end);
  const s = start === undefined ? 0 : start < 0 ? start + x.rank : start;
  const e = end === undefined ? x.rank : end < 0 ? end + x.rank : end;
  return x.graph.addNode('Shape', [x], [{ dtype: 'int64', shape: [Math.max(0, e - s)] }], attrs)[0];
}

/**
 * An int64 shape tensor for `dims`: numbers and ONNX specials (0 = copy, -1 = infer) are constants;
 * a symbol is read at run time from the dimension of `source` that carries it.
 */
function shapeTensor(op: string, dims: readonly Dim[], source: Tensor): Tensor {
  const g = source.graph;
  if (dims.every((d) => typeof d === 'number')) return g.int64s(dims as number[]);
  const pieces: Tensor[] = [];
  let run: number[] = [];
  dims.forEach((d) => {
    if (typeof d === 'number') {
      run.push(d);
      return;
    }
    const j = source.shape.indexOf(d);
    if (j < 0) throw new ShapeError(`${op}: symbol '${d}' is not a dimension of ${source}`);
    if (run.length) pieces.push(g.int64s(run));
    run = [];
    pieces.push(shapeOf(source, j, j + 1));
  });
  if (run.length) pieces.push(g.int64s(run));
  return pieces.length === 1 ? pieces[0] : concat(pieces, 0);
}

/** Output shape of a Reshape to `target` (with 0/-1 specials), checking element counts. */
function reshapeShape(op: string, input: Shape, target: readonly Dim[]): Dim[] {
  const out: Dim[] = target.map((d, i) => {
    if (d === 0) {
      if (i >= input.length)
        throw new ShapeError(`${op}: 0 at position ${i} but input has rank ${input.length}`);
      return input[i];
    }
    return d;
  });
  const inferAt = out.indexOf(-1);
  if (out.filter((d) => d === -1).length > 1)
    throw new ShapeError(`${op}: more than one -1 in ${fmtShape(target)}`);
  // Cancel symbols and numbers between input and target to resolve -1 (and check counts).
  const syms = input.filter((d): d is string => typeof d === 'string');
  let inNum = 1;
  for (const d of input) if (typeof d === 'number') inNum *= d;
  let outNum = 1;
  const outSyms: string[] = [];
  for (const d of out) {
    if (d === -1) continue;
    if (typeof d === 'number') {
      if (d < 0) throw new ShapeError(`${op}: invalid dimension ${d} in ${fmtShape(target)}`);
      outNum *= d;
    } else outSyms.push(d);
  }
  const left = [...syms];
  let cancelled = true;
  for (const s of outSyms) {
    const k = left.indexOf(s);
    if (k < 0) cancelled = false;
    else left.splice(k, 1);
  }
  if (inferAt >= 0) {
    if (cancelled && left.length === 0 && outNum > 0 && inNum % outNum === 0) out[inferAt] = inNum / outNum;
    else if (cancelled && left.length === 1 && inNum === outNum) out[inferAt] = left[0];
    else out[inferAt] = unknownDim();
  } else if (cancelled && left.length === 0 && inNum !== outNum) {
    throw new ShapeError(
      `${op}: cannot reshape ${fmtShape(input)} (${inNum} elements) to ${fmtShape(target)}`,
    );
  }
  return out;
}

/**
 * Reshape to `dims`: numbers, -1 (infer one), 0 (copy the input's dim at that position) or a symbol
 * naming one of the input's dims (e.g. reshape(x, ['batch', -1])).
 */
export function reshape(x: Tensor, dims: readonly Dim[]): Tensor {
  const g = x.graph;
  const op = g.where('Reshape');
  // A symbol at the same position as in the input becomes 0 (copy), which needs no Shape op.
  const spec = dims.map((d, i) => (typeof d === 'string' && x.shape[i] === d ? 0 : d));
  const shape = reshapeShape(op, x.shape, spec);
  const target = shapeTensor(op, spec, x);
  return g.addNode('Reshape', [x, target], [{ dtype: x.dtype, shape }])[0];
}

/** Reshape to the run-time shape of `like` (used by gradients to undo reshapes). */
export function reshapeLike(x: Tensor, like: Tensor): Tensor {
  const g = x.graph;
  if (isStaticShape(like.shape)) return reshape(x, like.shape as number[]);
  return g.addNode('Reshape', [x, shapeOf(like)], [{ dtype: x.dtype, shape: like.shape }])[0];
}

/** Flatten to 2-D: dims before `axis` become the rows, the rest the columns. */
export function flatten(x: Tensor, axis = 1): Tensor {
  const g = x.graph;
  const a = axis < 0 ? axis + x.rank : axis;
  if (a < 0 || a > x.rank) throw new ShapeError(`${g.where('Flatten')}: axis ${axis} out of range for ${x}`);
  const shape = [productDim(x.shape.slice(0, a)), productDim(x.shape.slice(a))];
  return g.addNode('Flatten', [x], [{ dtype: x.dtype, shape }], { axis: attr.int(a) })[0];
}

/** Permute axes (default: reverse them). */
export function transpose(x: Tensor, perm?: readonly number[]): Tensor {
  const g = x.graph;
  const p = perm ?? x.shape.map((_, i) => x.rank - 1 - i);
  const sorted = [...p].sort((a, b) => a - b);
  if (p.length !== x.rank || !sorted.every((v, i) => v === i)) {
    throw new ShapeError(`${g.where('Transpose')}: perm [${p.join(',')}] is not a permutation for ${x}`);
  }
  return g.addNode('Transpose', [x], [{ dtype: x.dtype, shape: p.map((i) => x.shape[i]) }], {
    perm: attr.ints(p),
  })[0];
}

/** Concatenate along `axis`; other dims must agree. */
export function concat(xs: readonly Tensor[], axis: number): Tensor {
  if (xs.length === 0) throw new ShapeError('Concat: no inputs');
  const g = xs[0].graph;
  const op = g.where('Concat');
  const rank = xs[0].rank;
  const a = normAxis(op, axis, rank);
  let total: Dim = 0;
  for (const x of xs) {
    if (x.rank !== rank || x.dtype !== xs[0].dtype) {
      throw new ShapeError(`${op}: inputs differ in rank or dtype: ${xs.map(String).join(', ')}`);
    }
    x.shape.forEach((d, i) => {
      if (i !== a && !dimsCompatible(d, xs[0].shape[i])) {
        throw new ShapeError(
          `${op}: dimension ${i} differs: ${xs.map((t) => fmtShape(t.shape)).join(' vs ')}`,
        );
      }
    });
    const d = x.shape[a];
    total = typeof total === 'number' && typeof d === 'number' ? total + d : unknownDim();
  }
  const shape = xs[0].shape.map((d, i) => (i === a ? total : d));
  return g.addNode('Concat', xs, [{ dtype: xs[0].dtype, shape }], { axis: attr.int(a) })[0];
}

/** Split along `axis` into pieces of the given sizes. */
export function split(x: Tensor, sizes: readonly number[], axis: number): Tensor[] {
  const g = x.graph;
  const op = g.where('Split');
  const a = normAxis(op, axis, x.rank);
  const d = x.shape[a];
  const sum = sizes.reduce((s, v) => s + v, 0);
  if (typeof d === 'number' && d !== sum) {
    throw new ShapeError(`${op}: sizes [${sizes.join(',')}] sum to ${sum}, axis ${a} of ${x} has ${d}`);
  }
  const outs = sizes.map((s) => ({ dtype: x.dtype, shape: x.shape.map((e, i) => (i === a ? s : e)) }));
  return g.addNode('Split', [x, g.int64s(sizes)], outs, { axis: attr.int(a) });
}

function sliceDim(d: Dim, start: number, end: number, step: number): Dim {
  if (typeof d !== 'number') {
    // Whole-axis slices keep the symbol; anything else is decided at run time.
    return step === 1 && start === 0 && end >= Number.MAX_SAFE_INTEGER ? d : unknownDim();
  }
  const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
  let s = start < 0 ? start + d : start;
  let e = end < 0 ? end + d : end;
  if (step > 0) {
    s = clamp(s, 0, d);
    e = clamp(e, 0, d);
    return Math.max(0, Math.ceil((e - s) / step));
  }
  s = clamp(s, -1, d - 1);
  e = clamp(e, -1, d - 1);
  return Math.max(0, Math.ceil((s - e) / -step));
}

/** The end index meaning "to the end of the axis". */
export const END = Number.MAX_SAFE_INTEGER;

/** Slice x[starts:ends:steps] on `axes` (default 0..n-1), numpy semantics with clamping. */
export function slice(
  x: Tensor,
  starts: readonly number[],
  ends: readonly number[],
  axes?: readonly number[],
  steps?: readonly number[],
): Tensor {
  const g = x.graph;
  const op = g.where('Slice');
  const ax = (axes ?? starts.map((_, i) => i)).map((a) => normAxis(op, a, x.rank));
  const st = steps ?? starts.map(() => 1);
  if (ends.length !== starts.length || ax.length !== starts.length || st.length !== starts.length) {
    throw new ShapeError(`${op}: starts, ends, axes and steps must have the same length`);
  }
  if (st.some((s) => s === 0)) throw new ShapeError(`${op}: step 0`);
  const shape = [...x.shape];
  ax.forEach((a, k) => {
    shape[a] = sliceDim(x.shape[a], starts[k], ends[k], st[k]);
  });
  const inputs = [x, g.int64s(starts), g.int64s(ends), g.int64s(ax), g.int64s(st)];
  return g.addNode('Slice', inputs, [{ dtype: x.dtype, shape }])[0];
}

export type PadMode = 'constant' | 'reflect' | 'edge';

/** Pad with `pads` = [begin_0, …, begin_n-1, end_0, …, end_n-1] (negative values crop). */
export function pad(x: Tensor, pads: readonly number[], mode: PadMode = 'constant', value = 0): Tensor {
  const g = x.graph;
  const op = g.where('Pad');
  if (pads.length !== 2 * x.rank)
    throw new ShapeError(`${op}: need ${2 * x.rank} pads for ${x}, got ${pads.length}`);
  const shape = x.shape.map((d, i) =>
    typeof d === 'number'
      ? d + pads[i] + pads[i + x.rank]
      : pads[i] === 0 && pads[i + x.rank] === 0
        ? d
        : unknownDim(),
  );
  if (shape.some((d) => typeof d === 'number' && d < 0))
    throw new ShapeError(`${op}: pads crop ${x} below zero`);
  const inputs = [x, g.int64s(pads), mode === 'constant' ? g.scalar(value, x.dtype) : null];
  return g.addNode('Pad', inputs, [{ dtype: x.dtype, shape }], { mode: attr.string(mode) })[0];
}

/** Broadcast x to `dims` (numbers or symbols of x, numpy rules). */
export function expand(x: Tensor, dims: readonly Dim[]): Tensor {
  const g = x.graph;
  const op = g.where('Expand');
  const shape = broadcastShapes(op, [x.shape, dims]);
  return g.addNode('Expand', [x, shapeTensor(op, dims, x)], [{ dtype: x.dtype, shape }])[0];
}

/** Broadcast x to the run-time shape of `like`. */
export function expandAs(x: Tensor, like: Tensor): Tensor {
  const g = x.graph;
  const op = g.where('Expand');
  const shape = broadcastShapes(op, [x.shape, like.shape]);
  const target = isStaticShape(like.shape) ? g.int64s(like.shape as number[]) : shapeOf(like);
  return g.addNode('Expand', [x, target], [{ dtype: x.dtype, shape }])[0];
}

/** Insert size-1 axes at `axes` (positions in the output). */
export function unsqueeze(x: Tensor, axes: number | readonly number[]): Tensor {
  const g = x.graph;
  const list = typeof axes === 'number' ? [axes] : axes;
  const rank = x.rank + list.length;
  const norm = list.map((a) => normAxis(g.where('Unsqueeze'), a, rank)).sort((a, b) => a - b);
  const shape: Dim[] = [];
  let k = 0;
  for (let i = 0; i < rank; i++) shape.push(norm.includes(i) ? 1 : x.shape[k++]);
  return g.addNode('Unsqueeze', [x, g.int64s(norm)], [{ dtype: x.dtype, shape }])[0];
}

/** Remove size-1 axes `axes`. */
export function squeeze(x: Tensor, axes: number | readonly number[]): Tensor {
  const g = x.graph;
  const op = g.where('Squeeze');
  const list = (typeof axes === 'number' ? [axes] : axes).map((a) => normAxis(op, a, x.rank));
  for (const a of list) {
    if (typeof x.shape[a] === 'number' && x.shape[a] !== 1) {
      throw new ShapeError(`${op}: axis ${a} of ${x} is not 1`);
    }
  }
  const shape = x.shape.filter((_, i) => !list.includes(i));
  return g.addNode('Squeeze', [x, g.int64s(list)], [{ dtype: x.dtype, shape }])[0];
}

/** A tensor filled with `value`, of run-time shape `shape` (int64 1-D) and static shape `dims`. */
export function constantOfShape(shape: Tensor, dims: Shape, value: number, dtype: DType): Tensor {
  const g = shape.graph;
  const v = allocArray(dtype, 1);
  if (v instanceof BigInt64Array) v[0] = BigInt(value);
  else v[0] = value;
  return g.addNode('ConstantOfShape', [shape], [{ dtype, shape: dims }], {
    value: attr.tensor({ dtype, shape: [1], data: v }),
  })[0];
}

/** A tensor of `value` with x's shape and dtype (computed at run time, not stored in the model). */
export function fullLike(x: Tensor, value: number, dtype: DType = x.dtype): Tensor {
  const g = x.graph;
  const target = isStaticShape(x.shape) ? g.int64s(x.shape as number[]) : shapeOf(x);
  return constantOfShape(target, x.shape, value, dtype);
}

export const zerosLike = (x: Tensor): Tensor => fullLike(x, 0);
export const onesLike = (x: Tensor): Tensor => fullLike(x, 1);

export function identity(x: Tensor): Tensor {
  return x.graph.addNode('Identity', [x], [{ dtype: x.dtype, shape: x.shape }])[0];
}

/** The same value, but no gradient flows back through it. */
export function stopGradient(x: Tensor): Tensor {
  return x.graph.addNode(
    'Identity',
    [x],
    [{ dtype: x.dtype, shape: x.shape }],
    {},
    { stopGradient: true },
  )[0];
}

/**
 * Straight-through estimator (Bengio et al. 2013; VQ-VAE, van den Oord et al. 2017): the value of
 * `forward` with the gradient of `surrogate`, i.e. surrogate + stopGradient(forward − surrogate).
 */
export function straightThrough(forward: Tensor, surrogate: Tensor): Tensor {
  return add(surrogate, stopGradient(sub(forward, surrogate)));
}

/** Elements of a static shape, or an error naming the op when it is symbolic. */
export function staticNumel(op: string, x: Tensor): number {
  const n = numel(x.shape);
  if (n === null) throw new ShapeError(`${op}: needs a static shape, got ${x}`);
  return n;
}
