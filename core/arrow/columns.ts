// Column helpers between typed arrays and Arrow Data: wrap without copying where the layouts agree
// (numeric columns), encode where they do not (utf8 strings, bit-packed booleans).
import {
  Bool,
  type Data,
  DataType,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
  Int64,
  makeData,
  type RecordBatch,
  Struct,
  TimeUnit,
  TimestampNanosecond,
  type Timestamp,
  Uint16,
  Utf8,
  RecordBatch as RecordBatchCtor,
  type Schema,
} from 'apache-arrow';

type Numeric = Float32Array | Float64Array | Int32Array | Uint16Array | BigInt64Array;

function numericType(a: Numeric): DataType {
  if (a instanceof Float32Array) return new Float32();
  if (a instanceof Float64Array) return new Float64();
  if (a instanceof Int32Array) return new Int32();
  if (a instanceof Uint16Array) return new Uint16();
  return new Int64();
}

/** Wrap a typed array as an Arrow column without copying. */
export function numericData(values: Numeric): Data {
  return makeData({ type: numericType(values), length: values.length, nullCount: 0, data: values } as never);
}

/** Nanosecond times as a Timestamp(ns) column (no copy); `valid` (a validity bitmap) marks rows with a time. */
export function timestampNsData(values: BigInt64Array, valid?: Uint8Array, nulls = 0): Data {
  return makeData({
    type: new TimestampNanosecond(),
    length: values.length,
    nullCount: nulls,
    ...(nulls ? { nullBitmap: valid } : {}),
    data: values,
  });
}

const NS_PER_UNIT: Record<number, bigint> = {
  [TimeUnit.SECOND]: 1_000_000_000n,
  [TimeUnit.MILLISECOND]: 1_000_000n,
  [TimeUnit.MICROSECOND]: 1_000n,
  [TimeUnit.NANOSECOND]: 1n,
};

/**
 * A time column as nanoseconds: Timestamp of any unit (scaled; a view for ns without nulls) or an integer
 * column of nanoseconds (what poses/1 and boxes/3 wrote); nulls become 0.
 */
export function readTimestampNs(batch: RecordBatch, name: string): BigInt64Array {
  const col = batch.getChild(name);
  if (!col) throw new Error(`column '${name}' is missing`);
  if (!DataType.isTimestamp(col.type)) return readColumnAs(batch, name, BigInt64Array);
  const scale = NS_PER_UNIT[(col.type as Timestamp).unit];
  const one = col.data.length === 1 ? col.data[0] : null;
  if (one && one.nullCount === 0 && scale === 1n)
    return (one.values as BigInt64Array).subarray(one.offset, one.offset + one.length);
  const out = new BigInt64Array(col.length);
  let k = 0;
  for (const d of col.data) {
    const v = d.values as BigInt64Array;
    for (let i = 0; i < d.length; i++, k++) out[k] = d.getValid(i) ? v[d.offset + i] * scale : 0n;
  }
  return out;
}

/**
 * An Int32 column where `missing` (the in-memory marker, e.g. −1 for "no track") is written as null, so
 * other readers see a missing value instead of a sentinel. Without such rows it is a plain view.
 */
export function int32DataWithNulls(values: Int32Array, missing: number): Data {
  let nulls = 0;
  for (let i = 0; i < values.length; i++) if (values[i] === missing) nulls++;
  if (nulls === 0) return numericData(values);
  const bits = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++) if (values[i] !== missing) bits[i >> 3] |= 1 << (i & 7);
  return makeData({
    type: new Int32(),
    length: values.length,
    nullCount: nulls,
    nullBitmap: bits,
    data: values,
  });
}

/** A FixedSizeList column of `size` values per row over a flat typed array (no copy). */
export function fixedListData(values: Float64Array | Float32Array | Int32Array, size: number): Data {
  if (values.length % size !== 0)
    throw new Error(`fixed list: ${values.length} values is not a multiple of ${size}`);
  const child = numericData(values);
  const type = new FixedSizeList(size, new Field('item', child.type, false));
  return makeData({ type, length: values.length / size, nullCount: 0, child });
}

export function utf8Data(strings: readonly string[]): Data {
  const enc = new TextEncoder();
  const encoded = strings.map((s) => enc.encode(s));
  const offsets = new Int32Array(strings.length + 1);
  for (let i = 0; i < encoded.length; i++) offsets[i + 1] = offsets[i] + encoded[i].length;
  const bytes = new Uint8Array(offsets[strings.length]);
  for (let i = 0; i < encoded.length; i++) bytes.set(encoded[i], offsets[i]);
  return makeData({
    type: new Utf8(),
    length: strings.length,
    nullCount: 0,
    valueOffsets: offsets,
    data: bytes,
  });
}

export function boolData(values: Uint8Array): Data {
  const bits = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++) if (values[i]) bits[i >> 3] |= 1 << (i & 7);
  return makeData({ type: new Bool(), length: values.length, nullCount: 0, data: bits });
}

/** A record batch from a schema and one Data per field, in field order. */
export function batchFromColumns(schema: Schema, columns: Data[]): RecordBatch {
  const length = columns.length ? columns[0].length : 0;
  for (let i = 0; i < columns.length; i++) {
    if (columns[i].length !== length) {
      throw new Error(`column '${schema.fields[i].name}' has ${columns[i].length} rows, expected ${length}`);
    }
  }
  const data = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: columns });
  return new RecordBatchCtor(schema, data);
}

function columnData(batch: RecordBatch, name: string): Data {
  const col = batch.getChild(name);
  if (!col) throw new Error(`column '${name}' is missing`);
  if (col.data.length !== 1) throw new Error(`column '${name}' has ${col.data.length} chunks, expected 1`);
  return col.data[0];
}

/** A numeric column's values as a typed-array view (no copy). */
export function readNumeric<T extends Numeric>(batch: RecordBatch, name: string): T {
  const d = columnData(batch, name);
  return (d.values as T).subarray(d.offset, d.offset + d.length) as T;
}

/** A FixedSizeList<number> column's values flattened (no copy). */
export function readFixedList<T extends Float64Array | Float32Array | Int32Array>(
  batch: RecordBatch,
  name: string,
): T {
  const d = columnData(batch, name);
  const size = (d.type as FixedSizeList).listSize;
  const child = d.children[0];
  const start = (child.offset + d.offset * size) | 0;
  return (child.values as T).subarray(start, start + d.length * size) as T;
}

type NumericCtor<T> = { new (n: number): T; readonly BYTES_PER_ELEMENT: number };

/**
 * A numeric column as a `ctor` array: a view when the column already has that layout and no nulls (the
 * hot path: frames and boxes drivekit wrote), else converted row by row, nulls becoming `nullValue`.
 * This is how files from other writers are read (issue 19): Int64 indices (Polars, pandas), Float64
 * values, integer booleans, dictionary-encoded numbers. Integers out of the target's range are an error.
 */
export function readColumnAs<T extends Numeric | Uint8Array>(
  batch: RecordBatch,
  name: string,
  ctor: NumericCtor<T>,
  nullValue = 0,
): T {
  const col = batch.getChild(name);
  if (!col) throw new Error(`column '${name}' is missing`);
  const one = col.data.length === 1 ? col.data[0] : null;
  if (
    one &&
    one.nullCount === 0 &&
    one.values instanceof ctor &&
    !DataType.isDictionary(one.type) &&
    !DataType.isBool(one.type)
  ) {
    return (one.values as T).subarray(one.offset, one.offset + one.length) as T;
  }
  const n = col.length;
  const out = new ctor(n);
  const big = out instanceof BigInt64Array;
  const intTarget = out instanceof Int32Array || out instanceof Uint16Array || out instanceof Uint8Array;
  const probe = intTarget ? new ctor(1) : null;
  for (let i = 0; i < n; i++) {
    const v = col.get(i) as number | bigint | boolean | null;
    if (big) {
      (out as BigInt64Array)[i] = v === null ? BigInt(nullValue) : BigInt(v as number | bigint);
      continue;
    }
    const x = v === null ? nullValue : Number(v);
    if (probe) {
      probe[0] = x;
      if (probe[0] !== x)
        throw new Error(`column '${name}': row ${i} holds ${String(v)}, outside the range of ${ctor.name}`);
    }
    out[i] = x;
  }
  return out;
}

/** A string column (Utf8, LargeUtf8, Utf8View or dictionary-encoded) as strings; nulls become `nullValue`. */
export function readUtf8(batch: RecordBatch, name: string, nullValue = ''): string[] {
  const col = batch.getChild(name);
  if (!col) throw new Error(`column '${name}' is missing`);
  const out = new Array<string>(col.length);
  for (let i = 0; i < col.length; i++) {
    const v = col.get(i) as unknown;
    out[i] = v === null || v === undefined ? nullValue : String(v);
  }
  return out;
}

/** A boolean column (or integers, 0 = false) as 0/1 bytes; nulls are false. */
export function readBool(batch: RecordBatch, name: string): Uint8Array {
  const col = batch.getChild(name);
  if (!col) throw new Error(`column '${name}' is missing`);
  const out = new Uint8Array(col.length);
  for (let i = 0; i < col.length; i++) out[i] = col.get(i) ? 1 : 0;
  return out;
}
