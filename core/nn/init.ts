// Weight initialisers: Kaiming/He (He et al. 2015) and Xavier/Glorot (Glorot & Bengio 2010), normal,
// uniform and constants, drawn from the seeded Rng so a model's start is reproducible.
import type { Rng } from '../rng.ts';

/** How to fill a new parameter. Fans are the receptive-field-weighted input/output widths. */
export type Init =
  | { kind: 'zeros' }
  | { kind: 'ones' }
  | { kind: 'constant'; value: number }
  | { kind: 'normal'; std: number; mean?: number }
  | { kind: 'uniform'; bound: number }
  /** He init; gain √2 suits ReLU (the default), 1 suits linear/tanh-ish layers. */
  | { kind: 'kaimingNormal'; fanIn: number; gain?: number }
  | { kind: 'kaimingUniform'; fanIn: number; gain?: number }
  | { kind: 'xavierNormal'; fanIn: number; fanOut: number; gain?: number }
  | { kind: 'xavierUniform'; fanIn: number; fanOut: number; gain?: number };

/** Fill `out` according to `init`. */
export function fillInit(out: Float32Array | Float64Array, init: Init, rng: Rng): void {
  switch (init.kind) {
    case 'zeros':
      out.fill(0);
      return;
    case 'ones':
      out.fill(1);
      return;
    case 'constant':
      out.fill(init.value);
      return;
    case 'normal':
      for (let i = 0; i < out.length; i++) out[i] = (init.mean ?? 0) + init.std * rng.normal();
      return;
    case 'uniform':
      fillUniform(out, init.bound, rng);
      return;
    case 'kaimingNormal': {
      const std = (init.gain ?? Math.SQRT2) / Math.sqrt(init.fanIn);
      for (let i = 0; i < out.length; i++) out[i] = std * rng.normal();
      return;
    }
    case 'kaimingUniform':
      fillUniform(out, ((init.gain ?? Math.SQRT2) * Math.sqrt(3)) / Math.sqrt(init.fanIn), rng);
      return;
    case 'xavierNormal': {
      const std = (init.gain ?? 1) * Math.sqrt(2 / (init.fanIn + init.fanOut));
      for (let i = 0; i < out.length; i++) out[i] = std * rng.normal();
      return;
    }
    case 'xavierUniform':
      fillUniform(out, (init.gain ?? 1) * Math.sqrt(6 / (init.fanIn + init.fanOut)), rng);
      return;
  }
}

function fillUniform(out: Float32Array | Float64Array, bound: number, rng: Rng): void {
  for (let i = 0; i < out.length; i++) out[i] = (2 * rng.uniform() - 1) * bound;
}
