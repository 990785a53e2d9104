// Serialise (part of) a Graph to an ONNX ModelProto: only the nodes the chosen outputs need,
// parameters either as fed inputs (training) or as initialisers (export), opset 17.
import { encodeModel, ONNX_IR_VERSION, ONNX_OPSET, ATTRIBUTE_TYPE } from './onnxProto.ts';
import type { AttributeProtoObj, NodeProtoObj, TensorProtoObj, ValueInfoProtoObj } from './onnxProto.ts';
import { onnxDataType, type DType, type TypedArray } from './dtype.ts';
import { isUnknown, type Shape } from './shape.ts';
import type { AttrValue, ConstValue, Graph, Node, Tensor } from './graph.ts';

export interface ModelSpec {
  /** Graph outputs by name. */
  outputs: Readonly<Record<string, Tensor>>;
  /** 'inputs': parameters are fed each run (training); 'initializers': baked in (export). */
  params: 'inputs' | 'initializers';
  docString?: string;
  metadata?: Readonly<Record<string, string>>;
  /** Declare output shapes (export) or only dtypes (training, where shapes are onnxruntime's business). */
  outputShapes?: boolean;
}

export interface BuiltModel {
  bytes: Uint8Array;
  /** Names of the graph inputs, in order (data inputs, then parameters when fed). */
  inputNames: string[];
  /** The parameters fed as inputs ('inputs' mode), in input order. */
  paramInputs: Tensor[];
  dataInputs: Tensor[];
  outputNames: string[];
  /** Number of nodes kept after pruning. */
  nodeCount: number;
}

/** Outputs that ONNX lets a node leave unnamed when nothing reads them. */
const OPTIONAL_OUTPUTS: Record<string, number> = { LayerNormalization: 1, MaxPool: 1, Dropout: 1 };

/** Nodes needed to compute `targets`, in graph (topological) order. */
export function neededNodes(graph: Graph, targets: readonly Tensor[]): Node[] {
  const keep = new Set<Node>();
  const stack = [...targets];
  while (stack.length) {
    const t = stack.pop()!;
    if (t.source.kind !== 'node' || keep.has(t.source.node)) continue;
    keep.add(t.source.node);
    for (const i of t.source.node.inputs) if (i) stack.push(i);
  }
  return graph.nodes.filter((n) => keep.has(n));
}

export function buildModel(graph: Graph, spec: ModelSpec): BuiltModel {
  const outputEntries = Object.entries(spec.outputs);
  const nodes = neededNodes(
    graph,
    outputEntries.map(([, t]) => t),
  );
  // Leaves (inputs, params, constants) the kept nodes or the outputs read.
  const leaves = new Set<Tensor>();
  const consumed = new Set<Tensor>();
  for (const n of nodes) {
    for (const t of n.inputs) {
      if (!t) continue;
      consumed.add(t);
      if (t.source.kind !== 'node') leaves.add(t);
    }
  }
  for (const [, t] of outputEntries) if (t.source.kind !== 'node') leaves.add(t);

  // Name outputs: rename a node output in place when possible, else add an Identity.
  const rename = new Map<Tensor, string>();
  const extraNodes: NodeProtoObj[] = [];
  const taken = new Set<string>([...leaves].map((t) => t.name));
  for (const [name, t] of outputEntries) {
    if (taken.has(name)) throw new Error(`output name '${name}' clashes with an input, parameter or output`);
    taken.add(name);
    if (t.source.kind === 'node' && !rename.has(t)) rename.set(t, name);
    else {
      extraNodes.push({
        input: [nameOf(t)],
        output: [name],
        name: `output_${name}`,
        opType: 'Identity',
        attribute: [],
      });
    }
  }
  function nameOf(t: Tensor): string {
    return rename.get(t) ?? t.name;
  }
  const outputSet = new Set(outputEntries.map(([, t]) => t));

  const nodeProtos: NodeProtoObj[] = nodes.map((n) => {
    const firstOptional = OPTIONAL_OUTPUTS[n.op] ?? Infinity;
    const outs = n.outputs.map((t, k) =>
      k >= firstOptional && !consumed.has(t) && !outputSet.has(t) ? '' : nameOf(t),
    );
    while (outs.length > 1 && outs[outs.length - 1] === '') outs.pop();
    return {
      input: n.inputs.map((t) => (t ? nameOf(t) : '')),
      output: outs,
      name: n.name,
      opType: n.op,
      domain: n.domain,
      attribute: Object.entries(n.attrs).map(([k, v]) => attributeProto(k, v)),
    };
  });
  nodeProtos.push(...extraNodes);

  const dataInputs = graph.inputs.filter((t) => leaves.has(t));
  const paramTensors = [...leaves].filter((t) => t.source.kind === 'param').sort((a, b) => a.id - b.id);
  const consts = [...leaves].filter((t) => t.source.kind === 'const');
  const initializer: TensorProtoObj[] = consts.map((t) =>
    tensorProto(t.name, (t.source as { value: ConstValue }).value),
  );
  const inputs: Tensor[] = [...dataInputs];
  if (spec.params === 'inputs') inputs.push(...paramTensors);
  else {
    for (const t of paramTensors) {
      const p = (
        t.source as { kind: 'param'; param: { data: Float32Array | Float64Array; shape: readonly number[] } }
      ).param;
      initializer.push(tensorProto(t.name, { dtype: t.dtype, shape: p.shape, data: p.data }));
    }
  }

  const metadataProps = Object.entries(spec.metadata ?? {}).map(([key, value]) => ({ key, value }));
  const bytes = encodeModel({
    irVersion: ONNX_IR_VERSION,
    opsetImport: [{ domain: '', version: ONNX_OPSET }],
    producerName: 'drivekit',
    producerVersion: '1',
    docString: spec.docString ?? '',
    metadataProps,
    graph: {
      name: graph.name,
      node: nodeProtos,
      initializer,
      input: inputs.map((t) => valueInfo(t.name, t.dtype, t.shape)),
      output: outputEntries.map(([name, t]) => valueInfo(name, t.dtype, spec.outputShapes ? t.shape : null)),
    },
  });
  return {
    bytes,
    inputNames: inputs.map((t) => t.name),
    paramInputs: spec.params === 'inputs' ? paramTensors : [],
    dataInputs,
    outputNames: outputEntries.map(([n]) => n),
    nodeCount: nodeProtos.length,
  };
}

function valueInfo(name: string, dtype: DType, shape: Shape | null): ValueInfoProtoObj {
  const tensorType: ValueInfoProtoObj['type']['tensorType'] = { elemType: onnxDataType(dtype) };
  if (shape) {
    tensorType.shape = {
      dim: shape.map((d) => (typeof d === 'number' ? { dimValue: d } : isUnknown(d) ? {} : { dimParam: d })),
    };
  }
  return { name, type: { tensorType } };
}

function rawBytes(data: TypedArray): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function tensorProto(name: string, v: ConstValue): TensorProtoObj {
  return { name, dims: [...v.shape], dataType: onnxDataType(v.dtype), rawData: rawBytes(v.data) };
}

function attributeProto(name: string, v: AttrValue): AttributeProtoObj {
  switch (v.kind) {
    case 'int':
      return { name, type: ATTRIBUTE_TYPE.INT, i: v.value };
    case 'float':
      return { name, type: ATTRIBUTE_TYPE.FLOAT, f: v.value };
    case 'ints':
      return { name, type: ATTRIBUTE_TYPE.INTS, ints: [...v.value] };
    case 'floats':
      return { name, type: ATTRIBUTE_TYPE.FLOATS, floats: [...v.value] };
    case 'string':
      return { name, type: ATTRIBUTE_TYPE.STRING, s: new TextEncoder().encode(v.value) };
    case 'tensor':
      return { name, type: ATTRIBUTE_TYPE.TENSOR, t: tensorProto('', v.value) };
  }
}
