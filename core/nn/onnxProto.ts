// The subset of the ONNX protobuf schema (onnx/onnx.proto, IR version 8) that drivekit writes and
// reads: models, graphs, nodes, attributes, tensors and value infos, encoded with protobufjs.
import protobuf from 'protobufjs';

/** IR version matching opset 17 (ONNX 1.12). */
export const ONNX_IR_VERSION = 8;
/** Default-domain opset every drivekit graph is written for. */
export const ONNX_OPSET = 17;

/** TensorProto.DataType codes. */
export const DATA_TYPE = {
  float32: 1,
  uint8: 2,
  int8: 3,
  int32: 6,
  int64: 7,
  bool: 9,
  float64: 11,
} as const;

/** AttributeProto.AttributeType codes. */
export const ATTRIBUTE_TYPE = {
  FLOAT: 1,
  INT: 2,
  STRING: 3,
  TENSOR: 4,
  FLOATS: 6,
  INTS: 7,
  STRINGS: 8,
} as const;

// Field numbers follow onnx.proto exactly; messages and fields drivekit never uses are left out
// (protobuf skips unknown fields when decoding, so models written elsewhere still load).
const SCHEMA = `
syntax = "proto3";
package onnx;

message AttributeProto {
  string name = 1;
  string doc_string = 13;
  int32 type = 20;
  float f = 2;
  int64 i = 3;
  bytes s = 4;
  TensorProto t = 5;
  GraphProto g = 6;
  repeated float floats = 7;
  repeated int64 ints = 8;
  repeated bytes strings = 9;
}

message ValueInfoProto {
  string name = 1;
  TypeProto type = 2;
  string doc_string = 3;
}

message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  string name = 3;
  string op_type = 4;
  string domain = 7;
  repeated AttributeProto attribute = 5;
  string doc_string = 6;
}

message StringStringEntryProto {
  string key = 1;
  string value = 2;
}

message OperatorSetIdProto {
  string domain = 1;
  int64 version = 2;
}

message ModelProto {
  int64 ir_version = 1;
  repeated OperatorSetIdProto opset_import = 8;
  string producer_name = 2;
  string producer_version = 3;
  string domain = 4;
  int64 model_version = 5;
  string doc_string = 6;
  GraphProto graph = 7;
  repeated StringStringEntryProto metadata_props = 14;
}

message GraphProto {
  repeated NodeProto node = 1;
  string name = 2;
  repeated TensorProto initializer = 5;
  string doc_string = 10;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
  repeated ValueInfoProto value_info = 13;
}

message TensorProto {
  repeated int64 dims = 1;
  int32 data_type = 2;
  repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true];
  repeated int64 int64_data = 7 [packed = true];
  string name = 8;
  string doc_string = 12;
  bytes raw_data = 9;
  repeated double double_data = 10 [packed = true];
}

message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    }
    string denotation = 3;
  }
  repeated Dimension dim = 1;
}

message TypeProto {
  message Tensor {
    int32 elem_type = 1;
    TensorShapeProto shape = 2;
  }
  oneof value {
    Tensor tensor_type = 1;
  }
  string denotation = 6;
}
`;

// Plain-object views of the messages (camelCase, as protobufjs maps snake_case fields).
export interface TensorProtoObj {
  name: string;
  dims: number[];
  dataType: number;
  rawData?: Uint8Array;
  floatData?: number[];
  int32Data?: number[];
  int64Data?: (number | bigint | { toString(): string })[];
  doubleData?: number[];
}
export interface AttributeProtoObj {
  name: string;
  type: number;
  f?: number;
  i?: number;
  s?: Uint8Array;
  t?: TensorProtoObj;
  floats?: number[];
  ints?: number[];
  strings?: Uint8Array[];
}
export interface NodeProtoObj {
  input: string[];
  output: string[];
  name: string;
  opType: string;
  domain?: string;
  attribute: AttributeProtoObj[];
}
export interface DimObj {
  dimValue?: number;
  dimParam?: string;
}
export interface ValueInfoProtoObj {
  name: string;
  type: { tensorType: { elemType: number; shape?: { dim: DimObj[] } } };
}
export interface GraphProtoObj {
  name: string;
  node: NodeProtoObj[];
  initializer: TensorProtoObj[];
  input: ValueInfoProtoObj[];
  output: ValueInfoProtoObj[];
  docString?: string;
}
export interface ModelProtoObj {
  irVersion: number;
  opsetImport: { domain: string; version: number }[];
  producerName: string;
  producerVersion: string;
  docString?: string;
  graph: GraphProtoObj;
  metadataProps?: { key: string; value: string }[];
}

let modelType: protobuf.Type | null = null;

function modelProtoType(): protobuf.Type {
  if (!modelType) modelType = protobuf.parse(SCHEMA, { keepCase: false }).root.lookupType('onnx.ModelProto');
  return modelType;
}

/** Serialise a model to ONNX protobuf bytes. */
export function encodeModel(model: ModelProtoObj): Uint8Array {
  const t = modelProtoType();
  return t.encode(t.fromObject(model)).finish();
}

/** Parse ONNX protobuf bytes (int64 fields come back as numbers). */
export function decodeModel(bytes: Uint8Array): ModelProtoObj {
  const t = modelProtoType();
  return t.toObject(t.decode(bytes), { longs: Number, defaults: false, arrays: true }) as ModelProtoObj;
}
