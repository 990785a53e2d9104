// Export an inference model: the nodes the chosen outputs need (no backward part), parameters
// baked in as initialisers, ONNX opset 17 — loadable by any ONNX runtime without drivekit.
import { writeFileAtomic } from '../atomic.ts';
import type { Graph, Tensor } from './graph.ts';
import { buildModel } from './onnxModel.ts';

export interface ExportOptions {
  /** Free text stored in the model (doc_string). */
  docString?: string;
  /** Key/value metadata stored in the model (metadata_props), e.g. class names or grid settings. */
  metadata?: Readonly<Record<string, string>>;
}

/** Serialise the inference part of `graph` that computes `outputs`, with current parameter values. */
export function exportOnnxBytes(
  graph: Graph,
  outputs: Readonly<Record<string, Tensor>>,
  opts: ExportOptions = {},
): Uint8Array {
  return buildModel(graph, {
    outputs,
    params: 'initializers',
    outputShapes: true,
    docString: opts.docString,
    metadata: opts.metadata,
  }).bytes;
}

/** Write the inference model to `path` atomically. */
export async function exportOnnx(
  path: string,
  graph: Graph,
  outputs: Readonly<Record<string, Tensor>>,
  opts: ExportOptions = {},
): Promise<void> {
  await writeFileAtomic(path, exportOnnxBytes(graph, outputs, opts));
}
