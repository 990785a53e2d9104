// Weights of an exported detector (its ONNX initialisers) back into a ParamStore, so a new training run
// can fine-tune a shipped model instead of starting from scratch (OYSTER's later rounds fine-tune too).
import { InputError } from '../../core/errors.ts';
import { DATA_TYPE, decodeModel } from '../../core/nn/onnxProto.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { readDetectorSpec } from './model.ts';
import { createDetectorNetwork } from './network.ts';

/**
 * The parameters of the detector in `bytes` (ONNX from exportDetectorBytes), laid out as
 * createDetectorNetwork makes them for the model's own network config. InputError naming `file` when a
 * parameter is missing or has another size (a model of another architecture).
 */
export function detectorParamsFromOnnx(bytes: Uint8Array, file: string): ParamStore {
  const spec = readDetectorSpec(bytes, file);
  const values = new Map<string, Float32Array>();
  for (const t of decodeModel(bytes).graph.initializer) {
    if (t.dataType !== DATA_TYPE.float32) continue;
    if (t.rawData) {
      // The protobuf view (a Node Buffer, whose slice is another view) may start at any byte offset:
      // copy into a fresh array before viewing it as float32.
      const raw = new Uint8Array(t.rawData);
      values.set(t.name, new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4));
    } else if (t.floatData) values.set(t.name, Float32Array.from(t.floatData));
  }
  const params = new ParamStore();
  createDetectorNetwork(params, spec.network);
  try {
    params.load(values);
  } catch (e) {
    throw new InputError(file, `weights do not fit the detector network: ${(e as Error).message}`);
  }
  return params;
}
