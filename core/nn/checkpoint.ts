// Training checkpoints in safetensors: parameters, optimizer buffers, step count and RNG states,
// written atomically, so a killed run resumes exactly where its last checkpoint left it.
import fs from 'node:fs';
import { InputError } from '../errors.ts';
import type { Optimizer } from './optimizers.ts';
import type { ParamStore } from './params.ts';
import type { Rng, RngState } from '../rng.ts';
import { readSafetensors, writeSafetensors, type NamedTensor } from './safetensors.ts';

export const CHECKPOINT_FORMAT = 'drivekit-checkpoint/1';

export interface TrainingState {
  /** Steps completed. */
  step: number;
  params: ParamStore;
  optimizer: Optimizer;
  /** Random generators whose state must survive (e.g. the data sampler), by name. */
  rngs?: Readonly<Record<string, Rng>>;
  /** Anything else JSON-serialisable to keep (e.g. best metric so far). */
  extra?: unknown;
  /** A copy of the parameters worth keeping apart (the best epoch's), stored as tensors beside them. */
  best?: ReadonlyMap<string, Float32Array> | null;
}

export async function saveCheckpoint(path: string, s: TrainingState): Promise<void> {
  const tensors = new Map<string, NamedTensor>();
  for (const p of s.params.list())
    tensors.set(`param/${p.name}`, { dtype: s.params.dtype, shape: p.shape, data: p.data });
  for (const [name, data] of s.best ?? [])
    tensors.set(`best/${name}`, { dtype: 'float32', shape: [data.length], data });
  const opt = s.optimizer.getState();
  for (const [k, b] of opt.buffers) {
    tensors.set(`optim/${k}`, {
      dtype: b instanceof Float64Array ? 'float64' : 'float32',
      shape: [b.length],
      data: b,
    });
  }
  const rngs: Record<string, RngState> = {};
  for (const [k, r] of Object.entries(s.rngs ?? {})) rngs[k] = r.getState();
  await writeSafetensors(path, tensors, {
    format: CHECKPOINT_FORMAT,
    step: String(s.step),
    optimizer: JSON.stringify({ kind: s.optimizer.kind, scalars: opt.scalars }),
    rngs: JSON.stringify(rngs),
    extra: JSON.stringify(s.extra ?? null),
  });
}

export interface LoadedCheckpoint {
  step: number;
  extra: unknown;
  /** The kept parameter copy (`TrainingState.best`); null when the checkpoint has none. */
  best: Map<string, Float32Array> | null;
}

/**
 * Restore parameters, optimizer and RNGs in place from `path`; returns the step count and extra.
 * Every parameter of the store must be in the file, with the same size.
 */
export async function loadCheckpoint(
  path: string,
  s: Omit<TrainingState, 'step' | 'extra'>,
): Promise<LoadedCheckpoint> {
  const { tensors, metadata } = await readSafetensors(path);
  if (metadata.format !== CHECKPOINT_FORMAT) throw new InputError(path, `not a ${CHECKPOINT_FORMAT} file`);
  const params = new Map<string, ArrayLike<number>>();
  const buffers = new Map<string, Float32Array | Float64Array>();
  const best = new Map<string, Float32Array>();
  for (const [k, t] of tensors) {
    if (k.startsWith('param/')) params.set(k.slice(6), t.data as Float32Array);
    else if (k.startsWith('optim/')) buffers.set(k.slice(6), t.data as Float32Array);
    else if (k.startsWith('best/')) best.set(k.slice(5), t.data as Float32Array);
  }
  try {
    s.params.load(params);
  } catch (e) {
    throw new InputError(path, (e as Error).message);
  }
  const opt = JSON.parse(metadata.optimizer) as { kind: string; scalars: Record<string, number> };
  if (opt.kind !== s.optimizer.kind)
    throw new InputError(path, `optimizer is ${opt.kind}, not ${s.optimizer.kind}`);
  s.optimizer.setState({ buffers, scalars: opt.scalars });
  const rngs = JSON.parse(metadata.rngs) as Record<string, RngState>;
  for (const [k, r] of Object.entries(s.rngs ?? {})) {
    if (!rngs[k]) throw new InputError(path, `no state for rng '${k}'`);
    r.setState(rngs[k]);
  }
  const extra = JSON.parse(metadata.extra) as unknown;
  // Checkpoints written before the copy was stored as tensors kept it as number arrays in extra.best.
  const legacy = (extra as { best?: Record<string, number[]> | null } | null)?.best;
  if (best.size === 0 && legacy && typeof legacy === 'object')
    for (const [k, v] of Object.entries(legacy)) best.set(k, Float32Array.from(v));
  return { step: Number(metadata.step), extra, best: best.size ? best : null };
}

export function checkpointExists(path: string): boolean {
  return fs.existsSync(path);
}
