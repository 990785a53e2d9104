// Trainable parameters and the store that owns them: named Float32Arrays (Float64Arrays for
// gradient checks) that persist across graphs and steps and are updated in place by the optimizer.
import { fillInit, type Init } from './init.ts';
import { Rng } from '../rng.ts';
import type { FloatType } from './dtype.ts';

/** What a parameter is; AdamW skips weight decay for everything but 'weight' by default. */
export type ParamKind = 'weight' | 'bias' | 'norm' | 'embedding' | 'other';

export interface Parameter {
  readonly name: string;
  readonly shape: readonly number[];
  /** The values, updated in place (onnxruntime reads them straight from this buffer). */
  readonly data: Float32Array | Float64Array;
  readonly kind: ParamKind;
  /** Whether decoupled weight decay applies (default: only for kind 'weight'). */
  readonly decay: boolean;
}

export interface ParamStoreOptions {
  /** Seed of the initialisation Rng (default 1). */
  seed?: number;
  /** Element type of every parameter (default float32; float64 for gradient checks). */
  dtype?: FloatType;
}

export interface AddParamOptions {
  kind?: ParamKind;
  decay?: boolean;
}

/** Owns a model's parameters; layers add to it, graphs refer to them, checkpoints save them. */
export class ParamStore {
  readonly dtype: FloatType;
  readonly rng: Rng;
  private readonly byName = new Map<string, Parameter>();

  constructor(opts: ParamStoreOptions = {}) {
    this.dtype = opts.dtype ?? 'float32';
    this.rng = new Rng(opts.seed ?? 1);
  }

  /** Create a parameter, filled by `init`. Names must be unique in the store. */
  add(name: string, shape: readonly number[], init: Init, opts: AddParamOptions = {}): Parameter {
    if (this.byName.has(name)) throw new Error(`parameter '${name}' already exists`);
    if (!shape.every((d) => Number.isInteger(d) && d > 0)) {
      throw new Error(`parameter '${name}': shape [${shape.join(',')}] must be positive integers`);
    }
    const n = shape.reduce((a, b) => a * b, 1);
    const data = this.dtype === 'float64' ? new Float64Array(n) : new Float32Array(n);
    fillInit(data, init, this.rng);
    const kind = opts.kind ?? 'weight';
    const p: Parameter = { name, shape: [...shape], data, kind, decay: opts.decay ?? kind === 'weight' };
    this.byName.set(name, p);
    return p;
  }

  get(name: string): Parameter {
    const p = this.byName.get(name);
    if (!p) throw new Error(`no parameter '${name}'`);
    return p;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  list(): Parameter[] {
    return [...this.byName.values()];
  }

  /** A copy of every parameter's values by name (e.g. the best epoch's, kept while training goes on; `load` restores it). */
  snapshot(): Map<string, Float32Array> {
    return new Map(this.list().map((p) => [p.name, Float32Array.from(p.data)]));
  }

  /** Total number of scalar parameters. */
  count(): number {
    let n = 0;
    for (const p of this.byName.values()) n += p.data.length;
    return n;
  }

  /**
   * Copy values in from `values` (by name); every parameter must be present with the right size, except
   * those `keepInit` names, which keep their initial values when absent or of another size (a head added or
   * resized for fine-tuning).
   */
  load(values: ReadonlyMap<string, ArrayLike<number>>, keepInit?: (name: string) => boolean): void {
    for (const p of this.byName.values()) {
      const v = values.get(p.name);
      if ((!v || v.length !== p.data.length) && keepInit?.(p.name)) continue;
      if (!v) throw new Error(`missing parameter '${p.name}'`);
      if (v.length !== p.data.length) {
        throw new Error(`parameter '${p.name}': expected ${p.data.length} values, got ${v.length}`);
      }
      p.data.set(v);
    }
  }
}
