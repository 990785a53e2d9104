// The stream message of docs/architecture.md "Streams": ZeroMQ multipart [topic, Arrow IPC stream bytes], one
// record batch per message, plus an end-of-stream marker [EOS_TOPIC, JSON]; parsing never throws.
import { AsyncByteQueue, type RecordBatch, RecordBatchStreamWriter } from 'apache-arrow';
import { decodeBatch } from '../arrow/ipc.ts';
import type { RecordKind } from '../arrow/schemas.ts';
import { validateSchema } from '../arrow/validate.ts';

/** Topic of the end-of-stream marker; reserved (a data topic may not start with it). */
export const EOS_TOPIC = '$eos';

export interface EndOfStream {
  /** Data topic the sender was publishing. */
  topic: string;
  /** Messages the sender sent before the marker (null when the marker did not say). */
  messages: number | null;
}

/** Why a received message was skipped. */
export type MalformedKind = 'frame-count' | 'not-arrow' | 'wrong-schema';
export const MALFORMED_KINDS: readonly MalformedKind[] = ['frame-count', 'not-arrow', 'wrong-schema'];

export type Incoming =
  | { type: 'batch'; topic: string; batch: RecordBatch; body: Buffer; bytes: number }
  | { type: 'eos'; eos: EndOfStream }
  | { type: 'malformed'; kind: MalformedKind; detail: string };

/** Collects the writer's chunks (views of the batch's own buffers) without joining them. */
class ChunkSink extends AsyncByteQueue {
  readonly chunks: Uint8Array[] = [];
  byteLength = 0;
  override write(value: Uint8Array): void {
    if (value.byteLength > 0) {
      this.chunks.push(value);
      this.byteLength += value.byteLength;
    }
  }
}

/**
 * One batch as IPC stream bytes, built with exactly one copy of the column data: the writer emits
 * views of the batch's typed arrays, which are copied once into an uninitialised buffer. (Arrow's
 * own toUint8Array allocates a zero-filled buffer first, which costs a second pass over memory.)
 * The result is handed to ZeroMQ as is (zeromq.js sends buffers over 128 bytes without copying).
 */
export function encodeBatchBytes(batch: RecordBatch): Buffer {
  const sink = new ChunkSink();
  const writer = new RecordBatchStreamWriter();
  writer.reset(sink, batch.schema);
  writer.write(batch);
  writer.finish();
  const out = Buffer.allocUnsafeSlow(sink.byteLength);
  let offset = 0;
  for (const c of sink.chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/**
 * Decode a message body without copying: the columns of the batch are views of `bytes`. ZeroMQ may
 * deliver a frame at any address, and typed arrays need aligned offsets, so a misaligned frame is
 * copied once into fresh (8-byte aligned) memory first.
 */
export function decodeBatchBytes(bytes: Uint8Array): RecordBatch {
  const aligned = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
  return decodeBatch(aligned);
}

export function checkTopic(topic: string): void {
  if (topic.startsWith(EOS_TOPIC)) throw new Error(`topic '${topic}' is reserved for end-of-stream`);
}

export function batchMessage(topic: string, batch: RecordBatch): [string, Buffer] {
  return [topic, encodeBatchBytes(batch)];
}

export function eosMessage(topic: string, messages: number): [string, string] {
  return [EOS_TOPIC, JSON.stringify({ topic, messages } satisfies EndOfStream)];
}

function parseEos(body: Buffer | undefined): EndOfStream {
  try {
    const j = JSON.parse(body?.toString('utf8') ?? '') as Partial<EndOfStream>;
    return {
      topic: typeof j.topic === 'string' ? j.topic : '',
      messages: typeof j.messages === 'number' && Number.isInteger(j.messages) ? j.messages : null,
    };
  } catch {
    return { topic: '', messages: null };
  }
}

/**
 * Classify received frames: a batch (decoded, and checked against `kind` when given), an
 * end-of-stream marker, or a malformed message with the reason. Never throws.
 */
export function parseMessage(frames: readonly Buffer[], kind?: RecordKind): Incoming {
  if (frames.length === 2 && frames[0].toString('utf8') === EOS_TOPIC) {
    return { type: 'eos', eos: parseEos(frames[1]) };
  }
  if (frames.length !== 2) {
    return { type: 'malformed', kind: 'frame-count', detail: `${frames.length} frames, expected 2` };
  }
  const topic = frames[0].toString('utf8');
  let batch: RecordBatch;
  try {
    batch = decodeBatchBytes(frames[1]);
  } catch (e) {
    return { type: 'malformed', kind: 'not-arrow', detail: firstLine(e) };
  }
  if (kind) {
    try {
      validateSchema(batch.schema, kind, `topic '${topic}'`);
    } catch (e) {
      return { type: 'malformed', kind: 'wrong-schema', detail: firstLine(e) };
    }
  }
  return { type: 'batch', topic, batch, body: frames[1], bytes: frames[1].byteLength };
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}
