// A copy of the shipped agent model in a test's folder, its metadata's settings edited: how the tests give a
// model a setting (a temperature, rule settings) without training one.
import fs from 'node:fs';
import path from 'node:path';
import { modelMetaPath, SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';

/** Copy models/agent.onnx to dir/name.onnx with its metadata; `key` set to `value`, or removed when undefined. */
export function shippedModelCopy(dir: string, name: string, key: string, value: unknown): string {
  const onnx = path.join(dir, `${name}.onnx`);
  fs.copyFileSync(SHIPPED_AGENT_MODEL, onnx);
  const meta = JSON.parse(fs.readFileSync(modelMetaPath(SHIPPED_AGENT_MODEL), 'utf8')) as {
    settings: Record<string, unknown>;
  };
  if (value === undefined) delete meta.settings[key];
  else meta.settings[key] = value;
  fs.writeFileSync(modelMetaPath(onnx), JSON.stringify(meta));
  return onnx;
}
