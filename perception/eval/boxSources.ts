// Where boxes to score come from: a drivekit log (labels/detections/tracks), a Boxes Arrow IPC file, a
// Parquet file with the same columns, or JSON `{frames: [{frame_index, boxes: [{cx, …, yaw, score}]}]}`.
import fs from 'node:fs';
import path from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { InputError } from '../../core/errors.ts';
import { allocateBoxes, type Boxes, type BoxRow, boxesFromRows } from '../../core/arrow/records.ts';
import { LogReader, readBoxesFile } from '../../datasets/logstore.ts';
import type { EgoMotion } from './evaluate.ts';

export interface BoxSource {
  boxes: Boxes;
  /** What was read, for messages ('log out/demo/synthetic: tracks'). */
  origin: string;
  /** Ego poses and frame times when the source is a log. */
  ego: EgoMotion | null;
  /** The log directory when the source is a log. */
  logDir: string | null;
  /** The log's id (meta.json log_id) and frame count when the source is a log. */
  logId?: string;
  frames?: number;
}

const REQUIRED = ['cx', 'cy', 'cz', 'length', 'width', 'height', 'yaw'] as const;

/**
 * Read boxes from `spec`: a log directory (its `<name>.arrow`; `dir:name` picks another file of the log),
 * or a `.arrow`/`.feather`/`.ipc`, `.parquet` or `.json` file.
 */
/**
 * Predictions and ground truth must describe the same log: boxes of one log scored against another's
 * labels give a meaningless AP, so a log_id mismatch, or predictions on frames the truth does not
 * have, is an error naming the predictions.
 */
export function checkSameLog(pred: BoxSource, truth: BoxSource): void {
  if (pred.logId !== undefined && truth.logId !== undefined && pred.logId !== truth.logId)
    throw new InputError(
      pred.origin,
      `predictions are of log '${pred.logId}', the ground truth (${truth.origin}) is of log '${truth.logId}'`,
    );
  if (truth.frames === undefined) return;
  let last = -1;
  for (const f of pred.boxes.frameIndex) if (f > last) last = f;
  if (last >= truth.frames)
    throw new InputError(
      pred.origin,
      `boxes on frame ${last}, but the ground-truth log ${truth.logDir} has ${truth.frames} frames: not the same log?`,
    );
}

export async function readBoxSource(spec: string, defaultNames: string[]): Promise<BoxSource> {
  let target = spec;
  let name: string | null = null;
  const colon = spec.lastIndexOf(':');
  if (!fs.existsSync(spec) && colon > 0) {
    target = spec.slice(0, colon);
    name = spec.slice(colon + 1);
  }
  if (!fs.existsSync(target)) throw new InputError(target, 'no such file or log directory');
  if (fs.statSync(target).isDirectory()) return readFromLog(target, name ? [name] : defaultNames);
  const ext = path.extname(target).toLowerCase();
  let boxes: Boxes;
  if (ext === '.json') boxes = readJsonBoxes(target);
  else if (ext === '.parquet') boxes = await readParquetBoxes(target);
  else if (ext === '.arrow' || ext === '.feather' || ext === '.ipc') boxes = readBoxesFile(target);
  else
    throw new InputError(
      target,
      `unknown box file type '${ext}' (expected .arrow, .parquet or .json, or a log directory)`,
    );
  return { boxes, origin: target, ego: null, logDir: null };
}

async function readFromLog(dir: string, names: string[]): Promise<BoxSource> {
  const log = await LogReader.open(dir);
  try {
    const found = names.find((n) => log.hasBoxes(n));
    if (!found) throw new InputError(dir, `the log has no ${names.map((n) => `${n}.arrow`).join(' or ')}`);
    const timesS = new Float64Array(log.frameCount);
    for (let i = 0; i < log.frameCount; i++)
      timesS[i] = Number(log.timestampsNs[i] - log.timestampsNs[0]) / 1e9;
    return {
      boxes: log.readBoxes(found)!,
      origin: `log ${dir}: ${found}`,
      ego: { poses: Float64Array.from(log.poses), timesS },
      logDir: dir,
      logId: log.meta.logId,
      frames: log.frameCount,
    };
  } finally {
    await log.close();
  }
}

function num(v: unknown, where: string, file: string): number {
  const x = typeof v === 'bigint' ? Number(v) : v;
  if (typeof x !== 'number' || !Number.isFinite(x))
    throw new InputError(file, `${where} is not a finite number`);
  return x;
}

/** Rows from plain objects with Boxes column names (snake_case, as in the Arrow schema). */
function rowsToBoxes(rows: Record<string, unknown>[], file: string, frameOf: (i: number) => unknown): Boxes {
  const out: BoxRow[] = rows.map((o, i) => {
    const r: BoxRow = {
      frameIndex: num(frameOf(i), `row ${i}: frame_index`, file),
      cx: 0,
      cy: 0,
      cz: 0,
      length: 0,
      width: 0,
      height: 0,
      yaw: 0,
    };
    for (const k of REQUIRED) {
      if (o[k] === undefined || o[k] === null) throw new InputError(file, `row ${i}: '${k}' is missing`);
      r[k] = num(o[k], `row ${i}: ${k}`, file);
    }
    if (r.length < 0 || r.width < 0 || r.height < 0)
      throw new InputError(file, `row ${i}: negative box size`);
    r.score = o.score === undefined || o.score === null ? 1 : num(o.score, `row ${i}: score`, file);
    if (o.track_id !== undefined && o.track_id !== null)
      r.trackId = num(o.track_id, `row ${i}: track_id`, file);
    if (o.num_points !== undefined && o.num_points !== null)
      r.numPoints = num(o.num_points, `row ${i}: num_points`, file);
    if (typeof o.label === 'string') r.label = o.label;
    return r;
  });
  return out.length ? boxesFromRows(out) : allocateBoxes(0);
}

export function readJsonBoxes(file: string): Boxes {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(file, `not valid JSON (${(e as Error).message})`);
  }
  const frames = (doc as { frames?: unknown } | null)?.frames;
  if (!Array.isArray(frames)) throw new InputError(file, "expected an object with a 'frames' array");
  const rows: Record<string, unknown>[] = [];
  const frameOfRow: unknown[] = [];
  frames.forEach((fr: unknown, k: number) => {
    const f = (fr ?? {}) as { frame_index?: unknown; boxes?: unknown };
    if (!Array.isArray(f.boxes)) throw new InputError(file, `frames[${k}]: 'boxes' is not an array`);
    num(f.frame_index, `frames[${k}].frame_index`, file);
    for (const b of f.boxes) {
      if (typeof b !== 'object' || b === null)
        throw new InputError(file, `frames[${k}]: a box is not an object`);
      rows.push(b as Record<string, unknown>);
      frameOfRow.push(f.frame_index);
    }
  });
  return rowsToBoxes(rows, file, (i) => frameOfRow[i]);
}

export async function readParquetBoxes(file: string): Promise<Boxes> {
  const bytes = fs.readFileSync(file);
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  let rows: Record<string, unknown>[];
  try {
    rows = (await parquetReadObjects({ file: buf })) as Record<string, unknown>[];
  } catch (e) {
    throw new InputError(file, `not a readable Parquet file (${(e as Error).message})`);
  }
  if (rows.length && rows[0].frame_index === undefined)
    throw new InputError(file, "column 'frame_index' is missing");
  return rowsToBoxes(rows, file, (i) => rows[i].frame_index);
}
