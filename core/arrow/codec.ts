// Conversion between the typed records of records.ts and Arrow record batches, one pair per record
// kind. Encoding wraps numeric columns without copying; decoding validates, then returns views.
import type { RecordBatch } from 'apache-arrow';
import type { AgentStates, Boxes, PointCloud, SensorFrame, TokenGrid } from './records.ts';
import { CANONICAL_CLASSES, canonicalClass } from './conventions.ts';
import { dictUtf8Data } from './dictionary.ts';
import { schemaFor } from './schemas.ts';
import {
  batchFromColumns,
  boolData,
  fixedListData,
  int32DataWithNulls,
  numericData,
  readBool,
  readFixedList,
  readColumnAs,
  readUtf8,
  timestampNsData,
  utf8Data,
} from './columns.ts';
import { validateSchema, SchemaError } from './validate.ts';
import type { Pose } from '../geometry/pose.ts';

/** Per-frame metadata carried by a SensorFrame message (stream) — logs keep it in poses.arrow. */
export function sensorFrameMetadata(frame: Omit<SensorFrame, 'points'>): Record<string, string> {
  return {
    log_id: frame.logId,
    frame_index: String(frame.frameIndex),
    timestamp_ns: frame.timestampNs.toString(),
    pose: JSON.stringify(Array.from(frame.pose)),
  };
}

/**
 * One sweep as a batch. Its `frame_index` column holds `frameIndex`, by default the metadata's
 * `frame_index` (stream messages carry it there too), else 0.
 */
export function pointCloudToBatch(
  points: PointCloud,
  metadata: Record<string, string> = {},
  frameIndex = Number(metadata.frame_index ?? 0),
): RecordBatch {
  return batchFromColumns(schemaFor('sensorFrame', metadata), [
    numericData(new Int32Array(points.x.length).fill(frameIndex)),
    numericData(points.x),
    numericData(points.y),
    numericData(points.z),
    numericData(points.intensity),
    numericData(points.ring),
    numericData(points.tOffset),
  ]);
}

export function sensorFrameToBatch(frame: SensorFrame): RecordBatch {
  return pointCloudToBatch(frame.points, sensorFrameMetadata(frame));
}

export function batchToPointCloud(batch: RecordBatch, where = 'sensor frame'): PointCloud {
  validateSchema(batch.schema, 'sensorFrame', where);
  return {
    x: readColumnAs(batch, 'x', Float32Array, NaN),
    y: readColumnAs(batch, 'y', Float32Array, NaN),
    z: readColumnAs(batch, 'z', Float32Array, NaN),
    intensity: readColumnAs(batch, 'intensity', Float32Array),
    ring: readColumnAs(batch, 'ring', Uint16Array),
    tOffset: readColumnAs(batch, 't_offset', Float32Array),
  };
}

/** A SensorFrame from a self-describing batch (stream message): metadata must carry frame fields. */
export function batchToSensorFrame(batch: RecordBatch, where = 'sensor frame'): SensorFrame {
  const points = batchToPointCloud(batch, where);
  const m = batch.schema.metadata;
  const need = (k: string) => {
    const v = m.get(k);
    if (v === undefined) throw new SchemaError(`${where}: metadata '${k}' is missing`);
    return v;
  };
  let pose: Pose;
  try {
    const arr = JSON.parse(need('pose')) as number[];
    if (!Array.isArray(arr) || arr.length !== 16 || !arr.every(Number.isFinite)) throw new Error();
    pose = Float64Array.from(arr);
  } catch (e) {
    if (e instanceof SchemaError) throw e;
    throw new SchemaError(`${where}: metadata 'pose' is not 16 finite numbers`);
  }
  const frameIndex = Number(need('frame_index'));
  if (!Number.isInteger(frameIndex))
    throw new SchemaError(`${where}: metadata 'frame_index' is not an integer`);
  let timestampNs: bigint;
  try {
    timestampNs = BigInt(need('timestamp_ns'));
  } catch {
    throw new SchemaError(`${where}: metadata 'timestamp_ns' is not an integer`);
  }
  return { logId: m.get('log_id') ?? '', frameIndex, timestampNs, pose, points };
}

/**
 * Boxes as a batch; `frameTimestampsNs[k]` is frame k's time (a log's poses), giving each box its
 * `timestamp_ns` (null without it). Label and class are dictionary-encoded named values.
 */
export function boxesToBatch(
  b: Boxes,
  metadata: Record<string, string> = {},
  frameTimestampsNs?: BigInt64Array,
): RecordBatch {
  const n = b.frameIndex.length;
  const ts = new BigInt64Array(n);
  const tsValid = new Uint8Array((n + 7) >> 3);
  let tsNulls = 0;
  for (let i = 0; i < n; i++) {
    const f = b.frameIndex[i];
    if (frameTimestampsNs && f >= 0 && f < frameTimestampsNs.length) {
      ts[i] = frameTimestampsNs[f];
      tsValid[i >> 3] |= 1 << (i & 7);
    } else tsNulls++;
  }
  return batchFromColumns(schemaFor('boxes', metadata), [
    numericData(b.frameIndex),
    timestampNsData(ts, tsValid, tsNulls),
    int32DataWithNulls(b.trackId, -1),
    dictUtf8Data(b.label),
    dictUtf8Data(b.label.map(canonicalClass), CANONICAL_CLASSES),
    numericData(b.score),
    numericData(b.cx),
    numericData(b.cy),
    numericData(b.cz),
    numericData(b.length),
    numericData(b.width),
    numericData(b.height),
    numericData(b.yaw),
    int32DataWithNulls(b.numPoints, -1),
  ]);
}

export function batchToBoxes(batch: RecordBatch, where = 'boxes'): Boxes {
  validateSchema(batch.schema, 'boxes', where);
  return {
    frameIndex: readColumnAs(batch, 'frame_index', Int32Array),
    // Nulls (no track, unknown point count, no score) become the in-memory markers.
    trackId: readColumnAs(batch, 'track_id', Int32Array, -1),
    label: readUtf8(batch, 'label', 'object'),
    score: readColumnAs(batch, 'score', Float32Array, 1),
    cx: readColumnAs(batch, 'cx', Float32Array),
    cy: readColumnAs(batch, 'cy', Float32Array),
    cz: readColumnAs(batch, 'cz', Float32Array),
    length: readColumnAs(batch, 'length', Float32Array),
    width: readColumnAs(batch, 'width', Float32Array),
    height: readColumnAs(batch, 'height', Float32Array),
    yaw: readColumnAs(batch, 'yaw', Float32Array),
    numPoints: readColumnAs(batch, 'num_points', Int32Array, -1),
  };
}

export function agentStatesToBatch(a: AgentStates, metadata: Record<string, string> = {}): RecordBatch {
  return batchFromColumns(schemaFor('agentStates', metadata), [
    utf8Data(a.scenarioId),
    numericData(a.step),
    numericData(a.agentId),
    utf8Data(a.type),
    numericData(a.x),
    numericData(a.y),
    numericData(a.z),
    numericData(a.yaw),
    numericData(a.vx),
    numericData(a.vy),
    numericData(a.length),
    numericData(a.width),
    numericData(a.height),
    boolData(a.valid),
  ]);
}

export function batchToAgentStates(batch: RecordBatch, where = 'agent states'): AgentStates {
  validateSchema(batch.schema, 'agentStates', where);
  return {
    scenarioId: readUtf8(batch, 'scenario_id'),
    step: readColumnAs(batch, 'step', Int32Array),
    agentId: readColumnAs(batch, 'agent_id', Int32Array),
    type: readUtf8(batch, 'type', 'other'),
    x: readColumnAs(batch, 'x', Float32Array),
    y: readColumnAs(batch, 'y', Float32Array),
    z: readColumnAs(batch, 'z', Float32Array),
    yaw: readColumnAs(batch, 'yaw', Float32Array),
    vx: readColumnAs(batch, 'vx', Float32Array),
    vy: readColumnAs(batch, 'vy', Float32Array),
    length: readColumnAs(batch, 'length', Float32Array),
    width: readColumnAs(batch, 'width', Float32Array),
    height: readColumnAs(batch, 'height', Float32Array),
    valid: readBool(batch, 'valid'),
  };
}

/** Token grids of equal shape as one batch (one row per frame). */
export function tokensToBatch(
  grids: readonly TokenGrid[],
  metadata: Record<string, string> = {},
): RecordBatch {
  if (grids.length === 0) throw new Error('tokensToBatch: no grids');
  const { rows, cols } = grids[0];
  const cells = rows * cols;
  const frameIndex = new Int32Array(grids.length);
  const poses = new Float64Array(16 * grids.length);
  const tokens = new Int32Array(cells * grids.length);
  grids.forEach((g, i) => {
    if (g.rows !== rows || g.cols !== cols || g.tokens.length !== cells) {
      throw new Error(`tokensToBatch: grid ${i} is ${g.rows}×${g.cols}, expected ${rows}×${cols}`);
    }
    frameIndex[i] = g.frameIndex;
    poses.set(g.pose, 16 * i);
    tokens.set(g.tokens, cells * i);
  });
  const schema = schemaFor('tokens', { ...metadata, grid_rows: String(rows), grid_cols: String(cols) });
  return batchFromColumns(schema, [
    numericData(frameIndex),
    fixedListData(poses, 16),
    fixedListData(tokens, cells),
  ]);
}

export function batchToTokens(batch: RecordBatch, where = 'tokens'): TokenGrid[] {
  validateSchema(batch.schema, 'tokens', where);
  const rows = Number(batch.schema.metadata.get('grid_rows'));
  const cols = Number(batch.schema.metadata.get('grid_cols'));
  if (!(rows > 0 && cols > 0)) throw new SchemaError(`${where}: metadata grid_rows/grid_cols missing`);
  const frameIndex = readColumnAs(batch, 'frame_index', Int32Array);
  const poses = readFixedList<Float64Array>(batch, 'pose');
  const tokens = readFixedList<Int32Array>(batch, 'tokens');
  const cells = rows * cols;
  if (tokens.length !== cells * batch.numRows) {
    throw new SchemaError(
      `${where}: token rows hold ${tokens.length / batch.numRows} cells, expected ${cells}`,
    );
  }
  return Array.from({ length: batch.numRows }, (_, i) => ({
    frameIndex: frameIndex[i],
    rows,
    cols,
    pose: poses.slice(16 * i, 16 * i + 16),
    tokens: tokens.slice(cells * i, cells * (i + 1)),
  }));
}
