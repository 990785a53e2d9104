// TFRecord framing (TensorFlow's record file format): each record is uint64 length (little-endian),
// masked CRC32C of those 8 bytes, the data, and the masked CRC32C of the data. Read with CRC checks.
import fs from 'node:fs';
import { writeFileAtomicSync } from '../core/atomic.ts';
import { crc32c } from '../core/crc32c.ts';
import { InputError } from '../core/errors.ts';

/** TensorFlow masks stored CRCs (rotate right by 15, add a constant) so CRCs of CRCs stay useful. */
export function maskCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

export interface TfRecordReadOptions {
  /** Verify both CRCs of each record (default true). */
  verifyCrc?: boolean;
}

/**
 * The records of a TFRecord file's bytes (views into `bytes`). A short read, a length that runs past
 * the end, or a CRC mismatch throws InputError naming the file, the record and the byte offset.
 */
export function readTfRecords(bytes: Uint8Array, file: string, opts: TfRecordReadOptions = {}): Uint8Array[] {
  const verify = opts.verifyCrc ?? true;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const index = out.length;
    const where = `record ${index} at byte ${pos}`;
    if (pos + 12 > bytes.length)
      throw new InputError(
        file,
        `truncated TFRecord: ${where} has a ${bytes.length - pos}-byte header (12 expected)`,
      );
    const length = view.getBigUint64(pos, true);
    if (verify && maskCrc(crc32c(bytes.subarray(pos, pos + 8))) !== view.getUint32(pos + 8, true))
      throw new InputError(file, `corrupt TFRecord: ${where}: length CRC mismatch`);
    const dataStart = pos + 12;
    if (length > BigInt(bytes.length - dataStart - 4))
      throw new InputError(
        file,
        `truncated TFRecord: ${where} declares ${length} data bytes but only ${Math.max(0, bytes.length - dataStart - 4)} remain`,
      );
    const dataEnd = dataStart + Number(length);
    if (verify && maskCrc(crc32c(bytes.subarray(dataStart, dataEnd))) !== view.getUint32(dataEnd, true))
      throw new InputError(file, `corrupt TFRecord: ${where}: data CRC mismatch`);
    out.push(bytes.subarray(dataStart, dataEnd));
    pos = dataEnd + 4;
  }
  return out;
}

export function readTfRecordFile(file: string, opts: TfRecordReadOptions = {}): Uint8Array[] {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such file');
  const bytes = fs.readFileSync(file);
  if (bytes.length === 0) throw new InputError(file, 'file is empty');
  return readTfRecords(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), file, opts);
}

/** Frame records as TFRecord bytes. */
export function encodeTfRecords(records: readonly Uint8Array[]): Uint8Array {
  const total = records.reduce((n, r) => n + 16 + r.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let pos = 0;
  for (const r of records) {
    view.setBigUint64(pos, BigInt(r.length), true);
    view.setUint32(pos + 8, maskCrc(crc32c(out.subarray(pos, pos + 8))), true);
    out.set(r, pos + 12);
    view.setUint32(pos + 12 + r.length, maskCrc(crc32c(r)), true);
    pos += 16 + r.length;
  }
  return out;
}

/** Write records as a TFRecord file, atomically. */
export function writeTfRecordFile(file: string, records: readonly Uint8Array[]): void {
  writeFileAtomicSync(file, encodeTfRecords(records));
}
