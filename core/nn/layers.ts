// Layers: parameters created once in a ParamStore, applied to tensors of any graph. Linear, Conv2d,
// ConvTranspose2d, LayerNorm, GroupNorm, Embedding, MLP; defaults follow PyTorch's initialisation.
import type { Tensor } from './graph.ts';
import type { Init } from './init.ts';
import type { ParamStore, Parameter } from './params.ts';
import * as o from './ops/index.ts';
import { ShapeError } from './shape.ts';

/** A layer is a function of a tensor that carries its parameters. */
export interface Layer {
  (x: Tensor): Tensor;
  readonly params: readonly Parameter[];
}

function makeLayer(name: string, params: Parameter[], fn: (x: Tensor) => Tensor): Layer {
  const f = (x: Tensor) => x.graph.scope(name, () => fn(x));
  return Object.assign(f, { params });
}

/** PyTorch's default: U(±1/√fanIn) for weights and biases. */
const torchDefault = (fanIn: number): Init => ({ kind: 'uniform', bound: 1 / Math.sqrt(fanIn) });

export interface LinearOptions {
  bias?: boolean;
  /** Weight init (default U(±1/√in), as PyTorch). */
  init?: Init;
}

/** y = x·W + b over the last axis; W is [in, out]. */
export function linear(
  ps: ParamStore,
  name: string,
  inFeatures: number,
  outFeatures: number,
  opts: LinearOptions = {},
): Layer {
  const w = ps.add(`${name}.weight`, [inFeatures, outFeatures], opts.init ?? torchDefault(inFeatures));
  const b =
    opts.bias === false
      ? null
      : ps.add(`${name}.bias`, [outFeatures], torchDefault(inFeatures), { kind: 'bias' });
  return makeLayer(name, b ? [w, b] : [w], (x) => {
    const g = x.graph;
    if (x.shape[x.rank - 1] !== inFeatures && typeof x.shape[x.rank - 1] === 'number') {
      throw new ShapeError(`${g.where('Linear')}: expects last dim ${inFeatures}, got ${x}`);
    }
    const y =
      x.rank === 1
        ? o.reshape(o.matmul(o.reshape(x, [1, inFeatures]), g.param(w)), [outFeatures])
        : o.matmul(x, g.param(w));
    return b ? o.add(y, g.param(b)) : y;
  });
}

export interface Conv2dOptions extends o.ConvOptions {
  bias?: boolean;
  init?: Init;
}

/** 2-D convolution over [N, C, H, W]; weight [out, in/groups, k, k]. */
export function conv2d(
  ps: ParamStore,
  name: string,
  inChannels: number,
  outChannels: number,
  kernel: number | readonly [number, number],
  opts: Conv2dOptions = {},
): Layer {
  const [kh, kw] = typeof kernel === 'number' ? [kernel, kernel] : kernel;
  const groups = opts.groups ?? 1;
  const fanIn = (inChannels / groups) * kh * kw;
  const w = ps.add(
    `${name}.weight`,
    [outChannels, inChannels / groups, kh, kw],
    opts.init ?? torchDefault(fanIn),
  );
  const b =
    opts.bias === false ? null : ps.add(`${name}.bias`, [outChannels], torchDefault(fanIn), { kind: 'bias' });
  return makeLayer(name, b ? [w, b] : [w], (x) =>
    o.conv(x, x.graph.param(w), b ? x.graph.param(b) : null, opts),
  );
}

export interface ConvTranspose2dOptions extends o.ConvTransposeOptions {
  bias?: boolean;
  init?: Init;
}

/** 2-D transposed convolution; weight [in, out/groups, k, k]. */
export function convTranspose2d(
  ps: ParamStore,
  name: string,
  inChannels: number,
  outChannels: number,
  kernel: number | readonly [number, number],
  opts: ConvTranspose2dOptions = {},
): Layer {
  const [kh, kw] = typeof kernel === 'number' ? [kernel, kernel] : kernel;
  const groups = opts.groups ?? 1;
  const fanIn = (outChannels / groups) * kh * kw; // PyTorch computes the fan from weight dim 1
  const w = ps.add(
    `${name}.weight`,
    [inChannels, outChannels / groups, kh, kw],
    opts.init ?? torchDefault(fanIn),
  );
  const b =
    opts.bias === false ? null : ps.add(`${name}.bias`, [outChannels], torchDefault(fanIn), { kind: 'bias' });
  return makeLayer(name, b ? [w, b] : [w], (x) =>
    o.convTranspose(x, x.graph.param(w), b ? x.graph.param(b) : null, opts),
  );
}

/** Layer normalisation over the last axis (size `dim`), learned scale and shift. */
export function layerNorm(ps: ParamStore, name: string, dim: number, opts: { epsilon?: number } = {}): Layer {
  const s = ps.add(`${name}.weight`, [dim], { kind: 'ones' }, { kind: 'norm' });
  const b = ps.add(`${name}.bias`, [dim], { kind: 'zeros' }, { kind: 'norm' });
  return makeLayer(name, [s, b], (x) =>
    o.layerNormalization(x, x.graph.param(s), x.graph.param(b), -1, opts.epsilon ?? 1e-5),
  );
}

/** Group normalisation of [N, C, …] with `groups` groups. */
export function groupNorm(
  ps: ParamStore,
  name: string,
  groups: number,
  channels: number,
  opts: { epsilon?: number } = {},
): Layer {
  const s = ps.add(`${name}.weight`, [channels], { kind: 'ones' }, { kind: 'norm' });
  const b = ps.add(`${name}.bias`, [channels], { kind: 'zeros' }, { kind: 'norm' });
  return makeLayer(name, [s, b], (x) =>
    o.groupNormalization(x, groups, x.graph.param(s), x.graph.param(b), opts.epsilon ?? 1e-5),
  );
}

/** Lookup table: integer ids [..] → vectors [.., dim]; init N(0, 1) like PyTorch. */
export function embedding(
  ps: ParamStore,
  name: string,
  count: number,
  dim: number,
  opts: { init?: Init } = {},
): Layer {
  const w = ps.add(`${name}.weight`, [count, dim], opts.init ?? { kind: 'normal', std: 1 }, {
    kind: 'embedding',
  });
  return makeLayer(name, [w], (ids) => o.gather(ids.graph.param(w), ids, 0));
}

export type Activation = 'relu' | 'gelu' | 'tanh' | 'sigmoid' | 'leakyRelu' | 'none';

export function activate(x: Tensor, act: Activation): Tensor {
  switch (act) {
    case 'relu':
      return o.relu(x);
    case 'gelu':
      return o.gelu(x);
    case 'tanh':
      return o.tanh(x);
    case 'sigmoid':
      return o.sigmoid(x);
    case 'leakyRelu':
      return o.leakyRelu(x);
    case 'none':
      return x;
  }
}

export interface MlpOptions {
  activation?: Activation;
  /** Apply the activation after the last layer too (default false). */
  activateLast?: boolean;
  bias?: boolean;
}

/** Multi-layer perceptron: sizes [in, hidden…, out], Linear layers named `${name}.0`, `${name}.1`, … */
export function mlp(ps: ParamStore, name: string, sizes: readonly number[], opts: MlpOptions = {}): Layer {
  if (sizes.length < 2) throw new Error(`mlp '${name}': needs at least [in, out] sizes`);
  const act = opts.activation ?? 'relu';
  const layers = sizes.slice(1).map((n, i) => linear(ps, `${name}.${i}`, sizes[i], n, { bias: opts.bias }));
  return makeLayer(
    name,
    layers.flatMap((l) => [...l.params]),
    (x) => {
      let h = x;
      layers.forEach((l, i) => {
        h = l(h);
        if (i < layers.length - 1 || opts.activateLast) h = activate(h, act);
      });
      return h;
    },
  );
}
