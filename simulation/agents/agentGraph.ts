// The check that a learned agent's ONNX graph fits its metadata (ONNX ModelProto inputs and outputs): a
// wrong model beside a valid metadata JSON is refused at load, naming the file, not at the first step.
import { InputError } from '../../core/errors.ts';
import { decodeModel } from '../../core/nn/onnxProto.ts';

/** The graph must take `obs` [n, obsSize] and give `logits` [n, actions] (any other output is ignored). */
export function checkAgentGraph(onnx: string, bytes: Uint8Array, obsSize: number, actions: number): void {
  let graph: ReturnType<typeof decodeModel>['graph'];
  try {
    graph = decodeModel(bytes).graph;
  } catch (e) {
    throw new InputError(onnx, `not an ONNX model (${(e as Error).message})`);
  }
  if (!graph) throw new InputError(onnx, 'not an ONNX model (no graph)');
  const fed = new Set((graph.initializer ?? []).map((t) => t.name));
  const inputs = (graph.input ?? []).filter((v) => !fed.has(v.name));
  const outputs = graph.output ?? [];
  const shapeOf = (v: (typeof inputs)[number]) =>
    (v.type?.tensorType?.shape?.dim ?? []).map((d) => (d.dimValue !== undefined ? String(d.dimValue) : '?'));
  const describe = (vs: typeof inputs) => vs.map((v) => `${v.name} [${shapeOf(v).join(', ')}]`).join(', ');
  const fits = (v: (typeof inputs)[number] | undefined, width: number) => {
    if (!v) return false;
    const dims = shapeOf(v);
    return dims.length === 0 || (dims.length === 2 && (dims[1] === '?' || dims[1] === String(width)));
  };
  const obs = inputs.find((v) => v.name === 'obs');
  const logits = outputs.find((v) => v.name === 'logits');
  if (inputs.length !== 1 || !fits(obs, obsSize) || !fits(logits, actions))
    throw new InputError(
      onnx,
      `not an agent graph for its metadata: it needs input obs [n, ${obsSize}] and output logits [n, ${actions}], ` +
        `the graph has inputs ${describe(inputs) || 'none'} and outputs ${describe(outputs) || 'none'}`,
    );
}
