// The Foxglove message schemas drivekit writes (PointCloud, FrameTransform, SceneUpdate and the types they
// use), as protobuf definitions with foxglove/schemas' public field numbers, and their FileDescriptorSets.
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor.js';

/**
 * One .proto file per message, named and packaged as in foxglove/schemas (schemas/proto/foxglove/*.proto), so
 * a schema's FileDescriptorSet looks like protoc's: Foxglove Studio (and any protobuf runtime) builds the
 * types from it. Only the fields drivekit fills are declared; the numbers are the official ones, so the
 * bytes decode with the complete definitions too. Type names are fully qualified (as protoc writes them).
 */
const FILES: Record<string, string> = {
  'google/protobuf/timestamp.proto': `package google.protobuf;
    message Timestamp { int64 seconds = 1; int32 nanos = 2; }`,
  'google/protobuf/duration.proto': `package google.protobuf;
    message Duration { int64 seconds = 1; int32 nanos = 2; }`,
  'foxglove/Vector3.proto': `package foxglove;
    message Vector3 { double x = 1; double y = 2; double z = 3; }`,
  'foxglove/Quaternion.proto': `package foxglove;
    message Quaternion { double x = 1; double y = 2; double z = 3; double w = 4; }`,
  'foxglove/Point3.proto': `package foxglove;
    message Point3 { double x = 1; double y = 2; double z = 3; }`,
  'foxglove/Color.proto': `package foxglove;
    message Color { double r = 1; double g = 2; double b = 3; double a = 4; }`,
  'foxglove/KeyValuePair.proto': `package foxglove;
    message KeyValuePair { string key = 1; string value = 2; }`,
  'foxglove/Pose.proto': `package foxglove;
    message Pose { .foxglove.Vector3 position = 1; .foxglove.Quaternion orientation = 2; }`,
  'foxglove/PackedElementField.proto': `package foxglove;
    message PackedElementField {
      enum NumericType { UNKNOWN = 0; UINT8 = 1; INT8 = 2; UINT16 = 3; INT16 = 4; UINT32 = 5; INT32 = 6;
        FLOAT32 = 7; FLOAT64 = 8; }
      string name = 1; fixed32 offset = 2; NumericType type = 3;
    }`,
  'foxglove/PointCloud.proto': `package foxglove;
    message PointCloud {
      .google.protobuf.Timestamp timestamp = 1; string frame_id = 2; .foxglove.Pose pose = 3;
      fixed32 point_stride = 4; repeated .foxglove.PackedElementField fields = 5; bytes data = 6;
    }`,
  'foxglove/FrameTransform.proto': `package foxglove;
    message FrameTransform {
      .google.protobuf.Timestamp timestamp = 1; string parent_frame_id = 2; string child_frame_id = 3;
      .foxglove.Vector3 translation = 4; .foxglove.Quaternion rotation = 5;
    }`,
  'foxglove/CubePrimitive.proto': `package foxglove;
    message CubePrimitive { .foxglove.Pose pose = 1; .foxglove.Vector3 size = 2; .foxglove.Color color = 3; }`,
  'foxglove/LinePrimitive.proto': `package foxglove;
    message LinePrimitive {
      enum Type { LINE_STRIP = 0; LINE_LOOP = 1; LINE_LIST = 2; }
      Type type = 1; .foxglove.Pose pose = 2; double thickness = 3; bool scale_invariant = 4;
      repeated .foxglove.Point3 points = 5; .foxglove.Color color = 6;
    }`,
  'foxglove/TextPrimitive.proto': `package foxglove;
    message TextPrimitive {
      .foxglove.Pose pose = 1; bool billboard = 2; double font_size = 3; bool scale_invariant = 4;
      .foxglove.Color color = 5; string text = 6;
    }`,
  'foxglove/SceneEntityDeletion.proto': `package foxglove;
    message SceneEntityDeletion {
      enum Type { MATCHING_ID = 0; ALL = 1; }
      .google.protobuf.Timestamp timestamp = 1; Type type = 2; string id = 3;
    }`,
  'foxglove/SceneEntity.proto': `package foxglove;
    message SceneEntity {
      .google.protobuf.Timestamp timestamp = 1; string frame_id = 2; string id = 3;
      .google.protobuf.Duration lifetime = 4; bool frame_locked = 5; repeated .foxglove.KeyValuePair metadata = 6;
      repeated .foxglove.CubePrimitive cubes = 8; repeated .foxglove.LinePrimitive lines = 11;
      repeated .foxglove.TextPrimitive texts = 13;
    }`,
  'foxglove/SceneUpdate.proto': `package foxglove;
    message SceneUpdate {
      repeated .foxglove.SceneEntityDeletion deletions = 1; repeated .foxglove.SceneEntity entities = 2;
    }`,
};

/** The schemas a channel can carry (Foxglove recognises them by these names). */
export const FOXGLOVE_SCHEMAS = [
  'foxglove.PointCloud',
  'foxglove.FrameTransform',
  'foxglove.SceneUpdate',
] as const;
export type FoxgloveSchema = (typeof FOXGLOVE_SCHEMAS)[number];

let built: { root: protobuf.Root; fileOf: Map<string, string> } | null = null;

function build() {
  if (built) return built;
  const root = new protobuf.Root();
  const fileOf = new Map<string, string>();
  for (const [file, body] of Object.entries(FILES)) {
    const before = new Set(allTypeNames(root));
    protobuf.parse(`syntax = "proto3";\n${body}`, root, { keepCase: true });
    for (const n of allTypeNames(root)) if (!before.has(n)) fileOf.set(n, file);
  }
  root.resolveAll();
  return (built = { root, fileOf });
}

/** Fully qualified names (no leading dot) of the top-level messages under a namespace. */
function allTypeNames(ns: protobuf.NamespaceBase): string[] {
  const out: string[] = [];
  for (const n of ns.nestedArray) {
    if (n instanceof protobuf.Type) out.push(n.fullName.slice(1));
    else if (n instanceof protobuf.Namespace) out.push(...allTypeNames(n));
  }
  return out;
}

/** The protobufjs type of a schema or of a type it uses ('foxglove.Pose', …). */
export function foxgloveType(name: string): protobuf.Type {
  return build().root.lookupType(name);
}

/** The files a message type needs, dependencies first (each file once). */
function filesFor(typeName: string, order: string[] = []): string[] {
  const { root, fileOf } = build();
  const file = fileOf.get(typeName)!;
  if (order.includes(file)) return order;
  const t = root.lookupType(typeName);
  for (const f of t.fieldsArray) {
    const rt = f.resolvedType;
    if (rt instanceof protobuf.Type) filesFor(rt.fullName.slice(1), order);
  }
  order.push(file);
  return order;
}

/**
 * A message's DescriptorProto with every type reference fully qualified ('.foxglove.Pose'), as protoc writes
 * it: protobufjs writes the names relative to the scope, which not every runtime resolves.
 */
function qualifiedDescriptor(t: protobuf.Type): Record<string, unknown> {
  const d = descriptor.DescriptorProto.toObject(t.toDescriptor('proto3')) as {
    field?: { name: string; typeName?: string }[];
  };
  for (const f of d.field ?? []) {
    const rt = t.fields[f.name]?.resolvedType;
    if (f.typeName !== undefined && rt) f.typeName = rt.fullName;
  }
  return d;
}

const descriptorCache = new Map<string, Uint8Array>();

/**
 * The serialized google.protobuf.FileDescriptorSet of a schema: the MCAP Schema record's `data` for the
 * `protobuf` schema encoding (what Foxglove's MCAP spec asks for: the set holding the type and its deps).
 */
export function descriptorSet(schema: FoxgloveSchema): Uint8Array {
  const cached = descriptorCache.get(schema);
  if (cached) return cached;
  const { root, fileOf } = build();
  const files = filesFor(schema).map((file) => {
    const types = [...fileOf].filter(([, f]) => f === file).map(([t]) => root.lookupType(t));
    const deps = new Set<string>();
    for (const t of types)
      for (const f of t.fieldsArray)
        if (f.resolvedType instanceof protobuf.Type) deps.add(fileOf.get(f.resolvedType.fullName.slice(1))!);
    deps.delete(file);
    return {
      name: file,
      package: types[0].parent!.fullName.slice(1),
      dependency: [...deps],
      messageType: types.map(qualifiedDescriptor),
      syntax: 'proto3',
    };
  });
  const set = descriptor.FileDescriptorSet.fromObject({ file: files });
  const bytes = descriptor.FileDescriptorSet.encode(set).finish();
  descriptorCache.set(schema, bytes);
  return bytes;
}

/** Encode a plain object (snake_case field names, as in the .proto) as a message of `schema`. */
export function encodeFoxglove(schema: FoxgloveSchema, message: Record<string, unknown>): Uint8Array {
  const t = foxgloveType(schema);
  return t.encode(t.fromObject(message)).finish();
}

/** Decode a message of `schema` back to a plain object (longs and enums as numbers, absent fields as their defaults). */
export function decodeFoxglove(schema: FoxgloveSchema, bytes: Uint8Array): Record<string, unknown> {
  const t = foxgloveType(schema);
  return t.toObject(t.decode(bytes), { longs: Number, defaults: true }) as Record<string, unknown>;
}
