// Warm start of a tokenizer from an exported one (models/tokenizer): weights copied by name from its ONNX
// initializers, the z-indexed ones (height embedding, voxel heads) repeated when the new grid has k× the z cells.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.ts';
import { decodeModel, type TensorProtoObj } from '../core/nn/onnxProto.ts';
import type { ParamStore } from '../core/nn/params.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';
import { DECODER_FILE, ENCODER_FILE, readTokenizerSpec } from './tokenizerModel.ts';

const FLOAT = 1;

function floats(t: TensorProtoObj): Float32Array {
  if (t.rawData && t.rawData.length) {
    const copy = new Uint8Array(t.rawData); // aligned copy
    return new Float32Array(copy.buffer, 0, copy.length / 4);
  }
  return Float32Array.from(t.floatData ?? []);
}

/** Which parameters were copied, which repeated along z, which kept their fresh initialisation. */
export interface WarmStartReport {
  from: string;
  copied: number;
  repeatedZ: string[];
  fresh: string[];
}

/**
 * Copy the weights of the tokenizer in `dir` into `ps` (built for `cfg`). Its grid may differ only in the
 * number of z cells, by an integer factor: each old z level then seeds the levels it is split into.
 */
export function warmStartTokenizer(ps: ParamStore, cfg: TokenizerConfig, dir: string): WarmStartReport {
  const spec = readTokenizerSpec(path.join(dir, ENCODER_FILE));
  const oldZ = spec.config.grid.cellsZ;
  const newZ = gridGeometry(cfg).cellsZ;
  if (newZ % oldZ !== 0)
    throw new InputError(dir, `cellsZ ${newZ} is not a multiple of the warm-start model's ${oldZ}`);
  const f = newZ / oldZ;
  const byName = new Map<string, Float32Array>();
  for (const file of [ENCODER_FILE, DECODER_FILE]) {
    const m = decodeModel(fs.readFileSync(path.join(dir, file)));
    for (const t of m.graph.initializer as TensorProtoObj[])
      if (t.dataType === FLOAT && !byName.has(t.name)) byName.set(t.name, floats(t));
  }
  const report: WarmStartReport = { from: dir, copied: 0, repeatedZ: [], fresh: [] };
  for (const p of ps.list()) {
    const old = byName.get(p.name);
    if (!old) {
      report.fresh.push(p.name);
      continue;
    }
    if (old.length === p.data.length) {
      p.data.set(old);
      report.copied++;
      continue;
    }
    if (old.length * f !== p.data.length) {
      report.fresh.push(p.name);
      continue;
    }
    // Axis 0 indexes z: the height embedding [Z, C] and the heads [2Z, …] (occupancy levels, then density).
    const rowLen = p.data.length / p.shape[0];
    const oldRows = p.shape[0] / f;
    const heads = oldRows === 2 * oldZ;
    for (let k = 0; k < p.shape[0]; k++) {
      const src = heads
        ? k < newZ
          ? Math.floor(k / f)
          : oldZ + Math.floor((k - newZ) / f)
        : Math.floor(k / f);
      p.data.set(old.subarray(src * rowLen, (src + 1) * rowLen), k * rowLen);
    }
    report.repeatedZ.push(p.name);
  }
  return report;
}
