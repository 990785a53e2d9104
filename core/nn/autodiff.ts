// Reverse-mode automatic differentiation at graph level: grad(loss, wrt) appends the backward
// graph (standard ONNX ops, rules in gradients.ts) and returns one gradient tensor per `wrt`.
import { isFloat } from './dtype.ts';
import type { Graph, Node, Tensor } from './graph.ts';
import { GRAD_RULES, NON_DIFFERENTIABLE } from './gradients.ts';
import { neededNodes } from './onnxModel.ts';
import { add, fullLike } from './ops/index.ts';
import { fmtShape, ShapeError, isStaticShape, sameShape } from './shape.ts';

export interface GradOptions {
  /** Upstream gradient of `loss` (default ones, i.e. the gradient of sum(loss)). */
  seed?: Tensor;
}

/** What a gradient rule sees: the forward node, its outputs' gradients, and which inputs need one. */
export interface GradContext {
  readonly graph: Graph;
  readonly node: Node;
  /** The node's inputs (null for omitted optional inputs). */
  readonly x: readonly (Tensor | null)[];
  /** The node's outputs. */
  readonly y: readonly Tensor[];
  /** Gradient of the loss w.r.t. each output (null where it does not reach the loss). */
  readonly dy: readonly (Tensor | null)[];
  /** needs[i]: is a gradient for input i wanted? Rules skip work for the others. */
  readonly needs: readonly boolean[];
  /** Nodes on the gradient path that read `t`, with the input position (for pattern-aware rules). */
  consumers(t: Tensor): readonly { node: Node; index: number }[];
  /** The final gradient of a tensor that later nodes produce (null if none reaches the loss). */
  gradOf(t: Tensor): Tensor | null;
}

/** A rule returns the gradient for each input (null/undefined where none is wanted or defined). */
export type GradRule = (ctx: GradContext) => readonly (Tensor | null | undefined)[];

/**
 * Append the backward graph of `loss` and return d(loss)/d(t) for each t in `wrt` (zeros when
 * the loss does not depend on t). Only nodes on a path from `wrt` to `loss` get backward nodes.
 */
export function grad(loss: Tensor, wrt: readonly Tensor[], opts: GradOptions = {}): Tensor[] {
  const g = loss.graph;
  if (!isFloat(loss.dtype)) throw new ShapeError(`grad: loss ${loss} must be float`);
  for (const t of wrt) {
    if (t.graph !== g) throw new ShapeError(`grad: ${t} belongs to another graph`);
    if (!isFloat(t.dtype)) throw new ShapeError(`grad: cannot differentiate w.r.t. non-float ${t}`);
  }
  const ancestors = neededNodes(g, [loss]);

  // Forward sweep: which tensors depend differentiably on some `wrt`.
  const live = new Set<Tensor>(wrt);
  const path: Node[] = [];
  for (const n of ancestors) {
    if (n.stopGradient || NON_DIFFERENTIABLE.has(n.op)) continue;
    if (!n.inputs.some((t) => t && live.has(t))) continue;
    path.push(n);
    for (const o of n.outputs) if (isFloat(o.dtype)) live.add(o);
  }

  // Backward sweep: accumulate contributions per tensor, summed when first read.
  const contribs = new Map<Tensor, Tensor[]>();
  const seed = opts.seed ?? g.scope('grad', () => fullLike(loss, 1));
  if (!sameShape(seed.shape, loss.shape) && isStaticShape(seed.shape) && isStaticShape(loss.shape)) {
    throw new ShapeError(`grad: seed ${seed} does not match loss ${loss}`);
  }
  contribs.set(loss, [seed]);
  const total = (t: Tensor): Tensor | null => {
    const list = contribs.get(t);
    if (!list || list.length === 0) return null;
    if (list.length > 1) {
      let s = list[0];
      for (let i = 1; i < list.length; i++) s = add(s, list[i]);
      contribs.set(t, [s]);
    }
    return contribs.get(t)![0];
  };

  const readers = new Map<Tensor, { node: Node; index: number }[]>();
  for (const n of path) {
    n.inputs.forEach((t, index) => {
      if (!t) return;
      const list = readers.get(t);
      if (list) list.push({ node: n, index });
      else readers.set(t, [{ node: n, index }]);
    });
  }
  const done = new Set<Tensor>();
  const consumers = (t: Tensor) => readers.get(t) ?? [];
  const gradOf = (t: Tensor) => (done.has(t) ? total(t) : null);

  for (let k = path.length - 1; k >= 0; k--) {
    const n = path[k];
    const dy = g.scope(`grad/${n.name}`, () => n.outputs.map(total));
    for (const o of n.outputs) done.add(o);
    if (dy.every((d) => d === null)) continue;
    const rule = GRAD_RULES[n.op];
    if (!rule) throw new ShapeError(`grad: no gradient rule for op ${n.op} (node ${n.name})`);
    const needs = n.inputs.map((t) => t !== null && live.has(t));
    const ctx: GradContext = { graph: g, node: n, x: n.inputs, y: n.outputs, dy, needs, consumers, gradOf };
    const dx = g.scope(`grad/${n.name}`, () => rule(ctx));
    n.inputs.forEach((t, i) => {
      const d = dx[i];
      if (!t || !needs[i] || !d) return;
      if (d.dtype !== t.dtype || d.rank !== t.rank || !d.shape.every((v, j) => shapeOk(v, t.shape[j]))) {
        throw new ShapeError(
          `grad: rule for ${n.op} (node ${n.name}) gave ${d.dtype}${fmtShape(d.shape)} for input ${i} ${t}`,
        );
      }
      const list = contribs.get(t);
      if (list) list.push(d);
      else contribs.set(t, [d]);
    });
  }
  return g.scope('grad', () => wrt.map((t) => total(t) ?? fullLike(t, 0)));
}

function shapeOk(a: number | string, b: number | string): boolean {
  return a === b || typeof a === 'string' || typeof b === 'string';
}
