// The vocabulary gradient rules are written in: a node's attributes and constant inputs, static dims,
// summing broadcast axes back, masking and swapping the last two axes, with errors naming the node.
import type { Node, Tensor } from './graph.ts';
import * as o from './ops/index.ts';
import { broadcastShapes, isStaticShape, ShapeError, type Dim } from './shape.ts';
import { isFloat } from './dtype.ts';

export function intAttr(n: Node, name: string, dflt: number): number {
  const a = n.attrs[name];
  return a && a.kind === 'int' ? a.value : dflt;
}
export function intsAttr(n: Node, name: string): number[] {
  const a = n.attrs[name];
  return a && a.kind === 'ints' ? [...a.value] : [];
}
export function floatAttr(n: Node, name: string, dflt: number): number {
  const a = n.attrs[name];
  return a && a.kind === 'float' ? a.value : dflt;
}
export function stringAttr(n: Node, name: string, dflt: string): string {
  const a = n.attrs[name];
  return a && a.kind === 'string' ? a.value : dflt;
}

/** Values of a constant input (axes, pads, sizes, scales); rules need them at graph-build time. */
export function constValues(n: Node, t: Tensor | null, what: string): number[] {
  if (!t) return [];
  if (t.source.kind !== 'const')
    throw new ShapeError(`grad: ${n.op} (node ${n.name}) needs constant ${what}`);
  return Array.from(t.source.value.data as ArrayLike<number | bigint>, (v) => Number(v));
}

export function fail(n: Node, why: string): never {
  throw new ShapeError(`grad: ${n.op} (node ${n.name}): ${why}`);
}

export function staticSpatial(n: Node, t: Tensor): number[] {
  const s = t.shape.slice(2);
  if (!s.every((d): d is number => typeof d === 'number')) fail(n, `needs static spatial dims, got ${t}`);
  return s;
}

export function staticDim(n: Node, d: Dim, what: string): number {
  if (typeof d !== 'number') fail(n, `needs a static ${what}`);
  return d;
}

/** Sum `dy` over the axes along which `like` was broadcast, giving it like's shape. */
export function unbroadcast(dy: Tensor, like: Tensor): Tensor {
  const lead = dy.rank - like.rank;
  const axes: number[] = [];
  for (let i = 0; i < lead; i++) axes.push(i);
  const keep: number[] = [];
  like.shape.forEach((d, i) => {
    if (d === 1 && dy.shape[i + lead] !== 1) keep.push(i + lead);
  });
  if (!keep.length && axes.length && isFloat(dy.dtype) && isStaticShape(like.shape)) return sumRows(dy, like);
  let r = dy;
  if (keep.length) r = o.reduceSum(r, keep, true);
  if (axes.length) r = o.reduceSum(r, axes, false);
  // Symbolic dims may hide broadcasting that shape inference could not see.
  if (r.rank !== like.rank) return o.reshapeLike(r, like);
  return r;
}

/**
 * Σ over the leading axes of dy (a bias's gradient) as ones[1, rows] @ dy[rows, n]: onnxruntime's GEMM
 * reads the rows at memory speed, its ReduceSum over axis 0 at about a third of that.
 */
function sumRows(dy: Tensor, like: Tensor): Tensor {
  const n = (like.shape as number[]).reduce((a, b) => a * b, 1);
  const flat = o.reshape(dy, [-1, n]);
  const g = dy.graph;
  const onesShape = o.concat([g.int64s([1]), o.shapeOf(flat, 0, 1)], 0);
  const ones = o.constantOfShape(onesShape, [1, flat.shape[0]], 1, dy.dtype);
  return o.reshape(o.matmul(ones, flat), like.shape as number[]);
}

/**
 * `dy · other` where dy may be an Expand (the gradient of a sum broadcast back over what it summed):
 * multiplied before the expand when `other` broadcasts it to the same shape, the product is the
 * same values without the expanded copy (the renderer's Σ over 8 trilinear corners: [rays, samples, 8]).
 */
export function mulGrad(dy: Tensor, other: Tensor): Tensor {
  const s = dy.source;
  if (s.kind === 'node' && s.node.op === 'Expand') {
    const x = s.node.inputs[0]!;
    // Named dims are one size wherever they appear, so equal shapes (numbers or names) are equal at run time.
    const shape = broadcastShapes('Mul', [x.shape, other.shape]);
    if (shape.length === dy.rank && shape.every((d, i) => d === dy.shape[i])) return o.mul(x, other);
  }
  return o.mul(dy, other);
}

/**
 * dy where `mask` holds, else 0, as dy · float(mask): onnxruntime's Mul + Cast run about twice as
 * fast as its Where on large tensors (measured on ReLU gradients of [2, 32, 256, 256]).
 */
export function masked(dy: Tensor, mask: Tensor): Tensor {
  return o.mul(dy, o.cast(mask, dy.dtype));
}

/** Swap the last two axes. */
export function mT(x: Tensor): Tensor {
  const perm = x.shape.map((_, i) => i);
  [perm[x.rank - 2], perm[x.rank - 1]] = [perm[x.rank - 1], perm[x.rank - 2]];
  return o.transpose(x, perm);
}
