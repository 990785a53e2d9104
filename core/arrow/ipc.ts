// Arrow IPC in and out: single-batch stream messages (what a ZeroMQ frame carries), whole files written
// atomically, and random access to the record batches of a file without reading all of it.
import fs from 'node:fs';
import { Footer } from 'apache-arrow/ipc/metadata/file';
import { Message } from 'apache-arrow/ipc/metadata/message';
import { VectorLoader } from 'apache-arrow/visitor/vectorloader';
import {
  AsyncByteQueue,
  makeData,
  RecordBatch,
  RecordBatchFileWriter,
  RecordBatchReader,
  RecordBatchStreamWriter,
  Struct,
  Table,
  tableFromIPC,
  type Schema,
} from 'apache-arrow';
import { AtomicFileStream, writeFileAtomic } from '../atomic.ts';
import { Crc32c, crc32c, crc32cCombine } from '../crc32c.ts';
import { InputError } from '../errors.ts';

/** One record batch as Arrow IPC stream bytes (schema + batch + end marker). */
export function encodeBatch(batch: RecordBatch): Uint8Array {
  return RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true);
}

/**
 * Decode IPC stream bytes holding exactly one record batch. Throws on anything else. The common case
 * (schema message, one uncompressed batch without dictionaries, end marker) is read directly: the
 * streaming reader's generic machinery costs more than the decode itself on every stream message.
 * Anything else, including malformed bytes, goes through the full reader and its errors.
 */
export function decodeBatch(bytes: Uint8Array): RecordBatch {
  const direct = tryDecodeSingleBatch(bytes);
  if (direct) return direct;
  const reader = RecordBatchReader.from(bytes);
  const batches = reader.readAll();
  if (batches.length !== 1) throw new Error(`expected one record batch, got ${batches.length}`);
  return batches[0];
}

/** The IPC continuation token that starts every message of the current format. */
const CONTINUATION = 0xffffffff;

/** One encapsulated message at `at`: its decoded metadata and where its body lies, or null. */
function messageAt(bytes: Uint8Array, view: DataView, at: number) {
  if (at + 8 > bytes.length || view.getUint32(at, true) !== CONTINUATION) return null;
  const metaLength = view.getInt32(at + 4, true);
  const bodyStart = at + 8 + metaLength;
  if (metaLength <= 0 || bodyStart > bytes.length) return null;
  const message = Message.decode(bytes.subarray(at + 8, bodyStart));
  const bodyEnd = bodyStart + Number(message.bodyLength);
  if (bodyEnd > bytes.length) return null;
  return { message, body: bytes.subarray(bodyStart, bodyEnd), next: bodyEnd };
}

/** A record batch whose buffers point outside its message body: corrupt, whichever reader reads it. */
class BatchBodyError extends Error {}

/** The direct read, or null when it does not apply or the bytes are malformed (the full reader says why). */
function tryDecodeSingleBatch(bytes: Uint8Array): RecordBatch | null {
  try {
    return decodeSingleBatch(bytes);
  } catch (e) {
    if (e instanceof BatchBodyError) throw e;
    return null;
  }
}

/** The direct read of decodeBatch, or null where the bytes are not that common case. */
function decodeSingleBatch(bytes: Uint8Array): RecordBatch | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = messageAt(bytes, view, 0);
  if (!first || !first.message.isSchema() || first.body.length !== 0) return null;
  const schema = first.message.header();
  if (schema.dictionaries.size > 0) return null;
  const second = messageAt(bytes, view, first.next);
  if (!second || !second.message.isRecordBatch()) return null;
  const header = second.message.header();
  if (header.compression != null) return null;
  // Exactly one batch: the end marker (or the end of the bytes) must follow.
  const end = second.next;
  const atEnd =
    end === bytes.length ||
    (end + 8 <= bytes.length &&
      view.getUint32(end, true) === CONTINUATION &&
      view.getInt32(end + 4, true) === 0);
  if (!atEnd) return null;
  for (const b of header.buffers) {
    if (b.offset + b.length > second.body.length) {
      throw new BatchBodyError(
        `record batch buffer [${b.offset}, ${b.offset + b.length}) lies outside its ${second.body.length}-byte body`,
      );
    }
  }
  const loader = new VectorLoader(
    second.body,
    header.nodes,
    header.buffers,
    new Map(),
    schema.metadataVersion,
    header.variadicBufferCounts,
  );
  const children = loader.visitMany(schema.fields);
  const data = makeData({ type: new Struct(schema.fields), length: header.length, children });
  return new RecordBatch(schema, data, second.message.metadata);
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
  return parseArrowFile(fs.readFileSync(file), file);
}

/** Every batch of Arrow IPC bytes already read from `file` (named in errors). */
export function parseArrowFile(bytes: Uint8Array, file: string): { schema: Schema; batches: RecordBatch[] } {
  if (bytes.length === 0) throw new InputError(file, 'file is empty');
  try {
    const table = tableFromIPC(bytes);
    return { schema: table.schema, batches: table.batches };
  } catch (e) {
    throw new InputError(file, `not a readable Arrow IPC file (${(e as Error).message})`);
  }
}

/**
 * CRC32C of an Arrow IPC file in pieces that cover it exactly: `head` (magic and padding, up to the first
 * record batch), one per record batch block (message + body, as the footer locates it), and `tail`
 * (end marker, footer, footer length, magic). A reader checks one batch's checksum on the bytes it reads
 * anyway, so random access stays one read per frame; `file` is the whole file's checksum.
 */
export interface BlockChecksums {
  head: number;
  batches: number[];
  tail: number;
  file: number;
}

/** A byte sink for Arrow's writer that forwards every chunk straight to a file, checksumming it. */
class FileByteSink extends AsyncByteQueue {
  readonly crc = new Crc32c();
  constructor(private readonly out: AtomicFileStream) {
    super();
  }
  override write(value: Uint8Array): void {
    if (value.byteLength > 0) {
      this.out.write(value);
      this.crc.update(value);
    }
  }
}

/**
 * Incremental Arrow IPC file writer: batches go to disk as they come (memory stays flat for long
 * logs); the file appears at its path only on `close()`. Arrow JS writes the magic when the writer is
 * reset, each batch's block in one `write`, and the footer in `finish`, so the bytes of each call are
 * exactly the pieces of BlockChecksums (checked against the footer in `close`).
 */
export class ArrowFileAppender {
  private readonly out: AtomicFileStream;
  private readonly sink: FileByteSink;
  private readonly writer = new RecordBatchFileWriter();
  private readonly head: number;
  private readonly pieces: { offset: number; bytes: number; crc: number }[] = [];
  private sums: BlockChecksums | null = null;

  constructor(
    target: string,
    private readonly schema: Schema,
  ) {
    this.out = new AtomicFileStream(target);
    this.sink = new FileByteSink(this.out);
    this.writer.reset(this.sink, schema);
    this.head = this.sink.crc.value;
    this.sink.crc.reset();
  }

  append(batch: RecordBatch): void {
    const offset = this.out.bytesWritten;
    // Re-wrap so every batch carries the file's schema (metadata included).
    this.writer.write(new RecordBatch(this.schema, batch.data));
    this.pieces.push({ offset, bytes: this.sink.crc.bytes, crc: this.sink.crc.value });
    this.sink.crc.reset();
  }

  get batches(): number {
    return this.pieces.length;
  }

  /** The pieces' checksums, once closed. */
  get checksums(): BlockChecksums {
    if (!this.sums) throw new Error(`${this.out.target}: checksums are known once the file is closed`);
    return this.sums;
  }

  close(): void {
    const tailOffset = this.out.bytesWritten;
    this.writer.finish();
    const tail = this.sink.crc.value;
    const tailBytes = this.sink.crc.bytes;
    let file = this.head;
    for (const p of this.pieces) file = crc32cCombine(file, p.crc, p.bytes);
    file = crc32cCombine(file, tail, tailBytes);
    const footer = Footer.decode(this.footerBytes(tailOffset, tailBytes));
    this.pieces.forEach((p, i) => {
      const b = footer.getRecordBatch(i)!;
      if (Number(b.offset) !== p.offset || b.metaDataLength + Number(b.bodyLength) !== p.bytes)
        throw new Error(
          `${this.out.target}: batch ${i} was not written as one block (Arrow writer changed?)`,
        );
    });
    this.sums = { head: this.head, batches: this.pieces.map((p) => p.crc), tail, file };
    this.out.commit();
  }

  /** The footer flatbuffer, read back from the temporary file (it is small). */
  private footerBytes(tailOffset: number, tailBytes: number): Uint8Array {
    const fd = fs.openSync(this.out.tempPath, 'r');
    try {
      const size = tailOffset + tailBytes;
      const tail = readAt(fd, size - 10, 10, size);
      const length = new DataView(tail.buffer, tail.byteOffset).getInt32(0, true);
      return readAt(fd, size - 10 - length, length, size);
    } finally {
      fs.closeSync(fd);
    }
  }

  abort(): void {
    this.out.abort();
  }
}

const ARROW_MAGIC = 'ARROW1';
// End-of-stream marker of the IPC stream format: continuation token, zero length.
const EOS = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0);

/**
 * Random access to the record batches of an Arrow IPC file. The footer (block offsets) is read once;
 * each batch is then one positioned read into a fresh buffer laid out as a one-batch IPC stream
 * (cached schema message + the block + end marker), decoded without further copies.
 */
export class ArrowFileReader {
  private constructor(
    readonly file: string,
    private fd: number | null,
    /** The file's footer: schema and record batch blocks. */
    readonly footer: Footer,
    private readonly schemaMessage: Uint8Array,
    private readonly checksums: BlockChecksums | undefined,
  ) {}

  /** With `checksums` (from a manifest), head and tail are checked now and each batch when it is read. */
  static async open(file: string, checksums?: BlockChecksums): Promise<ArrowFileReader> {
    return ArrowFileReader.openSync(file, checksums);
  }

  static openSync(file: string, checksums?: BlockChecksums): ArrowFileReader {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      throw new InputError(file, 'no such file');
    }
    try {
      const { size } = fs.fstatSync(fd);
      if (size === 0) throw new Error('file is empty');
      const head = readAt(fd, 0, 8, size);
      const tail = readAt(fd, size - 10, 10, size);
      const magic = (b: Uint8Array, at: number) => Buffer.from(b.subarray(at, at + 6)).toString('latin1');
      if (magic(head, 0) !== ARROW_MAGIC || magic(tail, 4) !== ARROW_MAGIC) {
        throw new Error('not an Arrow IPC file (bad magic; truncated or stream format?)');
      }
      const footerLength = new DataView(tail.buffer, tail.byteOffset).getInt32(0, true);
      if (footerLength <= 0 || footerLength > size - 18) throw new Error(`bad footer length ${footerLength}`);
      const footer = Footer.decode(readAt(fd, size - 10 - footerLength, footerLength, size));
      // Arrow JS writes the schema only in the footer; re-encode it as a stream schema message.
      const stream = RecordBatchStreamWriter.writeAll(new Table(footer.schema)).toUint8Array(true);
      const schemaMessage = stream.subarray(0, stream.length - EOS.length);
      for (let i = 0; i < footer.numRecordBatches; i++) {
        const b = footer.getRecordBatch(i)!;
        if (b.offset + b.metaDataLength + b.bodyLength > size) {
          throw new Error(`record batch ${i} extends past the end of the file (truncated?)`);
        }
      }
      if (checksums) checkHeadAndTail(fd, footer, size, checksums);
      return new ArrowFileReader(file, fd, footer, schemaMessage, checksums);
    } catch (e) {
      fs.closeSync(fd);
      throw e instanceof InputError ? e : new InputError(file, (e as Error).message);
    }
  }

  get schema(): Schema {
    return this.footer.schema;
  }

  get numBatches(): number {
    return this.footer.numRecordBatches;
  }

  async read(index: number): Promise<RecordBatch> {
    return this.readSync(index);
  }

  readSync(index: number): RecordBatch {
    if (this.fd === null) throw new Error(`${this.file}: reader is closed`);
    if (!Number.isInteger(index) || index < 0 || index >= this.numBatches) {
      throw new InputError(this.file, `batch ${index} out of range [0, ${this.numBatches})`);
    }
    const block = this.footer.getRecordBatch(index)!;
    const blockLength = block.metaDataLength + block.bodyLength;
    const head = this.schemaMessage.length;
    const bytes = Buffer.allocUnsafe(head + blockLength + EOS.length);
    bytes.set(this.schemaMessage, 0);
    let got = 0;
    while (got < blockLength) {
      const n = fs.readSync(this.fd, bytes, head + got, blockLength - got, block.offset + got);
      if (n === 0) throw new InputError(this.file, `batch ${index} is truncated`);
      got += n;
    }
    bytes.set(EOS, head + blockLength);
    if (
      this.checksums &&
      crc32c(bytes.subarray(head, head + blockLength)) !== this.checksums.batches[index]
    ) {
      throw new InputError(
        this.file,
        `batch ${index} does not match its checksum in manifest.json (corrupt; \`drivekit verify\` checks the whole log)`,
      );
    }
    try {
      return decodeBatch(bytes);
    } catch (e) {
      throw new InputError(this.file, `batch ${index} could not be decoded (${(e as Error).message})`);
    }
  }

  async close(): Promise<void> {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * The piece checksums of an existing Arrow IPC file, read once from disk (for files written before
 * manifests, and to say which batches of a damaged file differ from their listed checksums).
 */
export function fileBlockChecksums(file: string): BlockChecksums {
  const reader = ArrowFileReader.openSync(file);
  const fd = fs.openSync(file, 'r');
  try {
    const { size } = fs.fstatSync(fd);
    const footer = reader.footer;
    const { headEnd, tailStart } = headAndTailRanges(footer);
    const head = crc32c(readAt(fd, 0, headEnd, size));
    let whole = head;
    const batches: number[] = [];
    for (let i = 0; i < footer.numRecordBatches; i++) {
      const b = footer.getRecordBatch(i)!;
      const length = b.metaDataLength + Number(b.bodyLength);
      const crc = crc32c(readAt(fd, Number(b.offset), length, size));
      batches.push(crc);
      whole = crc32cCombine(whole, crc, length);
    }
    const tail = crc32c(readAt(fd, tailStart, size - tailStart, size));
    return { head, batches, tail, file: crc32cCombine(whole, tail, size - tailStart) };
  } finally {
    fs.closeSync(fd);
    void reader.close();
  }
}

/** The ranges [0, first block) and [end of last block, end of file) of an Arrow file. */
export function headAndTailRanges(footer: Footer): { headEnd: number; tailStart: number } {
  const n = footer.numRecordBatches;
  if (n === 0) return { headEnd: 8, tailStart: 8 };
  const last = footer.getRecordBatch(n - 1)!;
  return {
    headEnd: Number(footer.getRecordBatch(0)!.offset),
    tailStart: Number(last.offset) + last.metaDataLength + Number(last.bodyLength),
  };
}

function checkHeadAndTail(fd: number, footer: Footer, size: number, sums: BlockChecksums): void {
  if (footer.numRecordBatches !== sums.batches.length) {
    throw new Error(
      `has ${footer.numRecordBatches} record batches, manifest.json lists ${sums.batches.length}`,
    );
  }
  const { headEnd, tailStart } = headAndTailRanges(footer);
  if (headEnd > size || tailStart > size) throw new Error('footer points past the end of the file (corrupt)');
  if (
    crc32c(readAt(fd, 0, headEnd, size)) !== sums.head ||
    crc32c(readAt(fd, tailStart, size - tailStart, size)) !== sums.tail
  ) {
    throw new Error('header or footer does not match its checksum in manifest.json (corrupt)');
  }
}

function readAt(fd: number, position: number, length: number, size: number): Uint8Array {
  if (position < 0 || position + length > size) throw new Error('file is truncated');
  const out = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, out, got, length - got, position + got);
    if (n === 0) throw new Error('file is truncated');
    got += n;
  }
  return out;
}
