// The float initialisers of an exported drivekit ONNX model (its parameters by name), so a run can start
// from a shipped model (the student from models/agent.onnx, the teacher from models/selfplay-teacher.onnx).
import fs from 'node:fs';
import { InputError } from '../../core/errors.ts';
import { DATA_TYPE, decodeModel } from '../../core/nn/onnxProto.ts';
import type { ParamStore } from '../../core/nn/params.ts';

export function onnxWeights(bytes: Uint8Array): Map<string, Float32Array> {
  const values = new Map<string, Float32Array>();
  for (const t of decodeModel(bytes).graph.initializer) {
    if (t.dataType !== DATA_TYPE.float32) continue;
    if (t.rawData) {
      // The protobuf view may start at any byte offset: copy before viewing it as float32.
      const raw = new Uint8Array(t.rawData);
      values.set(t.name, new Float32Array(raw.slice().buffer));
    } else if (t.floatData) values.set(t.name, Float32Array.from(t.floatData));
  }
  return values;
}

/** Load the parameters of the model in `file` into `params`; InputError naming the file when they do not fit. */
export function loadOnnxParams(file: string, params: ParamStore): void {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such model file');
  const all = onnxWeights(fs.readFileSync(file));
  const own = new Set(params.list().map((p) => p.name));
  const mine = new Map([...all].filter(([k]) => own.has(k)));
  try {
    params.load(mine);
  } catch (e) {
    throw new InputError(file, `weights do not fit the network: ${(e as Error).message}`);
  }
}
