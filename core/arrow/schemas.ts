// Arrow schemas of every record drivekit exchanges (docs/architecture.md), versioned through the
// `drivekit.schema` metadata key (e.g. `sensor_frame/1`) so readers can refuse what they do not know.
import {
  Bool,
  type DataType,
  Dictionary,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int32,
  Schema,
  TimestampNanosecond,
  Uint16,
  Utf8,
} from 'apache-arrow';

import { conventionMetadata } from './conventions.ts';

export const SCHEMA_KEY = 'drivekit.schema';

export const SCHEMA_VERSIONS = {
  sensorFrame: 'sensor_frame/2',
  boxes: 'boxes/4',
  agentStates: 'agent_states/1',
  tokens: 'tokens/1',
  poses: 'poses/2',
  agentObservations: 'agent_observations/1',
  agentActions: 'agent_actions/1',
} as const;

export type RecordKind = keyof typeof SCHEMA_VERSIONS;

/** Every version a reader accepts per kind, the current one first (older logs stay readable). */
export const READABLE_VERSIONS: Record<RecordKind, readonly string[]> = {
  // /1 had no frame_index column in frames, no class column and -1 sentinels instead of nulls in boxes;
  // boxes/2 had plain utf8 label/class and no timestamp_ns; boxes/3 and poses/1 had timestamp_ns as int64
  // (now Arrow's Timestamp(ns), which pandas, Polars and DuckDB read as datetimes).
  sensorFrame: [SCHEMA_VERSIONS.sensorFrame, 'sensor_frame/1'],
  boxes: [SCHEMA_VERSIONS.boxes, 'boxes/3', 'boxes/2', 'boxes/1'],
  agentStates: [SCHEMA_VERSIONS.agentStates],
  tokens: [SCHEMA_VERSIONS.tokens],
  poses: [SCHEMA_VERSIONS.poses, 'poses/1'],
  agentObservations: [SCHEMA_VERSIONS.agentObservations],
  agentActions: [SCHEMA_VERSIONS.agentActions],
};

const f = (name: string, type: DataType) => new Field(name, type, false);
const nullable = (name: string, type: DataType) => new Field(name, type, true);
const poseType = () => new FixedSizeList(16, new Field('item', new Float64(), false));
/** Times as Arrow's Timestamp(ns) without a time zone (a log counted from its start has no instant to name). */
const timeNs = () => new TimestampNanosecond();
/** Named values (box label and class) as a dictionary-encoded string column. */
const named = () => new Dictionary(new Utf8(), new Int32());

export const FIELDS: Record<RecordKind, Field[]> = {
  sensorFrame: [
    // The frame's index on every point (issue 19): a table read without meta.json still has its frames.
    f('frame_index', new Int32()),
    f('x', new Float32()),
    f('y', new Float32()),
    f('z', new Float32()),
    f('intensity', new Float32()),
    f('ring', new Uint16()),
    f('t_offset', new Float32()),
  ],
  boxes: [
    f('frame_index', new Int32()),
    // The frame's time beside its index (null where the boxes were written outside a log).
    nullable('timestamp_ns', timeNs()),
    nullable('track_id', new Int32()),
    f('label', named()),
    f('class', named()),
    f('score', new Float32()),
    f('cx', new Float32()),
    f('cy', new Float32()),
    f('cz', new Float32()),
    f('length', new Float32()),
    f('width', new Float32()),
    f('height', new Float32()),
    f('yaw', new Float32()),
    nullable('num_points', new Int32()),
  ],
  agentStates: [
    f('scenario_id', new Utf8()),
    f('step', new Int32()),
    f('agent_id', new Int32()),
    // Plain utf8: rollouts are appended batch by batch with per-block checksums (ipc.ts), and a
    // dictionary would add a block of its own before the first batch.
    f('type', new Utf8()),
    f('x', new Float32()),
    f('y', new Float32()),
    f('z', new Float32()),
    f('yaw', new Float32()),
    f('vx', new Float32()),
    f('vy', new Float32()),
    f('length', new Float32()),
    f('width', new Float32()),
    f('height', new Float32()),
    f('valid', new Bool()),
  ],
  tokens: [
    f('frame_index', new Int32()),
    f('pose', poseType()),
    // One row per frame: the grid flattened row-major; its shape is in the metadata.
    f('tokens', new FixedSizeList(1, new Field('item', new Int32(), false))),
  ],
  poses: [f('frame_index', new Int32()), f('timestamp_ns', timeNs()), f('pose', poseType())],
  // Learned traffic agents as a stream stage: one row per agent; the row's length is in the metadata.
  agentObservations: [
    f('agent_id', new Int32()),
    f('obs', new FixedSizeList(1, new Field('item', new Float32(), false))),
  ],
  agentActions: [
    f('agent_id', new Int32()),
    f('action', new Int32()),
    f('accel', new Float32()),
    f('curvature', new Float32()),
  ],
};

/**
 * Columns a reader does without when a file lacks them (files of an older version, other writers):
 * a frame's index is its batch position in a log, a box's class follows from its label.
 */
export const OPTIONAL_ON_READ: Partial<Record<RecordKind, readonly string[]>> = {
  sensorFrame: ['frame_index'],
  boxes: ['class', 'timestamp_ns'],
};

/** The schema of a record kind, with its version, its conventions (units, frames) and any extra metadata. */
export function schemaFor(kind: RecordKind, metadata: Record<string, string> = {}): Schema {
  const meta = new Map<string, string>([
    [SCHEMA_KEY, SCHEMA_VERSIONS[kind]],
    ...Object.entries(conventionMetadata(kind)),
    ...Object.entries(metadata),
  ]);
  let fields = FIELDS[kind];
  if (kind === 'tokens') {
    const cells = Number(metadata.grid_rows) * Number(metadata.grid_cols);
    if (!(cells > 0)) throw new Error('tokens schema needs grid_rows and grid_cols metadata');
    fields = [
      fields[0],
      fields[1],
      f('tokens', new FixedSizeList(cells, new Field('item', new Int32(), false))),
    ];
  }
  if (kind === 'agentObservations' && metadata.obs_size !== undefined) {
    const size = Number(metadata.obs_size);
    if (!(Number.isInteger(size) && size > 0)) throw new Error('agent observations schema: bad obs_size');
    fields = [fields[0], f('obs', new FixedSizeList(size, new Field('item', new Float32(), false)))];
  }
  return new Schema(fields, meta);
}
