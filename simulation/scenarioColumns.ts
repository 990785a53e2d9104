// List and number columns of the scenario tables (scenarioTables.ts, scenarioLaneLinks.ts): per-row
// typed arrays to Arrow list columns and back (copies: rows are small and few).
import {
  type Data,
  type DataType,
  type Dictionary,
  Field,
  Float32,
  Int32,
  List,
  makeData,
  type RecordBatch,
  Uint8,
} from 'apache-arrow';
import { dictCodeData } from '../core/arrow/dictionary.ts';

export const listOf = (t: DataType) => new List(new Field('item', t, false));

export type ListValues = Float32Array | Int32Array | Uint8Array;

/** A list column from per-row arrays (concatenated into one child buffer plus offsets). */
export function listData(rows: readonly ArrayLike<number>[], make: (n: number) => ListValues): Data {
  const offsets = new Int32Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) offsets[i + 1] = offsets[i] + rows[i].length;
  const values = make(offsets[rows.length]);
  for (let i = 0; i < rows.length; i++) values.set(rows[i], offsets[i]);
  const childType =
    values instanceof Float32Array ? new Float32() : values instanceof Int32Array ? new Int32() : new Uint8();
  const child = makeData({ type: childType, length: values.length, nullCount: 0, data: values } as never);
  return makeData({
    type: listOf(childType),
    length: rows.length,
    nullCount: 0,
    valueOffsets: offsets,
    child,
  });
}

/** The rows of a list column as copies of the right typed array. */
export function readList<T extends ListValues>(batch: RecordBatch, name: string): T[] {
  const out: T[] = [];
  const col = batch.getChild(name)!;
  for (const d of col.data) {
    const offsets = d.valueOffsets as Int32Array;
    const child = d.children[0];
    const values = child.values as T;
    for (let i = 0; i < d.length; i++) {
      const a = offsets[d.offset + i] + child.offset;
      const b = offsets[d.offset + i + 1] + child.offset;
      out.push(values.slice(a, b) as T);
    }
  }
  return out;
}

export function readNumbers(batch: RecordBatch, name: string): Float64Array {
  const col = batch.getChild(name)!;
  const out = new Float64Array(col.length);
  let k = 0;
  for (const d of col.data) {
    const v = d.values as Float32Array | Int32Array;
    for (let i = 0; i < d.length; i++) out[k++] = v[d.offset + i];
  }
  return out;
}

/** A list of named codes (dictionary-encoded, index = code); nullable items where a code means "none". */
export const codeListType = (type: Dictionary, nullable = false) =>
  new List(new Field('item', type, nullable));

/** Per-row code arrays as a list of dictionary-encoded names; `nullCode` entries become nulls. */
export function codeListData(
  rows: readonly Uint8Array[],
  vocabulary: readonly string[],
  type: Dictionary,
  nullCode?: number,
): Data {
  const offsets = new Int32Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) offsets[i + 1] = offsets[i] + rows[i].length;
  const codes = new Uint8Array(offsets[rows.length]);
  rows.forEach((r, i) => codes.set(r, offsets[i]));
  const child = dictCodeData(codes, vocabulary, nullCode === undefined ? [] : [nullCode], type);
  return makeData({
    type: codeListType(type, nullCode !== undefined),
    length: rows.length,
    nullCount: 0,
    valueOffsets: offsets,
    child,
  } as never);
}

/**
 * The rows of a list of codes as Uint8Arrays: dictionary-encoded names (their index is the code) or
 * plain integer codes (/1 files); null items become `nullCode`.
 */
export function readCodeList(batch: RecordBatch, name: string, nullCode: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const col = batch.getChild(name)!;
  for (const d of col.data) {
    const offsets = d.valueOffsets as Int32Array;
    const child = d.children[0];
    const values = child.values as ArrayLike<number>;
    const valid = child.nullCount > 0 ? child.nullBitmap : null;
    for (let i = 0; i < d.length; i++) {
      const a = offsets[d.offset + i];
      const b = offsets[d.offset + i + 1];
      const row = new Uint8Array(b - a);
      for (let k = a; k < b; k++) {
        const j = k + child.offset;
        const isNull = valid !== null && valid !== undefined && (valid[j >> 3] & (1 << (j & 7))) === 0;
        row[k - a] = isNull ? nullCode : values[j];
      }
      out.push(row);
    }
  }
  return out;
}
