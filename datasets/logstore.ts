// The log directory (docs/architecture.md): meta.json, frames.arrow (one batch per sweep, random access),
// poses.arrow, optional labels.arrow and stage outputs; built in a temporary directory, manifest.json last.
import fs from 'node:fs';
import path from 'node:path';
import { RecordBatchFileWriter, Table } from 'apache-arrow';
import { AtomicDir, cleanStaleTemps, recoverDir, writeFileAtomicSync } from '../core/atomic.ts';
import { InputError } from '../core/errors.ts';
import { boxesToBatch, pointCloudToBatch, batchToPointCloud } from '../core/arrow/codec.ts';
import { readFixedList, readTimestampNs } from '../core/arrow/columns.ts';
import {
  ArrowFileAppender,
  ArrowFileReader,
  type BlockChecksums,
  parseArrowFile,
  readArrowFile,
} from '../core/arrow/ipc.ts';
import { type Boxes, type PointCloud, type SensorFrame, dropNonFinitePoints } from '../core/arrow/records.ts';
import { intensityScale } from '../core/arrow/conventions.ts';
import { schemaFor } from '../core/arrow/schemas.ts';
import { validateSchema } from '../core/arrow/validate.ts';
import type { Pose } from '../core/geometry/pose.ts';
import { commitLogFiles, isLogDir } from './logCommit.ts';
import { readBoxesFile, writeBoxesFile, writePoses } from './logFiles.ts';
import {
  blockChecksums,
  checkGroupSizes,
  entryOfArrow,
  entryOfFile,
  listLogFiles,
  LOG_GROUP,
  type LogManifest,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  readChecked,
  readManifest,
  writeManifest,
} from './logManifest.ts';

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

/** Writes a log into a temporary sibling directory; it appears at its path, complete, only on `close()`. */
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
  /** A failed write (a full disk): every later call fails with it too. */
  private failure: Error | null = null;

  private constructor(
    readonly dir: string,
    private readonly opts: LogCreateOptions & { logId: string },
    private readonly staging: AtomicDir,
  ) {
    this.frames = new ArrowFileAppender(
      path.join(staging.path, 'frames.arrow'),
      framesSchema(opts.logId, opts.source),
    );
  }

  /**
   * Start a log at `dir`. An existing log is replaced only with `overwrite`, and then as a whole (nothing
   * of it survives); a directory that is not a log is never replaced unless empty. Leftovers of a killed
   * writer at `dir` are cleaned first (and a log it had moved aside is put back).
   */
  static create(dir: string, opts: LogCreateOptions): LogWriter {
    recoverDir(dir);
    if (fs.existsSync(dir)) {
      if (!fs.statSync(dir).isDirectory()) throw new InputError(dir, 'exists and is not a directory');
      const names = fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
      const logLike = isLogDir(dir) || names.includes('frames.arrow') || names.includes('poses.arrow');
      if (logLike && !opts.overwrite) {
        throw new InputError(dir, 'a log already exists here (pass overwrite / --force to replace it)');
      }
      if (!logLike && names.length > 0) {
        throw new InputError(dir, 'exists and is not a drivekit log (refusing to replace it)');
      }
    }
    let staging: AtomicDir;
    try {
      staging = AtomicDir.begin(dir);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const why = CREATE_ERRORS[err.code ?? ''] ?? err.code ?? err.message;
      throw new InputError(dir, `cannot create a log here (${why})`);
    }
    try {
      return new LogWriter(dir, { ...opts, logId: opts.logId ?? path.basename(path.resolve(dir)) }, staging);
    } catch (e) {
      staging.abort();
      throw e;
    }
  }

  /** Where files that belong to the log (e.g. scenario.json) are written before `close()` commits them. */
  get writeDir(): string {
    return this.staging.path;
  }

  get frameCount(): number {
    return this.pointsPerFrame.length;
  }

  /** Append one sweep; NaN/Inf points are dropped and counted. Returns the frame index. */
  appendFrame(frame: FrameInput): number {
    if (this.closed) throw new Error('LogWriter is closed');
    if (this.failure) throw this.failure;
    if (frame.pose.length !== 16 || !frame.pose.every(Number.isFinite)) {
      throw new Error(`frame ${this.frameCount}: pose is not 16 finite numbers`);
    }
    const { points, dropped } = dropNonFinitePoints(frame.points);
    try {
      this.frames.append(pointCloudToBatch(points, {}, this.frameCount));
    } catch (e) {
      this.failure = writeFailure(this.dir, 'frames.arrow', e);
      throw this.failure;
    }
    this.dropped += dropped;
    for (let i = 0; i < points.x.length; i++)
      growExtent(this.pointExtent, points.x[i], points.y[i], points.z[i]);
    growExtent(this.trajectoryExtent, frame.pose[3], frame.pose[7], frame.pose[11]);
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

  /**
   * Write poses, labels, meta.json and, last, manifest.json into the temporary directory, then rename it
   * into place (replacing a previous log). `order`, when given, lists the appended frames' positions in
   * the order they are to be stored (the recorder sorts by source frame index). Any failure removes the
   * temporary directory and leaves a previous log untouched.
   */
  async close(order?: readonly number[]): Promise<LogMeta> {
    if (this.closed) throw new Error('LogWriter is closed');
    if (this.failure) {
      this.abort();
      throw this.failure;
    }
    this.closed = true;
    const dir = this.staging.path;
    let stage = 'frames.arrow';
    try {
      this.frames.close();
      let sums = this.frames.checksums;
      let poses = this.poses;
      let timestamps = this.timestamps;
      let perFrame = this.pointsPerFrame;
      if (order && order.some((v, i) => v !== i)) {
        sums = reorderFrames(path.join(dir, 'frames.arrow'), order, this.opts.logId, this.opts.source);
        poses = order.flatMap((k) => this.poses.slice(16 * k, 16 * k + 16));
        timestamps = order.map((k) => this.timestamps[k]);
        perFrame = order.map((k) => this.pointsPerFrame[k]);
      }
      stage = 'poses.arrow';
      await writePoses(
        path.join(dir, 'poses.arrow'),
        Float64Array.from(poses),
        BigInt64Array.from(timestamps),
      );
      stage = 'labels';
      if (this.labels) await writeBoxesFile(path.join(dir, 'labels.arrow'), this.labels);
      for (const [name, boxes] of this.extraBoxes)
        await writeBoxesFile(path.join(dir, `${name}.arrow`), boxes);
      const finite = (e: Extent) => (e.min.every(Number.isFinite) ? e : null);
      const meta: LogMeta = {
        format: LOG_FORMAT,
        logId: this.opts.logId,
        source: this.opts.source,
        sensor: this.opts.sensor ?? null,
        rateHz: this.opts.rateHz ?? 10,
        frameCount: this.frameCount,
        pointsPerFrame: perFrame,
        droppedNonFinite: this.dropped,
        pointExtent: finite(this.pointExtent),
        trajectoryExtent: finite(this.trajectoryExtent),
        createdAt: new Date().toISOString(),
        extra: this.opts.extra ?? {},
      };
      stage = 'meta.json';
      writeFileAtomicSync(path.join(dir, 'meta.json'), JSON.stringify(meta, null, 1) + '\n');
      // The manifest last: every file with its size and checksum (frames.arrow's from the writer).
      stage = MANIFEST_FILE;
      const files: LogManifest['files'] = {};
      for (const name of listLogFiles(dir)) {
        files[name] =
          name === 'frames.arrow'
            ? entryOfArrow(path.join(dir, name), sums, LOG_GROUP)
            : entryOfFile(path.join(dir, name), LOG_GROUP);
      }
      writeManifest(dir, { format: MANIFEST_FORMAT, files });
      stage = 'the log directory';
      this.staging.commit();
      return meta;
    } catch (e) {
      this.frames.abort();
      this.staging.abort();
      throw writeFailure(this.dir, stage, e);
    }
  }

  /** Give up: remove the temporary directory; a previous log at the path stays as it was. */
  abort(): void {
    this.closed = true;
    this.frames.abort();
    this.staging.abort();
  }
}

/** Why a log's temporary directory could not be made, in words. */
const CREATE_ERRORS: Record<string, string> = {
  ENOENT: 'its parent folder cannot be created there',
  EEXIST: 'a parent path is a file, not a folder',
  ENOTDIR: 'a parent path is a file, not a folder',
  EACCES: 'no permission to write there',
  EPERM: 'no permission to write there',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

/** A write error as one line naming the log, the file and the cause; a previous log is unchanged. */
function writeFailure(dir: string, file: string, e: unknown): Error {
  if (e instanceof InputError) return e;
  const err = e as NodeJS.ErrnoException;
  const cause = err.code === 'ENOSPC' ? 'no space left on the device' : (err.message ?? String(e));
  return new InputError(
    dir,
    `could not write ${file} (${cause}); nothing was committed, any previous log is unchanged`,
  );
}

/** frames.arrow's schema: the log, its source and the source's intensity scale stated in the file. */
function framesSchema(logId: string, source: string) {
  return schemaFor('sensorFrame', {
    log_id: logId,
    'drivekit.source': source,
    'drivekit.intensity': intensityScale(source),
  });
}

/** Rewrite a finished frames file with its batches in `order`; returns the new file's checksums. */
function reorderFrames(
  file: string,
  order: readonly number[],
  logId: string,
  source: string,
): BlockChecksums {
  const src = ArrowFileReader.openSync(file);
  const out = new ArrowFileAppender(file, framesSchema(logId, source));
  try {
    // Re-encoded, not copied: each batch's frame_index column must hold its new position.
    order.forEach((k, i) => out.append(pointCloudToBatch(batchToPointCloud(src.readSync(k), file), {}, i)));
    out.close();
  } catch (e) {
    out.abort();
    throw e;
  } finally {
    void src.close();
  }
  return out.checksums;
}

export {
  readBoxesFile,
  readLogArrowFile,
  writeBoxesFile,
  writeLogArrowFile,
  writePoses,
} from './logFiles.ts';

/** Leftovers of killed writers at and in `dir` are removed (best effort: a read-only copy keeps them). */
function cleanLeftovers(dir: string): void {
  try {
    recoverDir(dir);
    cleanStaleTemps(dir);
  } catch {
    // A read-only or foreign-owned log is still readable; verify reports what is left.
  }
}

/**
 * Reads a log: metadata and poses eagerly (small), frames on demand by index. With a manifest, the log's
 * files must have their listed sizes, meta.json and poses.arrow their checksums, and every frame read is
 * checked against its batch checksum; a log without one (written before manifests) is read as before.
 */
export class LogReader {
  private constructor(
    readonly dir: string,
    readonly meta: LogMeta,
    /** world_from_vehicle per frame, 16 numbers each. */
    readonly poses: Float64Array,
    readonly timestampsNs: BigInt64Array,
    private readonly frames: ArrowFileReader,
    /** False for a log written before manifests existed (nothing to check its contents against). */
    readonly hasManifest: boolean,
  ) {}

  static async open(dir: string): Promise<LogReader> {
    cleanLeftovers(dir);
    if (!fs.existsSync(dir)) throw new InputError(dir, 'no such log directory');
    const metaPath = path.join(dir, 'meta.json');
    const manifest = readManifest(dir);
    if (!manifest && !fs.existsSync(metaPath))
      throw new InputError(dir, 'not a drivekit log (meta.json is missing)');
    const entry = (name: string) => {
      const e = manifest!.files[name];
      if (!e || e.group !== LOG_GROUP)
        throw new InputError(path.join(dir, MANIFEST_FILE), `does not list ${name}`);
      return e;
    };
    if (manifest) {
      for (const name of ['meta.json', 'frames.arrow', 'poses.arrow']) entry(name);
      checkGroupSizes(dir, manifest, LOG_GROUP);
    }
    const metaBytes = manifest
      ? readChecked(dir, 'meta.json', entry('meta.json'))
      : fs.readFileSync(metaPath);
    let meta: LogMeta;
    try {
      meta = JSON.parse(metaBytes.toString('utf8')) as LogMeta;
    } catch (e) {
      throw new InputError(metaPath, `not valid JSON (${(e as Error).message})`);
    }
    if (meta.format !== LOG_FORMAT)
      throw new InputError(metaPath, `format is ${meta.format}, expected ${LOG_FORMAT}`);
    const posesFile = path.join(dir, 'poses.arrow');
    const { schema, batches } = manifest
      ? parseArrowFile(readChecked(dir, 'poses.arrow', entry('poses.arrow')), posesFile)
      : readArrowFile(posesFile);
    try {
      validateSchema(schema, 'poses', posesFile);
    } catch (e) {
      throw new InputError(posesFile, (e as Error).message);
    }
    const poses = batches.length ? readFixedList<Float64Array>(batches[0], 'pose') : new Float64Array(0);
    const ts = batches.length ? readTimestampNs(batches[0], 'timestamp_ns') : new BigInt64Array(0);
    const frames = await ArrowFileReader.open(
      path.join(dir, 'frames.arrow'),
      manifest ? blockChecksums(entry('frames.arrow')) : undefined,
    );
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
    return new LogReader(dir, meta, poses, ts, frames, manifest !== null);
  }

  get frameCount(): number {
    return this.meta.frameCount;
  }

  pose(index: number): Pose {
    return this.poses.subarray(16 * index, 16 * index + 16);
  }

  async readFrame(index: number): Promise<SensorFrame> {
    const batch = await this.frames.read(index);
    const where = `${this.dir}/frames.arrow[${index}]`;
    // A frame_index column (sensor_frame/2) must agree with the batch's position.
    const fi = batch.numRows > 0 ? batch.getChild('frame_index') : null;
    if (fi && Number(fi.get(0)) !== index)
      throw new InputError(where, `frame_index column says ${String(fi.get(0))}, expected ${index}`);
    return {
      logId: this.meta.logId,
      frameIndex: index,
      timestampNs: this.timestampsNs[index],
      pose: this.pose(index),
      points: batchToPointCloud(batch, where),
    };
  }

  /** Iterate frames in order (a range when given). */
  async *iterFrames(start = 0, end = this.frameCount): AsyncGenerator<SensorFrame> {
    for (let i = start; i < end; i++) yield await this.readFrame(i);
  }

  /** Whether the log has a Boxes file of that name (committed: listed in the manifest when there is one). */
  hasBoxes(name = 'labels'): boolean {
    const m = readManifest(this.dir);
    return m ? `${name}.arrow` in m.files : fs.existsSync(path.join(this.dir, `${name}.arrow`));
  }

  /** A Boxes file of the log ('labels', 'detections', 'tracks', …), or null when absent. */
  readBoxes(name = 'labels'): Boxes | null {
    const file = path.join(this.dir, `${name}.arrow`);
    const m = readManifest(this.dir);
    if (m ? !(`${name}.arrow` in m.files) && !fs.existsSync(file) : !fs.existsSync(file)) return null;
    return readBoxesFile(file);
  }

  /** Add (or replace) one Boxes file of the log, as its own group. */
  async writeBoxes(name: string, boxes: Boxes): Promise<void> {
    await writeBoxesFile(path.join(this.dir, `${name}.arrow`), boxes);
  }

  /**
   * Add (or replace) a stage's Boxes files together, as one group (e.g. 'discover': detections + tracks):
   * readers see all of them or refuse them all.
   */
  commitBoxes(group: string, files: Record<string, Boxes>): void {
    commitLogFiles(
      this.dir,
      group,
      Object.entries(files).map(([name, boxes]) => ({
        name: `${name}.arrow`,
        bytes: RecordBatchFileWriter.writeAll(
          new Table([boxesToBatch(boxes, {}, this.timestampsNs)]),
        ).toUint8Array(true),
      })),
    );
  }

  async close(): Promise<void> {
    await this.frames.close();
  }
}
