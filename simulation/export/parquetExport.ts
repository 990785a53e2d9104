// The scenario export tables (exportTables.ts) as Parquet files (hyparquet-writer), one table per file, that
// pandas, Polars and DuckDB read: named values as dictionary-encoded strings, the layout's key-value metadata.
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import type { ExportColumn, ExportTable } from './exportTables.ts';

const PARQUET_TYPES = { int32: 'INT32', float32: 'FLOAT', bool: 'BOOLEAN', category: 'STRING' } as const;

/** Column values as the writer takes them: NaN of a nullable float column is null. */
function values(c: ExportColumn): unknown[] {
  if (c.kind === 'bool') return Array.from(c.values as Uint8Array, (v) => v === 1);
  if (c.kind === 'float32' && c.nullable)
    return Array.from(c.values as Float32Array, (v) => (Number.isNaN(v) ? null : v));
  return Array.from(c.values as ArrayLike<unknown>);
}

/** One export table as Parquet bytes. */
export function exportTableParquet(t: ExportTable): Uint8Array {
  const buf = parquetWriteBuffer({
    columnData: t.columns.map((c) => ({
      name: c.name,
      data: values(c) as never,
      type: PARQUET_TYPES[c.kind],
      nullable: c.nullable,
      // Named values always as a dictionary page plus indices (read as categories), whatever the sample says.
      ...(c.kind === 'category' ? { encoding: 'RLE_DICTIONARY' as const } : {}),
    })),
    kvMetadata: Object.entries(t.metadata).map(([key, value]) => ({ key, value })),
  });
  return new Uint8Array(buf);
}

/** Write each table as `<dir>/<name>.parquet` (atomically); returns the files. */
export function writeParquetTables(tables: readonly ExportTable[], dir: string): string[] {
  return tables.map((t) => {
    const file = path.join(dir, `${t.name}.parquet`);
    writeFileAtomicSync(file, exportTableParquet(t));
    return file;
  });
}
