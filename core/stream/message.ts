// The stream message of docs/architecture.md "Streams": ZeroMQ multipart [topic, Arrow IPC stream bytes], one
// record batch per message, plus an end-of-stream marker [EOS_TOPIC, JSON] whose payload is checked; parsing
// never throws.
import { AsyncByteQueue, type RecordBatch, RecordBatchStreamWriter } from 'apache-arrow';
import { decodeBatch } from '../arrow/ipc.ts';
import type { RecordKind } from '../arrow/schemas.ts';
import { validateSchema } from '../arrow/validate.ts';

/** Topic of the end-of-stream marker; reserved (a data topic may not start with it). */
export const EOS_TOPIC = '$eos';
/** Topic of the begin-of-stream marker a source sends before its first batch; reserved too. */
export const BOS_TOPIC = '$bos';

/** What a source announces before its first batch: its data topic and, for a replay, the log and range. */
export interface BeginOfStream {
  topic: string;
  logId?: string;
  start?: number;
  end?: number;
}

export interface EndOfStream {
  /** Data topic the sender was publishing. */
  topic: string;
  /** Messages the sender sent before the marker. */
  messages: number;
  /** False when the sender stopped before the end of its input (a signal): more may follow on a restart. */
  complete: boolean;
  /** A replay's source: the log id and the frame range [start, end) it set out to send. */
  logId?: string;
  start?: number;
  end?: number;
}

/** What a sender may add to its end-of-stream marker (everything but topic and count). */
export type EosInfo = Partial<Omit<EndOfStream, 'topic' | 'messages'>>;

/** Why a received message was skipped. */
export type MalformedKind = 'frame-count' | 'not-arrow' | 'wrong-schema' | 'bad-eos' | 'bad-bos';
export const MALFORMED_KINDS: readonly MalformedKind[] = [
  'frame-count',
  'not-arrow',
  'wrong-schema',
  'bad-eos',
  'bad-bos',
];

export type Incoming =
  | { type: 'batch'; topic: string; batch: RecordBatch; body: Buffer; bytes: number }
  | { type: 'eos'; eos: EndOfStream }
  | { type: 'bos'; bos: BeginOfStream }
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
  if (topic.startsWith(BOS_TOPIC)) throw new Error(`topic '${topic}' is reserved for begin-of-stream`);
}

export function bosMessage(bos: BeginOfStream): [string, string] {
  return [BOS_TOPIC, JSON.stringify(bos)];
}

/** The begin marker's payload, or why it is not one: a JSON object with `topic`, optionally `logId`, `start` ≤ `end`. */
function parseBos(body: Buffer): BeginOfStream | string {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'payload is not JSON';
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return 'payload is not a JSON object';
  if (typeof j.topic !== 'string') return 'payload has no topic';
  if (j.logId !== undefined && typeof j.logId !== 'string') return "payload's logId is not a string";
  if (
    (j.start !== undefined || j.end !== undefined) &&
    !(isCount(j.start) && isCount(j.end) && j.start <= j.end)
  )
    return "payload's frame range is not 0 ≤ start ≤ end";
  const bos: BeginOfStream = { topic: j.topic };
  if (j.logId !== undefined) bos.logId = j.logId as string;
  if (j.start !== undefined) [bos.start, bos.end] = [j.start as number, j.end as number];
  return bos;
}

export function batchMessage(topic: string, batch: RecordBatch): [string, Buffer] {
  return [topic, encodeBatchBytes(batch)];
}

export function eosMessage(topic: string, messages: number, info: EosInfo = {}): [string, string] {
  return [EOS_TOPIC, JSON.stringify({ topic, messages, complete: true, ...info } satisfies EndOfStream)];
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * The marker's payload, or why it is not one: a JSON object with `topic` (string) and `messages` (a
 * count), optionally `complete` (boolean; absent means true, as senders before it wrote), `logId` and a
 * frame range `start` ≤ `end`. Anything else is malformed, never a clean end of the stream.
 */
function parseEos(body: Buffer): EndOfStream | string {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'payload is not JSON';
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return 'payload is not a JSON object';
  if (typeof j.topic !== 'string') return 'payload has no topic';
  if (!isCount(j.messages)) return 'payload has no message count';
  if (j.complete !== undefined && typeof j.complete !== 'boolean')
    return "payload's complete is not a boolean";
  if (j.logId !== undefined && typeof j.logId !== 'string') return "payload's logId is not a string";
  if (
    (j.start !== undefined || j.end !== undefined) &&
    !(isCount(j.start) && isCount(j.end) && j.start <= j.end)
  )
    return "payload's frame range is not 0 ≤ start ≤ end";
  const eos: EndOfStream = { topic: j.topic, messages: j.messages, complete: j.complete !== false };
  if (j.logId !== undefined) eos.logId = j.logId as string;
  if (j.start !== undefined) [eos.start, eos.end] = [j.start as number, j.end as number];
  return eos;
}

/**
 * Classify received frames: a batch (decoded, and checked against `kind` when given), an
 * end-of-stream marker, or a malformed message with the reason. Never throws.
 */
export function parseMessage(frames: readonly Buffer[], kind?: RecordKind): Incoming {
  if (frames.length === 2 && frames[0].toString('utf8') === EOS_TOPIC) {
    const eos = parseEos(frames[1]);
    return typeof eos === 'string'
      ? { type: 'malformed', kind: 'bad-eos', detail: eos }
      : { type: 'eos', eos };
  }
  if (frames.length === 2 && frames[0].toString('utf8') === BOS_TOPIC) {
    const bos = parseBos(frames[1]);
    return typeof bos === 'string'
      ? { type: 'malformed', kind: 'bad-bos', detail: bos }
      : { type: 'bos', bos };
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
