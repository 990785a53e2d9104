// Schema validation: checks a batch against the expected record kind and names the missing or
// mistyped column, so a bad file or stream message fails with a message a person can act on.
import { type Schema, DataType } from 'apache-arrow';
import { FIELDS, SCHEMA_KEY, SCHEMA_VERSIONS, type RecordKind } from './schemas.ts';

export class SchemaError extends Error {
  override name = 'SchemaError';
}

function sameType(actual: DataType, expected: DataType): boolean {
  if (actual.typeId !== expected.typeId) return false;
  // FixedSizeList sizes vary (token grids); compare the child types only.
  if (DataType.isFixedSizeList(actual) && DataType.isFixedSizeList(expected)) {
    return sameType(actual.children[0].type, expected.children[0].type);
  }
  return String(actual) === String(expected);
}

/** Throws a SchemaError naming the first problem; returns nothing when the schema fits. */
export function validateSchema(schema: Schema, kind: RecordKind, where = 'batch'): void {
  const version = schema.metadata.get(SCHEMA_KEY);
  const expectedVersion = SCHEMA_VERSIONS[kind];
  if (version !== undefined && version !== expectedVersion) {
    throw new SchemaError(`${where}: schema is ${version}, expected ${expectedVersion}`);
  }
  for (const field of FIELDS[kind]) {
    const actual = schema.fields.find((c) => c.name === field.name);
    if (!actual) throw new SchemaError(`${where}: column '${field.name}' is missing (${expectedVersion})`);
    if (!sameType(actual.type, field.type)) {
      throw new SchemaError(
        `${where}: column '${field.name}' has type ${String(actual.type)}, expected ${String(field.type)}`,
      );
    }
  }
}
