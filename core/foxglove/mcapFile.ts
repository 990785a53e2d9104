// An MCAP file of Foxglove protobuf messages (@mcap/core's writer: chunked, lz4-compressed, indexed, with
// statistics), written to a temporary sibling and renamed into place on close, so a killed export never leaves
// half a file.
import { McapWriter } from '@mcap/core';
import { AtomicFileStream } from '../atomic.ts';
import { lz4FrameCompress } from '../lz4Compress.ts';
import { describeErrno, InputError } from '../errors.ts';
import { descriptorSet, encodeFoxglove, type FoxgloveSchema } from './schemas.ts';

/** What a channel carries. */
export interface McapChannelSpec {
  topic: string;
  schema: FoxgloveSchema;
  /** Channel metadata (e.g. the log a topic came from). */
  metadata?: Record<string, string>;
}

/** Settings of the writer. */
export interface McapFileOptions {
  /** Uncompressed chunk size in bytes (the unit of random access for a reader). */
  chunkBytes: number;
  /** The MCAP header's profile ('' = none: the messages carry their own schemas). */
  profile: string;
  /** The MCAP header's library string (who wrote the file). */
  library: string;
  /** Chunk compression: 'lz4' (the LZ4 frame format MCAP readers and Foxglove decode) or '' (none). */
  compression: 'lz4' | '';
}

export const DEFAULT_MCAP_FILE_OPTIONS: McapFileOptions = {
  // @mcap/core's own default: under one 120k-point sweep (2.4 MB) a chunk, so a reader seeks frame by frame.
  chunkBytes: 1024 * 1024,
  profile: '',
  library: 'drivekit',
  // Node 20 has no zstd and drivekit takes no native codec: lz4 is written by core/lz4Compress.ts.
  compression: 'lz4',
};

export class McapFile {
  private readonly stream: AtomicFileStream;
  private readonly writer: McapWriter;
  private readonly schemaIds = new Map<FoxgloveSchema, number>();
  private readonly channels = new Map<string, { id: number; schema: FoxgloveSchema; sequence: number }>();
  private messages = 0;

  private constructor(
    readonly target: string,
    opts: McapFileOptions,
  ) {
    try {
      this.stream = new AtomicFileStream(target);
    } catch (e) {
      throw new InputError(target, `cannot write (${describeErrno(e)})`);
    }
    const stream = this.stream;
    this.writer = new McapWriter({
      writable: {
        write: async (b: Uint8Array) => stream.write(b),
        position: () => BigInt(stream.bytesWritten),
      },
      chunkSize: opts.chunkBytes,
      ...(opts.compression === 'lz4'
        ? {
            compressChunk: (data: Uint8Array) => ({
              compression: 'lz4',
              compressedData: lz4FrameCompress(data),
            }),
          }
        : {}),
    });
  }

  /** Start a file at `target` (created at a temporary sibling until close()). */
  static async create(target: string, opts: Partial<McapFileOptions> = {}): Promise<McapFile> {
    const o = { ...DEFAULT_MCAP_FILE_OPTIONS, ...opts };
    const f = new McapFile(target, o);
    try {
      await f.writer.start({ profile: o.profile, library: o.library });
    } catch (e) {
      f.abort();
      throw e;
    }
    return f;
  }

  /** Register a channel (its schema once per file); messages name it by topic. */
  async addChannel(spec: McapChannelSpec): Promise<void> {
    if (this.channels.has(spec.topic)) throw new Error(`MCAP channel ${spec.topic} registered twice`);
    let schemaId = this.schemaIds.get(spec.schema);
    if (schemaId === undefined) {
      schemaId = await this.writer.registerSchema({
        name: spec.schema,
        encoding: 'protobuf',
        data: descriptorSet(spec.schema),
      });
      this.schemaIds.set(spec.schema, schemaId);
    }
    const id = await this.writer.registerChannel({
      topic: spec.topic,
      schemaId,
      messageEncoding: 'protobuf',
      metadata: new Map(Object.entries(spec.metadata ?? {})),
    });
    this.channels.set(spec.topic, { id, schema: spec.schema, sequence: 0 });
  }

  /** Encode `message` with its channel's schema and append it at log time `ns`. */
  async add(topic: string, ns: bigint, message: Record<string, unknown>): Promise<number> {
    const ch = this.channels.get(topic);
    if (!ch) throw new Error(`MCAP channel ${topic} was not registered`);
    const data = encodeFoxglove(ch.schema, message);
    await this.writer.addMessage({
      channelId: ch.id,
      sequence: ch.sequence++,
      logTime: ns,
      publishTime: ns,
      data,
    });
    this.messages++;
    return data.byteLength;
  }

  /** A named metadata record (string key → value), e.g. how the file's clock relates to the source's. */
  async addMetadata(name: string, values: Record<string, string>): Promise<void> {
    await this.writer.addMetadata({ name, metadata: new Map(Object.entries(values)) });
  }

  get messageCount(): number {
    return this.messages;
  }

  /** Finish the summary and index, then make the file visible at its target; returns its size. */
  async close(): Promise<number> {
    try {
      await this.writer.end();
      const bytes = this.stream.bytesWritten;
      this.stream.commit();
      return bytes;
    } catch (e) {
      this.stream.abort();
      throw e;
    }
  }

  /** Drop the temporary file (after a failure). */
  abort(): void {
    this.stream.abort();
  }
}
