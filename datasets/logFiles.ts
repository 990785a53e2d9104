// The files of a log other than its frames, read and written through the manifest (docs/reliability.md):
// poses.arrow and Boxes files (labels, detections, tracks, …) and any Arrow output a stage adds to a log.
import fs from 'node:fs';
import path from 'node:path';
import { type RecordBatch, RecordBatchFileWriter, type Schema, Table } from 'apache-arrow';
import { writeFileAtomicSync } from '../core/atomic.ts';
import { batchToBoxes, boxesToBatch } from '../core/arrow/codec.ts';
import {
  batchFromColumns,
  fixedListData,
  numericData,
  readTimestampNs,
  timestampNsData,
} from '../core/arrow/columns.ts';
import { parseArrowFile, readArrowFile } from '../core/arrow/ipc.ts';
import { type Boxes, concatBoxes } from '../core/arrow/records.ts';
import { schemaFor } from '../core/arrow/schemas.ts';
import { validateSchema } from '../core/arrow/validate.ts';
import { InputError } from '../core/errors.ts';
import { commitLogFiles } from './logCommit.ts';
import { checkGroupSizes, LOG_GROUP, readChecked, readManifest } from './logManifest.ts';

/**
 * Write poses.arrow (frame_index, timestamp_ns, pose), atomically; into a log with a manifest through its
 * commit path (the log's own group), so the manifest keeps matching.
 */
export async function writePoses(
  file: string,
  poses: Float64Array,
  timestampsNs: BigInt64Array,
): Promise<void> {
  writeLogArrowFile(file, [posesBatch(poses, timestampsNs)], LOG_GROUP);
}

function posesBatch(poses: Float64Array, timestampsNs: BigInt64Array): RecordBatch {
  const n = timestampsNs.length;
  return batchFromColumns(schemaFor('poses'), [
    numericData(Int32Array.from({ length: n }, (_, i) => i)),
    timestampNsData(timestampsNs),
    fixedListData(poses, 16),
  ]);
}

/** poses.arrow's bytes, for a commit of several log files at once (commitLogFiles). */
export function posesBytes(poses: Float64Array, timestampsNs: BigInt64Array): Uint8Array {
  return RecordBatchFileWriter.writeAll(new Table([posesBatch(poses, timestampsNs)])).toUint8Array(true);
}

/**
 * Write an Arrow file atomically; when its folder is a log with a manifest, through the log's commit path
 * as group `group` (default: the file's name without .arrow), so readers can check it.
 */
export function writeLogArrowFile(file: string, batches: readonly RecordBatch[], group?: string): void {
  const bytes = RecordBatchFileWriter.writeAll(new Table(batches as RecordBatch[])).toUint8Array(true);
  const dir = path.dirname(file);
  const name = path.basename(file);
  if (readManifest(dir)) commitLogFiles(dir, group ?? name.replace(/\.arrow$/, ''), [{ name, bytes }]);
  else writeFileAtomicSync(file, bytes);
}

/** Read an Arrow file; when it lies in a log with a manifest, only if listed there and matching. */
export function readLogArrowFile(file: string): { schema: Schema; batches: RecordBatch[] } {
  const dir = path.dirname(file);
  const name = path.basename(file);
  const m = readManifest(dir);
  if (!m) return readArrowFile(file);
  const e = m.files[name];
  if (!e) {
    if (!fs.existsSync(file)) throw new InputError(file, 'no such file');
    throw new InputError(file, NOT_LISTED);
  }
  checkGroupSizes(dir, m, e.group);
  return parseArrowFile(readChecked(dir, name, e), file);
}

const NOT_LISTED =
  'is not listed in manifest.json (left by an interrupted write, or not written by drivekit): rerun the stage that makes it';

/** Write a Boxes record as an Arrow IPC file, atomically (through the log's manifest when in a log). */
export async function writeBoxesFile(
  file: string,
  boxes: Boxes,
  metadata: Record<string, string> = {},
): Promise<void> {
  writeLogArrowFile(file, [boxesToBatch(boxes, metadata, frameTimestamps(path.dirname(file)))]);
}

/** The frame times of the log in `dir` (its poses.arrow), for boxes' timestamp_ns; undefined outside a log. */
function frameTimestamps(dir: string): BigInt64Array | undefined {
  const file = path.join(dir, 'poses.arrow');
  if (!fs.existsSync(file)) return undefined;
  const { batches } = readLogArrowFile(file);
  const parts = batches.map((b) => readTimestampNs(b, 'timestamp_ns'));
  const out = new BigInt64Array(parts.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of parts) {
    out.set(p, k);
    k += p.length;
  }
  return out;
}

/** Read a Boxes Arrow IPC file (all batches concatenated); checked against the manifest when in a log. */
export function readBoxesFile(file: string): Boxes {
  const { schema, batches } = readLogArrowFile(file);
  try {
    validateSchema(schema, 'boxes', file);
  } catch (e) {
    throw new InputError(file, (e as Error).message.replace(`${file}: `, ''));
  }
  const parts = batches.map((b) => batchToBoxes(b, file));
  return parts.length === 1 ? parts[0] : concatBoxes(parts);
}
