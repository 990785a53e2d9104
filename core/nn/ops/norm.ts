// Normalisation ops: LayerNormalization (ONNX opset 17 kernel; Ba et al. 2016) and GroupNorm
// (Wu & He 2018), the latter composed of reshapes and reductions so it differentiates by parts.
import { attr, requireFloat, requireSameDType, type Tensor } from '../graph.ts';
import { dimsCompatible, fmtShape, normAxis, ShapeError, type Dim } from '../shape.ts';
import { add, div, mul, sqrt, sub } from './elementwise.ts';
import { reduceMean } from './reduce.ts';
import { reshape, reshapeLike } from './shape.ts';

/**
 * Layer normalisation over the dims from `axis` to the end, then ·scale + bias (shaped like those
 * dims). Emits the Mean and InvStdDev outputs too, which the gradient reuses (the exporter drops them).
 */
export function layerNormalization(
  x: Tensor,
  scale: Tensor,
  bias: Tensor | null,
  axis = -1,
  epsilon = 1e-5,
): Tensor {
  const g = x.graph;
  const op = g.where('LayerNormalization');
  requireFloat(op, x);
  requireSameDType(op, bias ? [x, scale, bias] : [x, scale]);
  const a = normAxis(op, axis, x.rank);
  const normDims = x.shape.slice(a);
  for (const p of bias ? [scale, bias] : [scale]) {
    if (p.rank !== normDims.length || !p.shape.every((d, i) => dimsCompatible(d, normDims[i]))) {
      throw new ShapeError(`${op}: ${p} must have the normalised shape ${fmtShape(normDims)}`);
    }
  }
  const statShape: Dim[] = x.shape.map((d, i) => (i < a ? d : 1));
  const outs = g.addNode(
    'LayerNormalization',
    bias ? [x, scale, bias] : [x, scale],
    [
      { dtype: x.dtype, shape: x.shape },
      // Statistics are float32 (stash_type 1; onnxruntime has no double-stash kernel).
      { dtype: 'float32', shape: statShape },
      { dtype: 'float32', shape: statShape },
    ],
    { axis: attr.int(a), epsilon: attr.float(epsilon) },
  );
  return outs[0];
}

/**
 * Group normalisation of x [N, C, …]: statistics over each group of C/groups channels and all
 * spatial positions, then per-channel ·scale + bias ([C] each).
 */
export function groupNormalization(
  x: Tensor,
  groups: number,
  scale: Tensor,
  bias: Tensor,
  epsilon = 1e-5,
): Tensor {
  const g = x.graph;
  const op = g.where('GroupNorm');
  requireFloat(op, x);
  if (x.rank < 3) throw new ShapeError(`${op}: x must be [N,C,…], got ${x}`);
  const C = x.shape[1];
  if (typeof C !== 'number' || C % groups !== 0)
    throw new ShapeError(`${op}: channels ${C} not divisible by ${groups}`);
  for (const p of [scale, bias]) {
    if (p.rank !== 1 || p.shape[0] !== C) throw new ShapeError(`${op}: ${p} must be [${C}]`);
  }
  const xr = reshape(x, [x.shape[0], groups, -1]);
  const centred = sub(xr, reduceMean(xr, 2, true));
  const variance = reduceMean(mul(centred, centred), 2, true);
  const normed = reshapeLike(div(centred, sqrt(add(variance, epsilon))), x);
  const chan = [C, ...new Array(x.rank - 2).fill(1)];
  return add(mul(normed, reshape(scale, chan)), reshape(bias, chan));
}
