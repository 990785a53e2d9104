// Optimizers that update parameters in place between onnxruntime steps: SGD with momentum
// (PyTorch semantics) and AdamW (Loshchilov & Hutter 2019, decoupled weight decay).
import type { Parameter } from './params.ts';

type FloatArray = Float32Array | Float64Array;

/** An optimizer's checkpointable state: per-parameter buffers and scalar settings/counters. */
export interface OptimizerState {
  buffers: Map<string, FloatArray>;
  scalars: Record<string, number>;
}

export interface Optimizer {
  readonly kind: string;
  /** One update with learning rate `lr`; grads[i] belongs to params[i]. */
  step(params: readonly Parameter[], grads: readonly FloatArray[], lr: number): void;
  /** Buffers keyed '<slot>/<param name>' and scalars, for checkpoints. */
  getState(): OptimizerState;
  setState(state: OptimizerState): void;
}

/** Which parameters get weight decay (default: Parameter.decay, i.e. weights but not biases, norms, embeddings). */
export type DecayFilter = (p: Parameter) => boolean;

export interface SgdOptions {
  momentum?: number;
  dampening?: number;
  nesterov?: boolean;
  /** L2 penalty added to the gradient (coupled, as PyTorch's SGD). */
  weightDecay?: number;
  decay?: DecayFilter;
}

export const SGD_DEFAULTS = { momentum: 0.9, dampening: 0, nesterov: false, weightDecay: 0 };

export function sgd(opts: SgdOptions = {}): Optimizer {
  const o = { ...SGD_DEFAULTS, ...opts };
  const decays = opts.decay ?? ((p: Parameter) => p.decay);
  const momentum = new Map<string, FloatArray>();
  let started = new Set<string>();
  return {
    kind: 'sgd',
    step(params, grads, lr) {
      params.forEach((p, k) => {
        const g = grads[k];
        const x = p.data;
        const wd = decays(p) ? o.weightDecay : 0;
        if (o.momentum === 0) {
          for (let i = 0; i < x.length; i++) x[i] -= lr * (g[i] + wd * x[i]);
          return;
        }
        let buf = momentum.get(p.name);
        if (!buf) momentum.set(p.name, (buf = new (x.constructor as typeof Float32Array)(x.length)));
        const first = !started.has(p.name);
        started.add(p.name);
        const mu = o.momentum;
        const damp = 1 - o.dampening;
        for (let i = 0; i < x.length; i++) {
          const gi = g[i] + wd * x[i];
          const b = first ? gi : mu * buf[i] + damp * gi;
          buf[i] = b;
          x[i] -= lr * (o.nesterov ? gi + mu * b : b);
        }
      });
    },
    getState() {
      const buffers = new Map<string, FloatArray>();
      for (const [k, v] of momentum) buffers.set(`momentum/${k}`, v);
      return { buffers, scalars: { started: started.size } };
    },
    setState(s) {
      momentum.clear();
      started = new Set();
      for (const [k, v] of s.buffers) {
        if (!k.startsWith('momentum/')) continue;
        const name = k.slice('momentum/'.length);
        momentum.set(name, v);
        started.add(name);
      }
    },
  };
}

export interface AdamWOptions {
  beta1?: number;
  beta2?: number;
  eps?: number;
  /** Decoupled weight decay: p ← p − lr·wd·p, applied where `decay` says. */
  weightDecay?: number;
  decay?: DecayFilter;
}

export const ADAMW_DEFAULTS = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 };

export function adamW(opts: AdamWOptions = {}): Optimizer {
  const o = { ...ADAMW_DEFAULTS, ...opts };
  const decays = opts.decay ?? ((p: Parameter) => p.decay);
  const m = new Map<string, FloatArray>();
  const v = new Map<string, FloatArray>();
  let t = 0;
  return {
    kind: 'adamw',
    step(params, grads, lr) {
      t++;
      const { beta1: b1, beta2: b2, eps } = o;
      const bc1 = 1 - Math.pow(b1, t);
      const sqrtBc2 = Math.sqrt(1 - Math.pow(b2, t));
      const stepSize = lr / bc1;
      params.forEach((p, k) => {
        const g = grads[k];
        const x = p.data;
        let mk = m.get(p.name);
        let vk = v.get(p.name);
        if (!mk || !vk) {
          const A = x.constructor as typeof Float32Array;
          m.set(p.name, (mk = new A(x.length)));
          v.set(p.name, (vk = new A(x.length)));
        }
        const shrink = decays(p) ? 1 - lr * o.weightDecay : 1;
        if (x instanceof Float32Array && g instanceof Float32Array && mk instanceof Float32Array) {
          adamWUpdate32(x, g, mk, vk as Float32Array, b1, b2, shrink, stepSize, sqrtBc2, eps);
        } else {
          adamWUpdate(x, g, mk, vk, b1, b2, shrink, stepSize, sqrtBc2, eps);
        }
      });
    },
    getState() {
      const buffers = new Map<string, FloatArray>();
      for (const [k, b] of m) buffers.set(`m/${k}`, b);
      for (const [k, b] of v) buffers.set(`v/${k}`, b);
      return { buffers, scalars: { t } };
    },
    setState(s) {
      m.clear();
      v.clear();
      for (const [k, b] of s.buffers) {
        if (k.startsWith('m/')) m.set(k.slice(2), b);
        else if (k.startsWith('v/')) v.set(k.slice(2), b);
      }
      t = s.scalars.t ?? 0;
    },
  };
}

// The AdamW update of one parameter, once per array type: a loop that only ever sees Float32Arrays
// compiles to plain float loads and stores (the mixed one goes through a polymorphic access per element).
function adamWUpdate32(
  x: Float32Array,
  g: Float32Array,
  mk: Float32Array,
  vk: Float32Array,
  b1: number,
  b2: number,
  shrink: number,
  stepSize: number,
  sqrtBc2: number,
  eps: number,
): void {
  const c1 = 1 - b1;
  const c2 = 1 - b2;
  for (let i = 0; i < x.length; i++) {
    const gi = g[i];
    const mi = b1 * mk[i] + c1 * gi;
    const vi = b2 * vk[i] + c2 * gi * gi;
    mk[i] = mi;
    vk[i] = vi;
    x[i] = x[i] * shrink - (stepSize * mi) / (Math.sqrt(vi) / sqrtBc2 + eps);
  }
}

function adamWUpdate(
  x: FloatArray,
  g: FloatArray,
  mk: FloatArray,
  vk: FloatArray,
  b1: number,
  b2: number,
  shrink: number,
  stepSize: number,
  sqrtBc2: number,
  eps: number,
): void {
  const c1 = 1 - b1;
  const c2 = 1 - b2;
  for (let i = 0; i < x.length; i++) {
    const gi = g[i];
    const mi = b1 * mk[i] + c1 * gi;
    const vi = b2 * vk[i] + c2 * gi * gi;
    mk[i] = mi;
    vk[i] = vi;
    x[i] = x[i] * shrink - (stepSize * mi) / (Math.sqrt(vi) / sqrtBc2 + eps);
  }
}
