// A log as flat Parquet tables (hyparquet-writer) that DuckDB, pandas and Polars open without drivekit:
// points, poses, labels, detections, tracks; one row group per frame, column statistics on. docs/formats.md.
import path from 'node:path';
import { ByteWriter, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { writeFileAtomicSync } from '../core/atomic.ts';
import {
  canonicalClass,
  conventionMetadata,
  intensityScale,
  POSE_LAYOUT,
} from '../core/arrow/conventions.ts';
import type { Boxes } from '../core/arrow/records.ts';
import type { RecordKind } from '../core/arrow/schemas.ts';
import { makeDirs } from '../core/dirs.ts';
import { LogReader } from './logstore.ts';

/** The tables written when the log has them (points and poses always). */
export const LOG_PARQUET_TABLES = ['points', 'poses', 'labels', 'detections', 'tracks'] as const;
export type LogParquetTable = (typeof LOG_PARQUET_TABLES)[number];
const BOX_TABLES = ['labels', 'detections', 'tracks'] as const;

/**
 * Version of the Parquet form of a log (its `drivekit.schema` is `log_parquet_<table>/2`); /1 had
 * timestamp_ns as plain INT64 and label/class as strings that were dictionary-encoded only when it paid.
 */
export const LOG_PARQUET_VERSION = 2;

type BasicType = 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE' | 'STRING';
interface Column {
  name: string;
  data: ArrayLike<unknown>;
  type: BasicType;
  nullable?: boolean;
  /** Named values: always a dictionary page plus indices (pandas and Polars read them as categories). */
  category?: boolean;
}

/** timestamp_ns as TIMESTAMP(NANOS), not adjusted to UTC (as the Arrow logs: Timestamp(ns), no time zone). */
const TIMESTAMP_NS = { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'NANOS' } as const;

export interface LogParquetResult {
  files: string[];
  rows: Partial<Record<LogParquetTable, number>>;
}

/** Row-major pose column names: pose_RC is row R, column C of world_from_vehicle. */
export const POSE_COLUMNS = Array.from({ length: 16 }, (_, k) => `pose_${k >> 2}${k & 3}`);

function kv(table: LogParquetTable, kind: RecordKind, log: LogReader): { key: string; value: string }[] {
  const m: Record<string, string> = {
    ...conventionMetadata(kind),
    'drivekit.schema': `log_parquet_${table}/${LOG_PARQUET_VERSION}`,
    log_id: log.meta.logId,
    'drivekit.source': log.meta.source,
  };
  if (table === 'points') m['drivekit.intensity'] = intensityScale(log.meta.source);
  if (table === 'poses') m['drivekit.pose_layout'] = `${POSE_LAYOUT}; columns ${POSE_COLUMNS.join(', ')}`;
  return Object.entries(m).map(([key, value]) => ({ key, value }));
}

/** A Parquet file written in row groups (each `write` call's columns one group), then atomically renamed in. */
class TableWriter {
  private readonly bytes = new ByteWriter();
  private pq: ParquetWriter | null = null;
  rows = 0;

  constructor(
    readonly file: string,
    private readonly kvMetadata: { key: string; value: string }[],
  ) {}

  write(columns: Column[]): void {
    const n = columns[0].data.length;
    if (!this.pq) {
      const schema = schemaFromColumnData({
        columnData: columns.map(
          (c) => ({ name: c.name, data: c.data, type: c.type, nullable: c.nullable ?? false }) as never,
        ),
      });
      for (const el of schema) if (el.name === 'timestamp_ns') el.logical_type = TIMESTAMP_NS as never;
      this.pq = new ParquetWriter({ writer: this.bytes, schema, kvMetadata: this.kvMetadata });
    }
    if (n === 0) return;
    void this.pq.write({
      columnData: columns.map((c) => ({
        name: c.name,
        data: c.data as never,
        ...(c.category ? { encoding: 'RLE_DICTIONARY' as const } : {}),
      })),
      rowGroupSize: n,
    });
    this.rows += n;
  }

  close(): void {
    if (!this.pq) throw new Error(`${this.file}: no columns written`);
    void this.pq.finish();
    writeFileAtomicSync(this.file, new Uint8Array(this.bytes.getBuffer()));
  }
}

function boxColumns(b: Boxes, rows: readonly number[], timestampsNs: BigInt64Array): Column[] {
  const pick = <T>(f: (i: number) => T) => rows.map(f);
  const nullIf = (a: Int32Array) => pick((i) => (a[i] === -1 ? null : a[i]));
  return [
    { name: 'frame_index', data: pick((i) => b.frameIndex[i]), type: 'INT32' },
    {
      name: 'timestamp_ns',
      data: pick((i) => timestampsNs[b.frameIndex[i]] ?? null),
      type: 'INT64',
      nullable: true,
    },
    { name: 'track_id', data: nullIf(b.trackId), type: 'INT32', nullable: true },
    { name: 'label', data: pick((i) => b.label[i]), type: 'STRING', category: true },
    { name: 'class', data: pick((i) => canonicalClass(b.label[i])), type: 'STRING', category: true },
    { name: 'score', data: pick((i) => b.score[i]), type: 'FLOAT' },
    { name: 'cx', data: pick((i) => b.cx[i]), type: 'FLOAT' },
    { name: 'cy', data: pick((i) => b.cy[i]), type: 'FLOAT' },
    { name: 'cz', data: pick((i) => b.cz[i]), type: 'FLOAT' },
    { name: 'length', data: pick((i) => b.length[i]), type: 'FLOAT' },
    { name: 'width', data: pick((i) => b.width[i]), type: 'FLOAT' },
    { name: 'height', data: pick((i) => b.height[i]), type: 'FLOAT' },
    { name: 'yaw', data: pick((i) => b.yaw[i]), type: 'FLOAT' },
    { name: 'num_points', data: nullIf(b.numPoints), type: 'INT32', nullable: true },
  ];
}

/** A Boxes file as a table ordered by frame, one row group per frame that has boxes. */
function writeBoxesTable(
  file: string,
  meta: { key: string; value: string }[],
  b: Boxes,
  ts: BigInt64Array,
): number {
  const order = Array.from(b.frameIndex, (_, i) => i).sort(
    (p, q) => b.frameIndex[p] - b.frameIndex[q] || p - q,
  );
  const w = new TableWriter(file, meta);
  if (order.length === 0) w.write(boxColumns(b, [], ts));
  for (let s = 0; s < order.length;) {
    let e = s + 1;
    while (e < order.length && b.frameIndex[order[e]] === b.frameIndex[order[s]]) e++;
    w.write(boxColumns(b, order.slice(s, e), ts));
    s = e;
  }
  w.close();
  return w.rows;
}

/**
 * Export the log at `logDir` as Parquet tables in `outDir` (points.parquet, poses.parquet and each
 * Boxes file the log has). Every table has frame_index (and timestamp_ns) so points join boxes by frame.
 */
export async function exportLogParquet(
  logDir: string,
  outDir: string,
  onFrame: () => void = () => {},
): Promise<LogParquetResult> {
  const log = await LogReader.open(logDir);
  try {
    makeDirs(outDir);
    const files: string[] = [];
    const rows: LogParquetResult['rows'] = {};
    const file = (t: LogParquetTable) => path.join(outDir, `${t}.parquet`);
    const ts = log.timestampsNs;

    const points = new TableWriter(file('points'), kv('points', 'sensorFrame', log));
    for (let f = 0; f < log.frameCount; f++) {
      const { points: p } = await log.readFrame(f);
      const n = p.x.length;
      points.write([
        { name: 'frame_index', data: new Int32Array(n).fill(f), type: 'INT32' },
        { name: 'timestamp_ns', data: new BigInt64Array(n).fill(ts[f]), type: 'INT64' },
        { name: 'x', data: p.x, type: 'FLOAT' },
        { name: 'y', data: p.y, type: 'FLOAT' },
        { name: 'z', data: p.z, type: 'FLOAT' },
        { name: 'intensity', data: p.intensity, type: 'FLOAT' },
        { name: 'ring', data: Int32Array.from(p.ring), type: 'INT32' },
        { name: 't_offset', data: p.tOffset, type: 'FLOAT' },
      ]);
      onFrame();
    }
    points.close();
    files.push(points.file);
    rows.points = points.rows;

    const poses = new TableWriter(file('poses'), kv('poses', 'poses', log));
    for (let f = 0; f < log.frameCount; f++) {
      const pose = log.pose(f);
      poses.write([
        { name: 'frame_index', data: [f], type: 'INT32' },
        { name: 'timestamp_ns', data: [ts[f]], type: 'INT64' },
        ...POSE_COLUMNS.map((name, k): Column => ({ name, data: [pose[k]], type: 'DOUBLE' })),
      ]);
    }
    poses.close();
    files.push(poses.file);
    rows.poses = poses.rows;

    for (const t of BOX_TABLES) {
      if (!log.hasBoxes(t)) continue;
      const b = log.readBoxes(t);
      if (!b) continue;
      rows[t] = writeBoxesTable(file(t), kv(t, 'boxes', log), b, ts);
      files.push(file(t));
    }
    return { files, rows };
  } finally {
    await log.close();
  }
}
