// The journal of a Boxes sink: each accepted frame's batch appended as [u32 length][Arrow IPC stream bytes],
// so a sink killed mid-run (SIGKILL) is restarted with what it had; a torn last record is cut off.
import fs from 'node:fs';
import type { RecordBatch } from 'apache-arrow';
import { batchToBoxes } from '../../core/arrow/codec.ts';
import type { Boxes } from '../../core/arrow/records.ts';
import { decodeBatchBytes, encodeBatchBytes } from '../../core/stream/message.ts';

export interface JournalEntry {
  logId: string;
  frameIndex: number;
  boxes: Boxes;
}

export class BoxJournal {
  private fd: number | null = null;

  constructor(readonly file: string) {}

  /** The entries written so far (none when the file is absent); a torn or unreadable tail is cut off. */
  readBack(): JournalEntry[] {
    return this.readBatches().map((batch) => {
      const m = batch.schema.metadata;
      return {
        logId: m.get('log_id') ?? '',
        frameIndex: Number(m.get('frame_index')),
        boxes: batchToBoxes(batch, this.file),
      };
    });
  }

  /** The batches written so far, of any record kind (a recorder of tokens and forecasts keeps both). */
  readBatches(): RecordBatch[] {
    if (!fs.existsSync(this.file)) return [];
    const bytes = fs.readFileSync(this.file);
    const out: RecordBatch[] = [];
    let at = 0;
    while (at + 4 <= bytes.length) {
      const n = bytes.readUInt32LE(at);
      if (at + 4 + n > bytes.length) break;
      try {
        // A copy: the decoded columns must not alias the whole file's buffer at an odd offset.
        out.push(decodeBatchBytes(new Uint8Array(bytes.subarray(at + 4, at + 4 + n))));
      } catch {
        break;
      }
      at += 4 + n;
    }
    // Writes go on after the last whole record (a process killed mid-write leaves a torn one).
    if (at < bytes.length) fs.truncateSync(this.file, at);
    return out;
  }

  append(batch: RecordBatch): void {
    this.fd ??= fs.openSync(this.file, 'a');
    const body = encodeBatchBytes(batch);
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.byteLength, 0);
    // One write per record: a SIGKILL leaves whole records plus at most one torn tail.
    fs.writeSync(this.fd, Buffer.concat([head, body]));
  }

  /** The result is written: the journal is no longer needed. */
  remove(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    fs.rmSync(this.file, { force: true });
  }
}
