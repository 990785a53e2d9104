// Multi-head scaled dot-product attention (Vaswani et al. 2017) with boolean or causal masks, and
// the pre-norm transformer block (LayerNorm → attention → residual; LayerNorm → MLP → residual).
import type { Tensor } from './graph.ts';
import { activate, layerNorm, linear, type Activation } from './layers.ts';
import type { ParamStore, Parameter } from './params.ts';
import * as o from './ops/index.ts';
import { ShapeError } from './shape.ts';

export interface AttentionOptions {
  dim: number;
  heads: number;
  /** Width of the context for cross-attention (default: self-attention). */
  contextDim?: number;
  bias?: boolean;
}

export interface AttendOptions {
  /** Keys/values come from here (cross-attention); default x itself. */
  context?: Tensor;
  /** Boolean mask, true = may attend; broadcasts to [B, heads, Tq, Tk]. */
  mask?: Tensor;
  /** Each query position attends only to keys at or before it (needs static lengths). */
  causal?: boolean;
}

export interface AttentionLayer {
  (x: Tensor, opts?: AttendOptions): Tensor;
  readonly params: readonly Parameter[];
}

/** Large negative logit for masked positions (finite so fully masked rows stay NaN-free). */
const MASKED = -1e9;

/** Multi-head attention over [B, T, dim]; self-attention projects q, k, v with one Linear dim→3·dim. */
export function multiHeadAttention(ps: ParamStore, name: string, opts: AttentionOptions): AttentionLayer {
  const { dim, heads } = opts;
  if (dim % heads !== 0) throw new Error(`attention '${name}': dim ${dim} not divisible by ${heads} heads`);
  const dh = dim / heads;
  const cross = opts.contextDim !== undefined;
  const qkv = cross ? null : linear(ps, `${name}.qkv`, dim, 3 * dim, { bias: opts.bias });
  const q = cross ? linear(ps, `${name}.q`, dim, dim, { bias: opts.bias }) : null;
  const kv = cross ? linear(ps, `${name}.kv`, opts.contextDim!, 2 * dim, { bias: opts.bias }) : null;
  const out = linear(ps, `${name}.out`, dim, dim, { bias: opts.bias });
  const params = [...(qkv?.params ?? []), ...(q?.params ?? []), ...(kv?.params ?? []), ...out.params];

  const fn = (x: Tensor, a: AttendOptions = {}): Tensor =>
    x.graph.scope(name, () => {
      if (x.rank !== 3)
        throw new ShapeError(`${x.graph.where('Attention')}: x must be [B, T, ${dim}], got ${x}`);
      let qT: Tensor, kT: Tensor, vT: Tensor;
      if (qkv) {
        if (a.context)
          throw new ShapeError(`attention '${name}' is self-attention; create it with contextDim`);
        [qT, kT, vT] = o.split(qkv(x), [dim, dim, dim], -1);
      } else {
        const ctx = a.context ?? x;
        qT = q!(x);
        [kT, vT] = o.split(kv!(ctx), [dim, dim], -1);
      }
      // [B, T, D] → [B, H, T, dh]; keys straight to [B, H, dh, T] for the score product.
      const heads4 = (t: Tensor) => o.reshape(t, [0, 0, heads, dh]);
      const qh = o.mul(o.transpose(heads4(qT), [0, 2, 1, 3]), 1 / Math.sqrt(dh));
      const kh = o.transpose(heads4(kT), [0, 2, 3, 1]);
      const vh = o.transpose(heads4(vT), [0, 2, 1, 3]);
      let scores = o.matmul(qh, kh); // [B, H, Tq, Tk]
      if (a.causal) {
        const tq = scores.shape[2];
        const tk = scores.shape[3];
        if (typeof tq !== 'number' || typeof tk !== 'number')
          throw new ShapeError(`causal attention needs static lengths`);
        const allowed: number[] = [];
        for (let i = 0; i < tq; i++) for (let j = 0; j < tk; j++) allowed.push(j <= i + (tk - tq) ? 1 : 0);
        scores = o.where(x.graph.constant(new Uint8Array(allowed), [tq, tk], 'bool'), scores, MASKED);
      }
      if (a.mask) {
        if (a.mask.dtype !== 'bool') throw new ShapeError(`attention mask must be bool, got ${a.mask}`);
        scores = o.where(a.mask, scores, MASKED);
      }
      const ctxH = o.matmul(o.softmax(scores, -1), vh); // [B, H, Tq, dh]
      return out(o.reshape(o.transpose(ctxH, [0, 2, 1, 3]), [0, 0, dim]));
    });
  return Object.assign(fn, { params });
}

export interface TransformerBlockOptions {
  dim: number;
  heads: number;
  /** Hidden width of the MLP as a multiple of dim (default 4). */
  mlpRatio?: number;
  activation?: Activation;
  epsilon?: number;
}

/** Pre-norm transformer block: x + Attn(LN(x)); then + MLP(LN(·)). */
export function transformerBlock(
  ps: ParamStore,
  name: string,
  opts: TransformerBlockOptions,
): AttentionLayer {
  const { dim } = opts;
  const hidden = Math.round(dim * (opts.mlpRatio ?? 4));
  const ln1 = layerNorm(ps, `${name}.ln1`, dim, { epsilon: opts.epsilon });
  const attn = multiHeadAttention(ps, `${name}.attn`, { dim, heads: opts.heads });
  const ln2 = layerNorm(ps, `${name}.ln2`, dim, { epsilon: opts.epsilon });
  const fc1 = linear(ps, `${name}.fc1`, dim, hidden);
  const fc2 = linear(ps, `${name}.fc2`, hidden, dim);
  const params = [ln1, attn, ln2, fc1, fc2].flatMap((l) => [...l.params]);
  const fn = (x: Tensor, a: AttendOptions = {}): Tensor =>
    x.graph.scope(name, () => {
      const h = o.add(x, attn(ln1(x), a));
      return o.add(h, fc2(activate(fc1(ln2(h)), opts.activation ?? 'gelu')));
    });
  return Object.assign(fn, { params });
}
