// Indexing ops (ONNX opset 17): Gather (embeddings), GatherElements, GatherND, ScatterND (its 'add'
// emitted as ScatterElements, which onnxruntime runs without races), ScatterElements, OneHot.
import { attr, requireSameDType, type Tensor } from '../graph.ts';
import { dimsCompatible, fmtShape, normAxis, ShapeError, type Dim } from '../shape.ts';
import { mul } from './elementwise.ts';
import { reduceSum } from './reduce.ts';
import { expandAs, reshape, reshapeLike } from './shape.ts';

function requireIndices(op: string, t: Tensor, allowInt32: boolean): void {
  if (!(t.dtype === 'int64' || (allowInt32 && t.dtype === 'int32'))) {
    throw new ShapeError(
      `${op}: indices ${t.name} must be int64${allowInt32 ? ' or int32' : ''}, got ${t.dtype}`,
    );
  }
}

/** data.take(indices, axis): output shape data[:axis] + indices + data[axis+1:]. */
export function gather(data: Tensor, indices: Tensor, axis = 0): Tensor {
  const g = data.graph;
  const op = g.where('Gather');
  requireIndices(op, indices, true);
  const a = normAxis(op, axis, data.rank);
  const shape = [...data.shape.slice(0, a), ...indices.shape, ...data.shape.slice(a + 1)];
  return g.addNode('Gather', [data, indices], [{ dtype: data.dtype, shape }], { axis: attr.int(a) })[0];
}

/** out[i][j][k] = data[index][j][k] along `axis` (indices and output share a shape). */
export function gatherElements(data: Tensor, indices: Tensor, axis: number): Tensor {
  const g = data.graph;
  const op = g.where('GatherElements');
  requireIndices(op, indices, true);
  const a = normAxis(op, axis, data.rank);
  if (indices.rank !== data.rank) throw new ShapeError(`${op}: ${indices} and ${data} differ in rank`);
  return g.addNode('GatherElements', [data, indices], [{ dtype: data.dtype, shape: indices.shape }], {
    axis: attr.int(a),
  })[0];
}

function gatherNDShape(op: string, data: Tensor, indices: Tensor): Dim[] {
  const k = indices.shape[indices.rank - 1];
  if (typeof k !== 'number' || k > data.rank || k < 1) {
    throw new ShapeError(`${op}: last dim of ${indices} must be a static size in 1..${data.rank}`);
  }
  return [...indices.shape.slice(0, -1), ...data.shape.slice(k)];
}

/** Gather slices addressed by the last axis of `indices` (int64, batch_dims 0). */
export function gatherND(data: Tensor, indices: Tensor): Tensor {
  const g = data.graph;
  const op = g.where('GatherND');
  requireIndices(op, indices, false);
  const shape = gatherNDShape(op, data, indices);
  return g.addNode('GatherND', [data, indices], [{ dtype: data.dtype, shape }])[0];
}

export type ScatterReduction = 'none' | 'add';

/** Copy of `data` with `updates` written (or added, reduction 'add') at the slices `indices` address. */
export function scatterND(
  data: Tensor,
  indices: Tensor,
  updates: Tensor,
  reduction: ScatterReduction = 'none',
): Tensor {
  const g = data.graph;
  const op = g.where('ScatterND');
  requireIndices(op, indices, false);
  requireSameDType(op, [data, updates]);
  const want = gatherNDShape(op, data, indices);
  if (want.length !== updates.rank || !want.every((d, i) => dimsCompatible(d, updates.shape[i]))) {
    throw new ShapeError(`${op}: updates ${fmtShape(updates.shape)} should be ${fmtShape(want)}`);
  }
  if (reduction === 'add') return scatterAddRows(data, indices, updates);
  return g.addNode('ScatterND', [data, indices, updates], [{ dtype: data.dtype, shape: data.shape }], {
    reduction: attr.string(reduction),
  })[0];
}

/**
 * ScatterND's 'add' as ScatterElements along the rows of `data`. onnxruntime's CPU ScatterND applies the
 * updates on several threads with no atomics, so repeated indices — the reason for an 'add' (pillar
 * pooling, an embedding's gradient) — lose updates at random; ScatterElements gives each output column to
 * one thread and adds in index order: the same sums on every run and every thread count. Indices of more
 * than one axis are folded into one row index (they must be non-negative, data's indexed dims static).
 */
function scatterAddRows(data: Tensor, indices: Tensor, updates: Tensor): Tensor {
  const g = data.graph;
  const k = indices.shape[indices.rank - 1] as number;
  const rest = data.shape.slice(k);
  let rowIndex = indices;
  let table = data;
  if (k > 1) {
    const dims = data.shape.slice(1, k);
    if (!dims.every((d): d is number => typeof d === 'number'))
      throw new ShapeError(
        `${g.where('ScatterND')}: indexed dims ${fmtShape(dims)} of ${data} must be static`,
      );
    const strides = dims.map((_, j) => dims.slice(j).reduce((a, b) => a * b, 1));
    rowIndex = reduceSum(mul(indices, g.int64s([...strides, 1])), [-1], true);
    table = reshape(data, [-1, ...rest]);
  }
  const flatUpdates = indices.rank === 2;
  const upd = flatUpdates ? updates : reshape(updates, [-1, ...rest]);
  const index = expandAs(reshape(rowIndex, [-1, ...rest.map(() => 1)]), upd);
  const out = scatterElements(table, index, upd, 0, 'add');
  return k > 1 ? reshapeLike(out, data) : out;
}

/** Copy of `data` with updates[i][j] written (or added) at data[indices[i][j]][j] along `axis`. */
export function scatterElements(
  data: Tensor,
  indices: Tensor,
  updates: Tensor,
  axis: number,
  reduction: ScatterReduction = 'none',
): Tensor {
  const g = data.graph;
  const op = g.where('ScatterElements');
  requireIndices(op, indices, true);
  requireSameDType(op, [data, updates]);
  const a = normAxis(op, axis, data.rank);
  if (indices.rank !== data.rank || updates.rank !== data.rank) {
    throw new ShapeError(`${op}: data, indices and updates must share a rank`);
  }
  if (!indices.shape.every((d, i) => dimsCompatible(d, updates.shape[i]))) {
    throw new ShapeError(
      `${op}: indices ${fmtShape(indices.shape)} and updates ${fmtShape(updates.shape)} differ`,
    );
  }
  return g.addNode('ScatterElements', [data, indices, updates], [{ dtype: data.dtype, shape: data.shape }], {
    axis: attr.int(a),
    reduction: attr.string(reduction),
  })[0];
}

/** One-hot encoding of integer `indices` with `depth` classes inserted at `axis` (default last). */
export function oneHot(
  indices: Tensor,
  depth: number,
  opts: { axis?: number; off?: number; on?: number } = {},
): Tensor {
  const g = indices.graph;
  const op = g.where('OneHot');
  requireIndices(op, indices, true);
  const rank = indices.rank + 1;
  const a = normAxis(op, opts.axis ?? -1, rank);
  const shape: Dim[] = [...indices.shape];
  shape.splice(a, 0, depth);
  const values = g.constant([opts.off ?? 0, opts.on ?? 1], [2]);
  return g.addNode('OneHot', [indices, g.scalar(depth, 'int64'), values], [{ dtype: g.floatType, shape }], {
    axis: attr.int(a),
  })[0];
}
