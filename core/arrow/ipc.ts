// Arrow IPC in and out: single-batch stream messages (what a ZeroMQ frame carries), whole files written
// atomically, and random access to the record batches of a file without reading all of it.
import fs from 'node:fs';
import {
  AsyncByteQueue,
  type AsyncRecordBatchFileReader,
  RecordBatch,
  RecordBatchFileWriter,
  RecordBatchReader,
  RecordBatchStreamWriter,
  Table,
  tableFromIPC,
  type Schema,
} from 'apache-arrow';
import { AtomicFileStream, writeFileAtomic } from '../atomic.ts';
import { InputError } from '../errors.ts';

/** One record batch as Arrow IPC stream bytes (schema + batch + end marker). */
export function encodeBatch(batch: RecordBatch): Uint8Array {
  return RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true);
}

/** Decode IPC stream bytes holding exactly one record batch. Throws on anything else. */
export function decodeBatch(bytes: Uint8Array): RecordBatch {
  const reader = RecordBatchReader.from(bytes);
  const batches = reader.readAll();
  if (batches.length !== 1) throw new Error(`expected one record batch, got ${batches.length}`);
  return batches[0];
}

/** Write batches (sharing one schema) as an Arrow IPC file, atomically. */
export async function writeArrowFile(
  target: string,
  batches: readonly RecordBatch[],
  schema?: Schema,
): Promise<void> {
  const table = batches.length ? new Table(batches) : new Table(schema!);
  const writer = RecordBatchFileWriter.writeAll(table);
  await writeFileAtomic(target, writer.toUint8Array(true));
}

/** Read every batch of an Arrow IPC file (file or stream format). */
export function readArrowFile(file: string): { schema: Schema; batches: RecordBatch[] } {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such file');
  const bytes = fs.readFileSync(file);
  if (bytes.length === 0) throw new InputError(file, 'file is empty');
  try {
    const table = tableFromIPC(bytes);
    return { schema: table.schema, batches: table.batches };
  } catch (e) {
    throw new InputError(file, `not a readable Arrow IPC file (${(e as Error).message})`);
  }
}

/** A byte sink for Arrow's writer that forwards every chunk straight to a file. */
class FileByteSink extends AsyncByteQueue {
  constructor(private readonly out: AtomicFileStream) {
    super();
  }
  override write(value: Uint8Array): void {
    if (value.byteLength > 0) this.out.write(value);
  }
}

/**
 * Incremental Arrow IPC file writer: batches go to disk as they come (memory stays flat for long
 * logs); the file appears at its path only on `close()`.
 */
export class ArrowFileAppender {
  private readonly out: AtomicFileStream;
  private readonly writer = new RecordBatchFileWriter();
  private count = 0;

  constructor(
    target: string,
    private readonly schema: Schema,
  ) {
    this.out = new AtomicFileStream(target);
    this.writer.reset(new FileByteSink(this.out), schema);
  }

  append(batch: RecordBatch): void {
    // Re-wrap so every batch carries the file's schema (metadata included).
    this.writer.write(new RecordBatch(this.schema, batch.data));
    this.count++;
  }

  get batches(): number {
    return this.count;
  }

  close(): void {
    this.writer.finish();
    this.out.commit();
  }

  abort(): void {
    this.out.abort();
  }
}

/** Random access to the record batches of an Arrow IPC file. */
export class ArrowFileReader {
  private constructor(
    readonly file: string,
    private readonly handle: fs.promises.FileHandle,
    private readonly reader: AsyncRecordBatchFileReader,
  ) {}

  static async open(file: string): Promise<ArrowFileReader> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, 'r');
    } catch {
      throw new InputError(file, 'no such file');
    }
    try {
      const { size } = await handle.stat();
      if (size === 0) throw new Error('file is empty');
      const reader = await RecordBatchReader.from(handle);
      await reader.open();
      if (!reader.isFile()) throw new Error('not an Arrow IPC file (stream format has no random access)');
      return new ArrowFileReader(file, handle, reader as unknown as AsyncRecordBatchFileReader);
    } catch (e) {
      await handle.close();
      throw new InputError(file, (e as Error).message);
    }
  }

  get schema(): Schema {
    return this.reader.schema;
  }

  get numBatches(): number {
    return this.reader.numRecordBatches;
  }

  async read(index: number): Promise<RecordBatch> {
    if (!Number.isInteger(index) || index < 0 || index >= this.numBatches) {
      throw new InputError(this.file, `batch ${index} out of range [0, ${this.numBatches})`);
    }
    const batch = await this.reader.readRecordBatch(index);
    if (!batch) throw new InputError(this.file, `batch ${index} could not be read (truncated file?)`);
    return batch;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
