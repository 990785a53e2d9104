// Matrix products: MatMul (numpy batched semantics, operands of rank ≥ 2) and Gemm
// (alpha·op(A)·op(B) + beta·C with optional transposes), ONNX opset 17.
import { attr, requireFloat, requireSameDType, type Tensor } from '../graph.ts';
import { broadcastShapes, dimsCompatible, fmtShape, ShapeError } from '../shape.ts';

/** a @ b with batch broadcasting; both operands must have rank ≥ 2 (reshape vectors first). */
export function matmul(a: Tensor, b: Tensor): Tensor {
  const g = a.graph;
  const op = g.where('MatMul');
  requireSameDType(op, [a, b]);
  requireFloat(op, a);
  if (a.rank < 2 || b.rank < 2) {
    throw new ShapeError(
      `${op}: operands must have rank ≥ 2, got ${fmtShape(a.shape)} @ ${fmtShape(b.shape)}`,
    );
  }
  const k1 = a.shape[a.rank - 1];
  const k2 = b.shape[b.rank - 2];
  if (!dimsCompatible(k1, k2)) {
    throw new ShapeError(`${op}: inner dimensions differ: ${fmtShape(a.shape)} @ ${fmtShape(b.shape)}`);
  }
  const batch = broadcastShapes(op, [a.shape.slice(0, -2), b.shape.slice(0, -2)]);
  const shape = [...batch, a.shape[a.rank - 2], b.shape[b.rank - 1]];
  return g.addNode('MatMul', [a, b], [{ dtype: a.dtype, shape }])[0];
}

export interface GemmOptions {
  alpha?: number;
  beta?: number;
  transA?: boolean;
  transB?: boolean;
}

/** Gemm: alpha·op(a)·op(b) + beta·c for 2-D a, b; c broadcasts to the result (may be omitted). */
export function gemm(a: Tensor, b: Tensor, c: Tensor | null = null, opts: GemmOptions = {}): Tensor {
  const g = a.graph;
  const op = g.where('Gemm');
  requireSameDType(op, c ? [a, b, c] : [a, b]);
  requireFloat(op, a);
  if (a.rank !== 2 || b.rank !== 2) {
    throw new ShapeError(`${op}: operands must be 2-D, got ${fmtShape(a.shape)} and ${fmtShape(b.shape)}`);
  }
  const [m, ka] = opts.transA ? [a.shape[1], a.shape[0]] : [a.shape[0], a.shape[1]];
  const [kb, n] = opts.transB ? [b.shape[1], b.shape[0]] : [b.shape[0], b.shape[1]];
  if (!dimsCompatible(ka, kb)) {
    throw new ShapeError(`${op}: inner dimensions differ: ${fmtShape(a.shape)} and ${fmtShape(b.shape)}`);
  }
  if (c) broadcastShapes(op, [[m, n], c.shape]);
  const attrs = {
    alpha: attr.float(opts.alpha ?? 1),
    beta: attr.float(opts.beta ?? 1),
    transA: attr.int(opts.transA ? 1 : 0),
    transB: attr.int(opts.transB ? 1 : 0),
  };
  return g.addNode('Gemm', c ? [a, b, c] : [a, b], [{ dtype: a.dtype, shape: [m, n] }], attrs)[0];
}
