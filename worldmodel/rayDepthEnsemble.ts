// Several exported ray-depth heads as one ONNX model whose outputs are the means of theirs: an ensemble of
// seeds (the members' MLPs side by side on the same features), which lowers the variance a single seed adds.
import { decodeModel, encodeModel, type ModelProtoObj, type NodeProtoObj } from '../core/nn/onnxProto.ts';
import { RAY_DEPTH_METADATA_KEY } from './rayDepthModel.ts';

/** The outputs every head has (rayDepthModel.ts exports them under these names). */
const OUTPUTS = ['log_ratio', 'keep_logit'] as const;
/** The one input every head has. */
const INPUT = 'features';

/**
 * One model from the heads' ONNX bytes: each member's nodes and weights renamed `m<k>/…`, all reading the
 * shared input, and per output a Sum of the members' then a Mul by 1 / members. `card` becomes the model's
 * drivekit metadata (the caller records the members and the gate threshold chosen for the mean).
 */
export function ensembleRayDepthOnnx(
  members: readonly Uint8Array[],
  card: Record<string, unknown>,
): Uint8Array {
  if (members.length < 2) throw new RangeError('an ensemble needs at least two heads');
  const models = members.map((b) => decodeModel(b));
  const first = models[0];
  for (const [k, m] of models.entries()) {
    const ins = m.graph.input.map((v) => v.name);
    const outs = m.graph.output.map((v) => v.name);
    if (ins.length !== 1 || ins[0] !== INPUT)
      throw new Error(`member ${k}: inputs [${ins.join(', ')}], expected [${INPUT}]`);
    if (OUTPUTS.some((o) => !outs.includes(o)))
      throw new Error(`member ${k}: outputs [${outs.join(', ')}], expected ${OUTPUTS.join(', ')}`);
  }
  const nodes: NodeProtoObj[] = [];
  const initializer = [];
  for (const [k, m] of models.entries()) {
    const rename = (name: string) => (name === INPUT || name === '' ? name : `m${k}/${name}`);
    for (const t of m.graph.initializer) initializer.push({ ...t, name: rename(t.name) });
    for (const n of m.graph.node)
      nodes.push({
        ...n,
        name: rename(n.name || `${n.opType}_${nodes.length}`),
        input: n.input.map(rename),
        output: n.output.map(rename),
      });
  }
  const scale = 1 / members.length;
  initializer.push({
    name: 'ensemble/scale',
    dims: [],
    dataType: 1, // FLOAT
    rawData: new Uint8Array(Float32Array.of(scale).buffer),
  });
  for (const o of OUTPUTS) {
    nodes.push({
      name: `ensemble/${o}/sum`,
      opType: 'Sum',
      input: models.map((_, k) => `m${k}/${o}`),
      output: [`ensemble/${o}/sum`],
      attribute: [],
    });
    nodes.push({
      name: `ensemble/${o}/mean`,
      opType: 'Mul',
      input: [`ensemble/${o}/sum`, 'ensemble/scale'],
      output: [o],
      attribute: [],
    });
  }
  const model: ModelProtoObj = {
    ...first,
    docString: `drivekit ray-depth head: mean of ${members.length} heads' outputs`,
    graph: {
      ...first.graph,
      name: 'raydepth_ensemble',
      node: nodes,
      initializer,
      input: first.graph.input,
      output: OUTPUTS.map((o) => first.graph.output.find((v) => v.name === o)!),
    },
    metadataProps: [{ key: RAY_DEPTH_METADATA_KEY, value: JSON.stringify(card) }],
  };
  return encodeModel(model);
}
