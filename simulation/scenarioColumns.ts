// List and number columns of the scenario tables (scenarioTables.ts, scenarioLaneLinks.ts): per-row
// typed arrays to Arrow list columns and back (copies: rows are small and few).
import {
  type Data,
  type DataType,
  Field,
  Float32,
  Int32,
  List,
  makeData,
  type RecordBatch,
  Uint8,
} from 'apache-arrow';

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
