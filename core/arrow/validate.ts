// Schema validation: checks a batch against the expected record kind and names the missing or
// mistyped column, so a bad file or stream message fails with a message a person can act on.
import { type Schema, DataType } from 'apache-arrow';
import {
  FIELDS,
  OPTIONAL_ON_READ,
  READABLE_VERSIONS,
  SCHEMA_KEY,
  SCHEMA_VERSIONS,
  type RecordKind,
} from './schemas.ts';

export class SchemaError extends Error {
  override name = 'SchemaError';
}

/** A string column as common writers produce it: Utf8, LargeUtf8 (pyarrow), Utf8View (Polars), dictionary. */
function isStringType(t: DataType): boolean {
  if (DataType.isDictionary(t)) return isStringType(t.dictionary);
  return DataType.isUtf8(t) || DataType.isLargeUtf8(t) || DataType.isUtf8View(t);
}

/**
 * Whether a column of type `actual` can be read as `expected` (issue 19): any integer width for integer
 * columns (Polars and pandas write Int64 indices), any float or integer for float columns, any string
 * encoding for strings, integers for booleans. Readers convert (columns.ts `readColumnAs`); exact types
 * stay zero-copy views. Fixed-size lists (poses, token grids) must match their child type exactly.
 */
export function readableAs(actual: DataType, expected: DataType): boolean {
  if (DataType.isInt(expected)) return DataType.isInt(actual);
  // Times: Timestamp of any unit (converted to ns on read), or int64 ns as poses/1 and boxes/3 wrote them.
  if (DataType.isTimestamp(expected)) return DataType.isTimestamp(actual) || DataType.isInt(actual);
  if (DataType.isFloat(expected)) return DataType.isFloat(actual) || DataType.isInt(actual);
  // Strings, plain or dictionary-encoded (what drivekit writes for named values), read as either.
  if (DataType.isUtf8(expected) || isStringType(expected)) return isStringType(actual);
  if (DataType.isBool(expected)) return DataType.isBool(actual) || DataType.isInt(actual);
  return sameType(actual, expected);
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
  if (version !== undefined && !READABLE_VERSIONS[kind].includes(version)) {
    throw new SchemaError(
      `${where}: schema is ${version}, expected ${READABLE_VERSIONS[kind].join(' or ')} (a newer drivekit wrote it?)`,
    );
  }
  for (const field of FIELDS[kind]) {
    const actual = schema.fields.find((c) => c.name === field.name);
    if (!actual && OPTIONAL_ON_READ[kind]?.includes(field.name)) continue;
    if (!actual) throw new SchemaError(`${where}: column '${field.name}' is missing (${expectedVersion})`);
    if (!readableAs(actual.type, field.type)) {
      throw new SchemaError(
        `${where}: column '${field.name}' has type ${String(actual.type)}, expected ${String(field.type)}`,
      );
    }
  }
}
