// Element-wise ONNX ops (opset 17) with numpy broadcasting: arithmetic, activations, comparisons,
// logic, Where, Clip, Cast, plus GELU (erf form, written so onnxruntime fuses it) and its tanh form.
import { requireFloat, requireSameDType, type Tensor, type TensorLike, attr } from '../graph.ts';
import { broadcastShapes, ShapeError } from '../shape.ts';
import type { DType } from '../dtype.ts';

function graphOf(...xs: TensorLike[]): Tensor['graph'] {
  for (const x of xs) if (typeof x !== 'number') return x.graph;
  throw new ShapeError('an op needs at least one tensor operand');
}

function binary(op: string, a: TensorLike, b: TensorLike, outDType?: DType): Tensor {
  const g = graphOf(a, b);
  const ta = typeof a === 'number' ? g.scalar(a, (b as Tensor).dtype) : g.lift(a, a);
  const tb = g.lift(b, ta);
  const where = g.where(op);
  requireSameDType(where, [ta, tb]);
  const shape = broadcastShapes(where, [ta.shape, tb.shape]);
  return g.addNode(op, [ta, tb], [{ dtype: outDType ?? ta.dtype, shape }])[0];
}

function unary(op: string, x: Tensor, attrs = {}): Tensor {
  requireFloat(x.graph.where(op), x);
  return x.graph.addNode(op, [x], [{ dtype: x.dtype, shape: x.shape }], attrs)[0];
}

export const add = (a: TensorLike, b: TensorLike): Tensor => binary('Add', a, b);
export const sub = (a: TensorLike, b: TensorLike): Tensor => binary('Sub', a, b);
export const mul = (a: TensorLike, b: TensorLike): Tensor => binary('Mul', a, b);
export const div = (a: TensorLike, b: TensorLike): Tensor => binary('Div', a, b);
export const pow = (a: TensorLike, b: TensorLike): Tensor => binary('Pow', a, b);
/** Element-wise minimum of two tensors (ONNX Min with two inputs). */
export const minimum = (a: TensorLike, b: TensorLike): Tensor => binary('Min', a, b);
/** Element-wise maximum of two tensors (ONNX Max with two inputs). */
export const maximum = (a: TensorLike, b: TensorLike): Tensor => binary('Max', a, b);

export const equal = (a: TensorLike, b: TensorLike): Tensor => binary('Equal', a, b, 'bool');
export const greater = (a: TensorLike, b: TensorLike): Tensor => binary('Greater', a, b, 'bool');
export const greaterOrEqual = (a: TensorLike, b: TensorLike): Tensor =>
  binary('GreaterOrEqual', a, b, 'bool');
export const less = (a: TensorLike, b: TensorLike): Tensor => binary('Less', a, b, 'bool');
export const lessOrEqual = (a: TensorLike, b: TensorLike): Tensor => binary('LessOrEqual', a, b, 'bool');

function logical(op: string, a: Tensor, b?: Tensor): Tensor {
  const g = a.graph;
  const ins = b ? [a, b] : [a];
  for (const t of ins) if (t.dtype !== 'bool') throw new ShapeError(`${g.where(op)}: ${t.name} must be bool`);
  const shape = b ? broadcastShapes(g.where(op), [a.shape, b.shape]) : a.shape;
  return g.addNode(op, ins, [{ dtype: 'bool', shape }])[0];
}
export const logicalAnd = (a: Tensor, b: Tensor): Tensor => logical('And', a, b);
export const logicalOr = (a: Tensor, b: Tensor): Tensor => logical('Or', a, b);
export const logicalNot = (a: Tensor): Tensor => logical('Not', a);

export const neg = (x: Tensor): Tensor =>
  x.graph.addNode('Neg', [x], [{ dtype: x.dtype, shape: x.shape }])[0];
export const abs = (x: Tensor): Tensor =>
  x.graph.addNode('Abs', [x], [{ dtype: x.dtype, shape: x.shape }])[0];
export const sign = (x: Tensor): Tensor =>
  x.graph.addNode('Sign', [x], [{ dtype: x.dtype, shape: x.shape }])[0];
export const relu = (x: Tensor): Tensor => unary('Relu', x);
export const leakyRelu = (x: Tensor, alpha = 0.01): Tensor =>
  unary('LeakyRelu', x, { alpha: attr.float(alpha) });
export const sigmoid = (x: Tensor): Tensor => unary('Sigmoid', x);
export const tanh = (x: Tensor): Tensor => unary('Tanh', x);
export const exp = (x: Tensor): Tensor => unary('Exp', x);
export const log = (x: Tensor): Tensor => unary('Log', x);
export const sqrt = (x: Tensor): Tensor => unary('Sqrt', x);
export const reciprocal = (x: Tensor): Tensor => unary('Reciprocal', x);
export const erf = (x: Tensor): Tensor => unary('Erf', x);
export const sin = (x: Tensor): Tensor => unary('Sin', x);
export const cos = (x: Tensor): Tensor => unary('Cos', x);
/** Rounding ops have zero gradient almost everywhere; autodiff treats them as constants. */
export const floor = (x: Tensor): Tensor => unary('Floor', x);
export const round = (x: Tensor): Tensor => unary('Round', x);

/**
 * GELU, x·Φ(x) (Hendrycks & Gimpel 2016). The exact form is written as onnxruntime's GeluFusion
 * pattern (Div √2 → Erf → Add 1 → Mul x → Mul ½) so it runs as one fused kernel; `approximate:
 * 'tanh'` gives the tanh form (which also has float64 kernels for gradient checks).
 */
export function gelu(x: Tensor, approximate: 'none' | 'tanh' = 'none'): Tensor {
  requireFloat(x.graph.where('Gelu'), x);
  if (approximate === 'tanh') {
    const inner = mul(add(x, mul(pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI));
    return mul(mul(x, add(tanh(inner), 1)), 0.5);
  }
  return mul(mul(x, add(erf(div(x, Math.SQRT2)), 1)), 0.5);
}

/** Where(cond, a, b): a where cond is true, else b (broadcasting). */
export function where(cond: Tensor, a: TensorLike, b: TensorLike): Tensor {
  const g = cond.graph;
  const op = g.where('Where');
  if (cond.dtype !== 'bool')
    throw new ShapeError(`${op}: condition ${cond.name} must be bool, got ${cond.dtype}`);
  const ta = typeof a === 'number' ? g.scalar(a, typeof b === 'number' ? g.floatType : b.dtype) : a;
  const tb = g.lift(b, ta);
  requireSameDType(op, [ta, tb]);
  const shape = broadcastShapes(op, [cond.shape, ta.shape, tb.shape]);
  return g.addNode('Where', [cond, ta, tb], [{ dtype: ta.dtype, shape }])[0];
}

/** Clip(x, min, max); either bound may be omitted (null). Bounds are scalars. */
export function clip(x: Tensor, min: TensorLike | null, max: TensorLike | null): Tensor {
  const g = x.graph;
  const lo = min === null ? null : g.lift(min, x);
  const hi = max === null ? null : g.lift(max, x);
  for (const b of [lo, hi]) {
    if (b && b.rank !== 0) throw new ShapeError(`${g.where('Clip')}: bounds must be scalars, got ${b}`);
  }
  return g.addNode('Clip', [x, lo, hi], [{ dtype: x.dtype, shape: x.shape }])[0];
}

export function cast(x: Tensor, dtype: DType): Tensor {
  if (x.dtype === dtype) return x;
  return x.graph.addNode('Cast', [x], [{ dtype, shape: x.shape }], { to: attr.int(onnxCode(dtype)) })[0];
}

const ONNX_CODES: Record<DType, number> = { float32: 1, uint8: 2, int32: 6, int64: 7, bool: 9, float64: 11 };
function onnxCode(d: DType): number {
  return ONNX_CODES[d];
}
