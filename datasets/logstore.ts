// The log directory (docs/architecture.md): meta.json, frames.arrow (one batch per sweep, random access),
// poses.arrow, optional labels.arrow and stage outputs. Every file is written atomically; meta.json last.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../core/atomic.ts';
import { InputError } from '../core/errors.ts';
import { batchToBoxes, boxesToBatch, pointCloudToBatch, batchToPointCloud } from '../core/arrow/codec.ts';
import {
  batchFromColumns,
  fixedListData,
  numericData,
  readFixedList,
  readNumeric,
} from '../core/arrow/columns.ts';
import { ArrowFileAppender, ArrowFileReader, readArrowFile, writeArrowFile } from '../core/arrow/ipc.ts';
import {
  type Boxes,
  type PointCloud,
  type SensorFrame,
  concatBoxes,
  dropNonFinitePoints,
} from '../core/arrow/records.ts';
import { schemaFor } from '../core/arrow/schemas.ts';
import { validateSchema } from '../core/arrow/validate.ts';
import type { Pose } from '../core/geometry/pose.ts';

export const LOG_FORMAT = 'drivekit-log/1';

export interface Extent {
  min: [number, number, number];
  max: [number, number, number];
}

export interface LogMeta {
  format: typeof LOG_FORMAT;
  logId: string;
  /** Where the data came from, e.g. 'kitti', 'av2', 'synthetic'. */
  source: string;
  /** Sensor model, e.g. 'HDL-64E'; null when unknown. */
  sensor: string | null;
  rateHz: number;
  frameCount: number;
  pointsPerFrame: number[];
  /** Points dropped at import because a coordinate or intensity was NaN/Inf. */
  droppedNonFinite: number;
  /** Bounding box of all points in their vehicle frames. */
  pointExtent: Extent | null;
  /** Bounding box of the vehicle positions in the world frame. */
  trajectoryExtent: Extent | null;
  createdAt: string;
  /** Free-form facts a reader or generator wants to keep (seed, sensor config, source paths). */
  extra: Record<string, unknown>;
}

export interface FrameInput {
  timestampNs: bigint;
  /** world_from_vehicle. */
  pose: Pose;
  points: PointCloud;
}

export interface LogCreateOptions {
  logId?: string;
  source: string;
  sensor?: string | null;
  rateHz?: number;
  /** Replace an existing log at the path (default: refuse). */
  overwrite?: boolean;
  extra?: Record<string, unknown>;
}

const emptyExtent = (): Extent => ({
  min: [Infinity, Infinity, Infinity],
  max: [-Infinity, -Infinity, -Infinity],
});

function growExtent(e: Extent, x: number, y: number, z: number): void {
  if (x < e.min[0]) e.min[0] = x;
  if (y < e.min[1]) e.min[1] = y;
  if (z < e.min[2]) e.min[2] = z;
  if (x > e.max[0]) e.max[0] = x;
  if (y > e.max[1]) e.max[1] = y;
  if (z > e.max[2]) e.max[2] = z;
}

/** Writes a log: frames stream to disk as they are appended; nothing is visible until `close()`. */
export class LogWriter {
  private readonly frames: ArrowFileAppender;
  private readonly poses: number[] = [];
  private readonly timestamps: bigint[] = [];
  private readonly pointsPerFrame: number[] = [];
  private readonly pointExtent = emptyExtent();
  private readonly trajectoryExtent = emptyExtent();
  private dropped = 0;
  private labels: Boxes | null = null;
  private readonly extraBoxes = new Map<string, Boxes>();
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly opts: LogCreateOptions & { logId: string },
  ) {
    this.frames = new ArrowFileAppender(
      path.join(dir, 'frames.arrow'),
      schemaFor('sensorFrame', { log_id: opts.logId }),
    );
  }

  static create(dir: string, opts: LogCreateOptions): LogWriter {
    if (fs.existsSync(path.join(dir, 'meta.json')) && !opts.overwrite) {
      throw new InputError(dir, 'a log already exists here (pass overwrite / --force to replace it)');
    }
    fs.mkdirSync(dir, { recursive: true });
    return new LogWriter(dir, { ...opts, logId: opts.logId ?? path.basename(path.resolve(dir)) });
  }

  get frameCount(): number {
    return this.pointsPerFrame.length;
  }

  /** Append one sweep; NaN/Inf points are dropped and counted. Returns the frame index. */
  appendFrame(frame: FrameInput): number {
    if (this.closed) throw new Error('LogWriter is closed');
    if (frame.pose.length !== 16 || !frame.pose.every(Number.isFinite)) {
      throw new Error(`frame ${this.frameCount}: pose is not 16 finite numbers`);
    }
    const { points, dropped } = dropNonFinitePoints(frame.points);
    this.dropped += dropped;
    for (let i = 0; i < points.x.length; i++)
      growExtent(this.pointExtent, points.x[i], points.y[i], points.z[i]);
    growExtent(this.trajectoryExtent, frame.pose[3], frame.pose[7], frame.pose[11]);
    this.frames.append(pointCloudToBatch(points));
    this.poses.push(...frame.pose);
    this.timestamps.push(frame.timestampNs);
    this.pointsPerFrame.push(points.x.length);
    return this.frameCount - 1;
  }

  /** Ground-truth boxes (vehicle frame of each frame_index), written as labels.arrow on close. */
  setLabels(boxes: Boxes): void {
    this.labels = boxes;
  }

  /** Any other Boxes file of the log (e.g. 'detections'), written on close. */
  setBoxes(name: string, boxes: Boxes): void {
    this.extraBoxes.set(name, boxes);
  }

  async close(): Promise<LogMeta> {
    if (this.closed) throw new Error('LogWriter is closed');
    this.closed = true;
    this.frames.close();
    await writePoses(
      path.join(this.dir, 'poses.arrow'),
      Float64Array.from(this.poses),
      BigInt64Array.from(this.timestamps),
    );
    if (this.labels) await writeBoxesFile(path.join(this.dir, 'labels.arrow'), this.labels);
    for (const [name, boxes] of this.extraBoxes)
      await writeBoxesFile(path.join(this.dir, `${name}.arrow`), boxes);
    const finite = (e: Extent) => (e.min.every(Number.isFinite) ? e : null);
    const meta: LogMeta = {
      format: LOG_FORMAT,
      logId: this.opts.logId,
      source: this.opts.source,
      sensor: this.opts.sensor ?? null,
      rateHz: this.opts.rateHz ?? 10,
      frameCount: this.frameCount,
      pointsPerFrame: this.pointsPerFrame,
      droppedNonFinite: this.dropped,
      pointExtent: finite(this.pointExtent),
      trajectoryExtent: finite(this.trajectoryExtent),
      createdAt: new Date().toISOString(),
      extra: this.opts.extra ?? {},
    };
    // meta.json last: its presence marks a complete log.
    writeFileAtomicSync(path.join(this.dir, 'meta.json'), JSON.stringify(meta, null, 1) + '\n');
    return meta;
  }

  /** Give up: remove the partial frames file, leave any previous log untouched. */
  abort(): void {
    if (this.closed) return;
    this.closed = true;
    this.frames.abort();
  }
}

async function writePoses(file: string, poses: Float64Array, timestampsNs: BigInt64Array): Promise<void> {
  const n = timestampsNs.length;
  const schema = schemaFor('poses');
  const batch = batchFromColumns(schema, [
    numericData(Int32Array.from({ length: n }, (_, i) => i)),
    numericData(timestampsNs),
    fixedListData(poses, 16),
  ]);
  await writeArrowFile(file, [batch]);
}

/** Write a Boxes record as an Arrow IPC file, atomically. */
export async function writeBoxesFile(
  file: string,
  boxes: Boxes,
  metadata: Record<string, string> = {},
): Promise<void> {
  await writeArrowFile(file, [boxesToBatch(boxes, metadata)]);
}

/** Read a Boxes Arrow IPC file (all batches concatenated). */
export function readBoxesFile(file: string): Boxes {
  const { schema, batches } = readArrowFile(file);
  try {
    validateSchema(schema, 'boxes', file);
  } catch (e) {
    throw new InputError(file, (e as Error).message.replace(`${file}: `, ''));
  }
  const parts = batches.map((b) => batchToBoxes(b, file));
  return parts.length === 1 ? parts[0] : concatBoxes(parts);
}

/** Reads a log: metadata and poses eagerly (small), frames on demand by index. */
export class LogReader {
  private constructor(
    readonly dir: string,
    readonly meta: LogMeta,
    /** world_from_vehicle per frame, 16 numbers each. */
    readonly poses: Float64Array,
    readonly timestampsNs: BigInt64Array,
    private readonly frames: ArrowFileReader,
  ) {}

  static async open(dir: string): Promise<LogReader> {
    if (!fs.existsSync(dir)) throw new InputError(dir, 'no such log directory');
    const metaPath = path.join(dir, 'meta.json');
    if (!fs.existsSync(metaPath)) throw new InputError(dir, 'not a drivekit log (meta.json is missing)');
    let meta: LogMeta;
    try {
      meta = JSON.parse(fs.readFileSync(metaPath, 'utf8')) as LogMeta;
    } catch (e) {
      throw new InputError(metaPath, `not valid JSON (${(e as Error).message})`);
    }
    if (meta.format !== LOG_FORMAT)
      throw new InputError(metaPath, `format is ${meta.format}, expected ${LOG_FORMAT}`);
    const posesFile = path.join(dir, 'poses.arrow');
    const { schema, batches } = readArrowFile(posesFile);
    try {
      validateSchema(schema, 'poses', posesFile);
    } catch (e) {
      throw new InputError(posesFile, (e as Error).message);
    }
    const poses = batches.length ? readFixedList<Float64Array>(batches[0], 'pose') : new Float64Array(0);
    const ts = batches.length ? readNumeric<BigInt64Array>(batches[0], 'timestamp_ns') : new BigInt64Array(0);
    const frames = await ArrowFileReader.open(path.join(dir, 'frames.arrow'));
    if (frames.numBatches !== meta.frameCount || ts.length !== meta.frameCount) {
      await frames.close();
      throw new InputError(
        dir,
        `meta.json says ${meta.frameCount} frames, frames.arrow has ${frames.numBatches}, poses.arrow ${ts.length}`,
      );
    }
    try {
      validateSchema(frames.schema, 'sensorFrame', path.join(dir, 'frames.arrow'));
    } catch (e) {
      await frames.close();
      throw e;
    }
    return new LogReader(dir, meta, poses, ts, frames);
  }

  get frameCount(): number {
    return this.meta.frameCount;
  }

  pose(index: number): Pose {
    return this.poses.subarray(16 * index, 16 * index + 16);
  }

  async readFrame(index: number): Promise<SensorFrame> {
    const batch = await this.frames.read(index);
    return {
      logId: this.meta.logId,
      frameIndex: index,
      timestampNs: this.timestampsNs[index],
      pose: this.pose(index),
      points: batchToPointCloud(batch, `${this.dir}/frames.arrow[${index}]`),
    };
  }

  /** Iterate frames in order (a range when given). */
  async *iterFrames(start = 0, end = this.frameCount): AsyncGenerator<SensorFrame> {
    for (let i = start; i < end; i++) yield await this.readFrame(i);
  }

  hasBoxes(name = 'labels'): boolean {
    return fs.existsSync(path.join(this.dir, `${name}.arrow`));
  }

  /** A Boxes file of the log ('labels', 'detections', 'tracks', …), or null when absent. */
  readBoxes(name = 'labels'): Boxes | null {
    const file = path.join(this.dir, `${name}.arrow`);
    return fs.existsSync(file) ? readBoxesFile(file) : null;
  }

  async writeBoxes(name: string, boxes: Boxes): Promise<void> {
    await writeBoxesFile(path.join(this.dir, `${name}.arrow`), boxes);
  }

  async close(): Promise<void> {
    await this.frames.close();
  }
}
