// Argoverse 2 sensor logs: LZ4-compressed feather sweeps (x y z float16 in the ego-vehicle frame,
// intensity, laser_number, offset_ns), city_SE3_egovehicle poses and annotations.feather cuboids.
import fs from 'node:fs';
import path from 'node:path';
import { compressionRegistry, CompressionType, tableFromIPC, type Table } from 'apache-arrow';
import { allocateBoxes, allocatePointCloud, type Boxes, type PointCloud } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { countPointsInBox } from '../core/geometry/box.ts';
import { poseFromQuaternion, type Pose } from '../core/geometry/pose.ts';
import { lz4FrameDecompress } from './codecs/lz4.ts';
import type { FrameInput } from './logstore.ts';
import { byFrameName, inputFileSize, isDirectory, readInputFile } from './inputFiles.ts';
import type { SourceOpener } from './source.ts';
import { checkSensorPoints } from './plausibility.ts';

// Arrow JS ships no codecs: AV2 feathers use LZ4_FRAME (checked on the shipped files); ZSTD is
// named in a clear error rather than Arrow's generic "codec not found".
compressionRegistry.set(CompressionType.LZ4_FRAME, { decode: lz4FrameDecompress });
compressionRegistry.set(CompressionType.ZSTD, {
  decode() {
    throw new Error('ZSTD-compressed feather is not supported (re-save with LZ4 or uncompressed)');
  },
});

/** Read a feather (Arrow IPC file) with every failure as an InputError naming it. */
export function readFeather(file: string): Table {
  const bytes = readInputFile(file);
  // An Arrow IPC file starts and ends with "ARROW1": a copy cut short has the first and lacks the second,
  // and Arrow JS then fails inside its footer parser with a message that says nothing to a user.
  const magic = (at: number) =>
    at >= 0 && Buffer.from(bytes.subarray(at, at + 6)).toString('latin1') === 'ARROW1';
  if (!magic(0)) throw new InputError(file, 'not a feather/Arrow IPC file (it does not start with ARROW1)');
  if (bytes.length < 12 || !magic(bytes.length - 6))
    throw new InputError(
      file,
      `truncated: ${bytes.length} bytes, ending before the Arrow footer (the file was cut short)`,
    );
  try {
    return tableFromIPC(bytes);
  } catch (e) {
    const internal = e instanceof TypeError || e instanceof RangeError;
    throw new InputError(
      file,
      internal
        ? 'damaged: its Arrow metadata cannot be decoded'
        : `not a readable feather/Arrow file (${(e as Error).message})`,
    );
  }
}

let halfTable: Float32Array | null = null;

/** IEEE 754 half → float for all 65,536 bit patterns (built once; a lookup beats bit twiddling per point). */
function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) t[h] = sign * frac * 2 ** -24;
    else if (exp === 31) t[h] = frac ? NaN : sign * Infinity;
    else t[h] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return (halfTable = t);
}

/** A numeric column as float32 (float16/32/64 and integer types), nulls as NaN. */
function floatColumn(table: Table, name: string, file: string): Float32Array {
  const col = table.getChild(name);
  if (!col) throw new InputError(file, `no column '${name}'`);
  const out = new Float32Array(table.numRows);
  const half = halfToFloatTable();
  let k = 0;
  for (const chunk of col.data) {
    const isHalf = chunk.type.typeId === 3 && (chunk.type as { precision?: number }).precision === 0;
    const vals = chunk.values as ArrayLike<number | bigint>;
    for (let i = 0; i < chunk.length; i++) {
      const v = vals[chunk.offset + i];
      out[k + i] = isHalf ? half[v as number] : Number(v);
    }
    if (chunk.nullCount > 0) for (let i = 0; i < chunk.length; i++) if (!chunk.getValid(i)) out[k + i] = NaN;
    k += chunk.length;
  }
  return out;
}

function float64Column(table: Table, name: string, file: string): Float64Array {
  const col = table.getChild(name);
  if (!col) throw new InputError(file, `no column '${name}'`);
  return Float64Array.from(col.toArray() as ArrayLike<number>, Number);
}

function bigintColumn(table: Table, name: string, file: string): BigInt64Array {
  const col = table.getChild(name);
  if (!col) throw new InputError(file, `no column '${name}'`);
  return BigInt64Array.from(col.toArray() as ArrayLike<bigint>, (v) => BigInt(v));
}

function stringColumn(table: Table, name: string, file: string): string[] {
  const col = table.getChild(name);
  if (!col) throw new InputError(file, `no column '${name}'`);
  return Array.from({ length: table.numRows }, (_, i) => String(col.get(i)));
}

/** One sweep: points already in the ego-vehicle frame; offset_ns → seconds, laser_number → ring. */
export function readAv2Sweep(file: string): PointCloud {
  const t = readFeather(file);
  const n = t.numRows;
  const p = allocatePointCloud(n);
  p.x.set(floatColumn(t, 'x', file));
  p.y.set(floatColumn(t, 'y', file));
  p.z.set(floatColumn(t, 'z', file));
  p.intensity.set(floatColumn(t, 'intensity', file));
  const ring = floatColumn(t, 'laser_number', file);
  const off = floatColumn(t, 'offset_ns', file);
  for (let i = 0; i < n; i++) {
    p.ring[i] = ring[i];
    p.tOffset[i] = off[i] * 1e-9;
  }
  return p;
}

export interface PoseTrack {
  timestampsNs: BigInt64Array;
  q: Float64Array; // qw qx qy qz per row
  t: Float64Array; // tx ty tz per row
}

/** The ego trajectory of city_SE3_egovehicle.feather (timestamps strictly increasing). */
export function readPoses(file: string): PoseTrack {
  const tb = readFeather(file);
  const cols = ['qw', 'qx', 'qy', 'qz', 'tx_m', 'ty_m', 'tz_m'].map((c) => float64Column(tb, c, file));
  const n = tb.numRows;
  const q = new Float64Array(4 * n);
  const t = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < 4; j++) q[4 * i + j] = cols[j][i];
    for (let j = 0; j < 3; j++) t[3 * i + j] = cols[4 + j][i];
  }
  const ts = bigintColumn(tb, 'timestamp_ns', file);
  for (let i = 1; i < n; i++)
    if (ts[i] <= ts[i - 1]) throw new InputError(file, `timestamps not increasing at row ${i}`);
  return { timestampsNs: ts, q, t };
}

/**
 * city_SE3_egovehicle at a sweep time: the exact row when there is one (AV2 logs a pose at every
 * sweep), else linear interpolation of translation and normalised-lerp of the quaternion between
 * the bracketing rows (poses are logged at ~100 Hz, so the rotation between them is tiny).
 */
export function poseAt(track: PoseTrack, ts: bigint, file: string): Pose {
  const T = track.timestampsNs;
  let lo = 0;
  let hi = T.length - 1;
  if (T.length === 0 || ts < T[0] || ts > T[hi])
    throw new InputError(file, `no ego pose around timestamp ${ts} (poses cover ${T[0]}…${T[hi]})`);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (T[mid] <= ts) lo = mid;
    else hi = mid;
  }
  const { q, t } = track;
  const at = (i: number) =>
    poseFromQuaternion(
      q[4 * i],
      q[4 * i + 1],
      q[4 * i + 2],
      q[4 * i + 3],
      t[3 * i],
      t[3 * i + 1],
      t[3 * i + 2],
    );
  if (T[lo] === ts) return at(lo);
  if (T[hi] === ts) return at(hi);
  const a = Number(ts - T[lo]) / Number(T[hi] - T[lo]);
  const dot =
    q[4 * lo] * q[4 * hi] +
    q[4 * lo + 1] * q[4 * hi + 1] +
    q[4 * lo + 2] * q[4 * hi + 2] +
    q[4 * lo + 3] * q[4 * hi + 3];
  const s = dot < 0 ? -1 : 1; // q and −q are the same rotation: take the short way
  const qi = [0, 1, 2, 3].map((j) => (1 - a) * q[4 * lo + j] + a * s * q[4 * hi + j]);
  const ti = [0, 1, 2].map((j) => (1 - a) * t[3 * lo + j] + a * t[3 * hi + j]);
  return poseFromQuaternion(qi[0], qi[1], qi[2], qi[3], ti[0], ti[1], ti[2]);
}

interface Av2Layout {
  root: string;
  sweeps: string[];
}

function findLayout(input: string): Av2Layout {
  if (!fs.existsSync(input)) throw new InputError(input, 'no such file or directory');
  if (!isDirectory(input)) return { root: path.resolve(input, '..', '..', '..'), sweeps: [input] };
  let root = input;
  let lidarDir = path.join(input, 'sensors', 'lidar');
  if (!isDirectory(lidarDir) && path.basename(path.resolve(input)) === 'lidar') {
    lidarDir = input;
    root = path.resolve(input, '..', '..');
  }
  if (!isDirectory(lidarDir)) throw new InputError(input, 'not an Argoverse 2 log (no sensors/lidar folder)');
  const sweeps = fs
    .readdirSync(lidarDir)
    .filter((n) => n.endsWith('.feather'))
    .sort(byFrameName)
    .map((n) => path.join(lidarDir, n));
  if (sweeps.length === 0) throw new InputError(lidarDir, 'no .feather sweeps in this folder');
  return { root, sweeps };
}

function sweepTimestamp(file: string): bigint {
  const m = /^(\d+)\.feather$/.exec(path.basename(file));
  if (!m) throw new InputError(file, 'sweep file name is not <timestamp_ns>.feather');
  return BigInt(m[1]);
}

/** Yaw about +z of a quaternion's rotation (the heading of the box's x axis). */
function yawOfQuaternion(w: number, x: number, y: number, z: number): number {
  return Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}

/** The cuboids of annotations.feather, column by column (ego frame at each row's timestamp). */
export interface Av2Annotations {
  timestampNs: BigInt64Array;
  trackUuid: string[];
  category: string[];
  length: Float64Array;
  width: Float64Array;
  height: Float64Array;
  qw: Float64Array;
  qx: Float64Array;
  qy: Float64Array;
  qz: Float64Array;
  tx: Float64Array;
  ty: Float64Array;
  tz: Float64Array;
}

export function readAnnotations(file: string): Av2Annotations {
  const ann = readFeather(file);
  const [length, width, height, qw, qx, qy, qz, tx, ty, tz] = [
    'length_m',
    'width_m',
    'height_m',
    'qw',
    'qx',
    'qy',
    'qz',
    'tx_m',
    'ty_m',
    'tz_m',
  ].map((c) => float64Column(ann, c, file));
  return {
    timestampNs: bigintColumn(ann, 'timestamp_ns', file),
    trackUuid: stringColumn(ann, 'track_uuid', file),
    category: stringColumn(ann, 'category', file),
    length,
    width,
    height,
    qw,
    qx,
    qy,
    qz,
    tx,
    ty,
    tz,
  };
}

export const open: SourceOpener = async (input, opts) => {
  const { root, sweeps } = findLayout(input);
  const stamps = sweeps.map(sweepTimestamp);
  for (const f of sweeps) inputFileSize(f); // a missing or empty sweep fails before anything is written
  const posesFile = path.join(root, 'city_SE3_egovehicle.feather');
  if (!fs.existsSync(posesFile)) throw new InputError(posesFile, "no such file (the log's ego poses)");
  const track = readPoses(posesFile);
  const poses = stamps.map((ts) => poseAt(track, ts, posesFile));

  // Cuboids at the shipped sweeps' timestamps; track ids numbered by first appearance in the whole
  // annotations file, so they do not depend on which sweeps were shipped.
  const annFile = path.join(root, 'annotations.feather');
  let boxes: Boxes | null = null;
  let trackUuids: string[] = [];
  const rowsOfFrame: number[][] = sweeps.map(() => []);
  if (fs.existsSync(annFile)) {
    const a = readAnnotations(annFile);
    const { timestampNs: ts, trackUuid: uuid, category } = a;
    const trackOf = new Map<string, number>();
    for (const u of uuid) if (!trackOf.has(u)) trackOf.set(u, trackOf.size);
    trackUuids = [...trackOf.keys()];
    const frameOf = new Map<bigint, number>(stamps.map((t, i) => [t, i]));
    const rows: number[] = [];
    for (let r = 0; r < ts.length; r++) if (frameOf.has(ts[r])) rows.push(r);
    boxes = allocateBoxes(rows.length);
    rows.forEach((r, k) => {
      const f = frameOf.get(ts[r])!;
      rowsOfFrame[f].push(k);
      boxes!.frameIndex[k] = f;
      boxes!.trackId[k] = trackOf.get(uuid[r])!;
      boxes!.label[k] = category[r];
      boxes!.cx[k] = a.tx[r];
      boxes!.cy[k] = a.ty[r];
      boxes!.cz[k] = a.tz[r];
      boxes!.length[k] = a.length[r];
      boxes!.width[k] = a.width[r];
      boxes!.height[k] = a.height[r];
      boxes!.yaw[k] = yawOfQuaternion(a.qw[r], a.qx[r], a.qy[r], a.qz[r]);
    });
  }
  const counted = new Uint8Array(sweeps.length);
  const countIn = (f: number, p: PointCloud) => {
    for (const k of rowsOfFrame[f]) {
      const b = boxes!;
      b.numPoints[k] = countPointsInBox(
        {
          cx: b.cx[k],
          cy: b.cy[k],
          cz: b.cz[k],
          length: b.length[k],
          width: b.width[k],
          height: b.height[k],
          yaw: b.yaw[k],
        },
        p.x,
        p.y,
        p.z,
      );
    }
    counted[f] = 1;
  };
  const extra: Record<string, unknown> = {};
  let dropped = 0;
  const frameAt = (i: number): FrameInput => {
    const checked = checkSensorPoints(readAv2Sweep(sweeps[i]), sweeps[i], opts);
    const points = checked.points;
    dropped += checked.dropped;
    if (dropped) extra.droppedImplausiblePoints = dropped;
    if (boxes && !counted[i]) countIn(i, points);
    return { timestampNs: stamps[i], pose: poses[i], points };
  };
  return {
    source: 'av2',
    sensor: 'VLP-32C x2',
    rateHz: opts.rateHz ?? 10,
    frameCount: sweeps.length,
    *frames() {
      for (let i = 0; i < sweeps.length; i++) yield frameAt(i);
    },
    labels() {
      if (!boxes) return null;
      for (let i = 0; i < sweeps.length; i++) if (!counted[i] && rowsOfFrame[i].length) frameAt(i);
      return boxes;
    },
    extra: Object.assign(extra, {
      log: path.basename(path.resolve(root)),
      poses: `${posesFile} (city frame) at each sweep timestamp`,
      labels: boxes ? `${annFile}: cuboids at the sweep timestamps, ego frame` : null,
      trackUuids,
    }),
  };
};
