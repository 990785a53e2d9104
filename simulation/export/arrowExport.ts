// The scenario export tables (exportTables.ts) as Arrow IPC files, one table per file: named values as
// Dictionary<Int32, Utf8>, nullable columns with validity bitmaps, the layout's metadata on each schema.
import path from 'node:path';
import { Bool, type Data, type DataType, Field, Float32, Int32, makeData, Schema } from 'apache-arrow';
import { batchFromColumns, boolData, numericData } from '../../core/arrow/columns.ts';
import { dictUtf8Data, dictUtf8Type } from '../../core/arrow/dictionary.ts';
import { writeArrowFile } from '../../core/arrow/ipc.ts';
import type { ExportColumn, ExportTable } from './exportTables.ts';

const ARROW_TYPES: Record<ExportColumn['kind'], () => DataType> = {
  int32: () => new Int32(),
  float32: () => new Float32(),
  bool: () => new Bool(),
  category: dictUtf8Type,
};

/** A float32 column whose NaNs are nulls. */
function floatWithNulls(v: Float32Array): Data {
  let nulls = 0;
  const bits = new Uint8Array((v.length + 7) >> 3);
  for (let i = 0; i < v.length; i++)
    if (Number.isNaN(v[i])) nulls++;
    else bits[i >> 3] |= 1 << (i & 7);
  if (nulls === 0) return numericData(v);
  return makeData({ type: new Float32(), length: v.length, nullCount: nulls, nullBitmap: bits, data: v });
}

function columnData(c: ExportColumn): Data {
  if (c.kind === 'category') return dictUtf8Data(c.values as (string | null)[]);
  if (c.kind === 'bool') return boolData(c.values as Uint8Array);
  if (c.kind === 'float32' && c.nullable) return floatWithNulls(c.values as Float32Array);
  return numericData(c.values as Int32Array | Float32Array);
}

/** The Arrow schema of an export table (fields, nullability, metadata). */
export function exportTableSchema(t: ExportTable): Schema {
  return new Schema(
    t.columns.map((c) => new Field(c.name, ARROW_TYPES[c.kind](), c.nullable)),
    new Map(Object.entries(t.metadata)),
  );
}

/** Write each table as `<dir>/<name>.arrow` (one record batch; atomically); returns the files. */
export async function writeArrowTables(tables: readonly ExportTable[], dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const t of tables) {
    const file = path.join(dir, `${t.name}.arrow`);
    const schema = exportTableSchema(t);
    await writeArrowFile(file, [batchFromColumns(schema, t.columns.map(columnData))], schema);
    files.push(file);
  }
  return files;
}
