// What a drivekit table says about itself (issue 19): units, coordinate frame, pose layout, time and
// intensity conventions and the class vocabulary, as schema metadata beside `drivekit.schema` (Arrow, Parquet).
import type { RecordKind } from './schemas.ts';

/** Version of the convention metadata itself (bumped when a key's meaning changes). */
export const CONVENTIONS_VERSION = 'drivekit-conventions/1';

export const FRAME_CONVENTION =
  'vehicle frame: x forward, y left, z up (right-handed), metres, origin at the vehicle reference point of the source';
export const WORLD_CONVENTION = "world frame: the log's (or scenario's) fixed frame, z up, metres";
export const POSE_LAYOUT =
  'world_from_vehicle: 4x4 homogeneous transform, row-major float64 (translation at indices 3, 7, 11); p_world = pose · p_vehicle';
export const TIME_CONVENTION =
  'timestamp_ns: Arrow Timestamp(ns) / Parquet TIMESTAMP(NANOS), no time zone (Unix epoch, UTC, where the source has one, else from the log start); t_offset: float32 seconds from the start of the sweep';

/**
 * Intensity as each source reports it; drivekit never rescales it (a model trained on one source sees
 * another's scale), so the scale is stated instead.
 */
export const INTENSITY_SCALES: Record<string, string> = {
  kitti: 'reflectance 0–1 (KITTI velodyne .bin)',
  'kitti-raw': 'reflectance 0–1 (KITTI velodyne .bin)',
  nuscenes: 'intensity 0–255 (nuScenes .pcd.bin)',
  av2: 'intensity 0–255 (Argoverse 2 sweeps)',
  las: 'LAS intensity 0–65535',
  laz: 'LAS intensity 0–65535',
  synthetic: 'simulated reflectance 0–1',
};

export function intensityScale(source: string): string {
  return INTENSITY_SCALES[source] ?? `as the source (${source || 'unknown'}) reports it, not rescaled`;
}

/** The canonical object classes: one vocabulary for every source (`class`), beside the source's `label`. */
export const CANONICAL_CLASSES = ['car', 'pedestrian', 'cyclist', 'other'] as const;
export type CanonicalClass = (typeof CANONICAL_CLASSES)[number];

// Keys are lower-case source labels. Cars are passenger cars and vans; riders with their bicycle or
// motorcycle are cyclists; parked bicycles, trucks, buses, trailers, cones, bollards and the rest are
// "other". Sources: KITTI label_2 types, Argoverse 2 categories, nuScenes category names, the synthetic town.
const CLASS_OF: Record<string, CanonicalClass> = {
  car: 'car',
  van: 'car',
  pedestrian: 'pedestrian',
  person_sitting: 'pedestrian',
  cyclist: 'cyclist',
  regular_vehicle: 'car',
  bicyclist: 'cyclist',
  motorcyclist: 'cyclist',
  wheeled_rider: 'cyclist',
  'vehicle.car': 'car',
  'human.pedestrian.adult': 'pedestrian',
  'human.pedestrian.child': 'pedestrian',
  'human.pedestrian.construction_worker': 'pedestrian',
  'human.pedestrian.police_officer': 'pedestrian',
};

/** The canonical class of a source label (case-insensitive); anything not listed is 'other'. */
export function canonicalClass(label: string): CanonicalClass {
  return CLASS_OF[label.toLowerCase()] ?? 'other';
}

/** Units (or meaning, for unitless columns) of every column, per record kind. */
export const COLUMN_UNITS: Record<RecordKind, Record<string, string>> = {
  sensorFrame: {
    frame_index: 'index into the log (0-based)',
    x: 'm',
    y: 'm',
    z: 'm',
    intensity: 'source scale (drivekit.intensity)',
    ring: 'laser index (0 when unknown)',
    t_offset: 's from sweep start (0 when unknown)',
  },
  boxes: {
    frame_index: 'index into the log (0-based)',
    timestamp_ns: "ns, the frame's time (drivekit.time); null outside a log",
    track_id: 'id; null = untracked',
    label: "source's class name (dictionary-encoded)",
    class: 'canonical class (drivekit.classes; dictionary-encoded)',
    score: '0–1 (1 for ground truth)',
    cx: 'm',
    cy: 'm',
    cz: 'm (box centre)',
    length: 'm (along heading)',
    width: 'm',
    height: 'm',
    yaw: 'rad, counter-clockwise about z from +x',
    num_points: 'count; null = unknown',
  },
  agentStates: {
    scenario_id: 'id',
    step: 'index (0.1 s steps)',
    agent_id: 'id',
    type: 'vehicle | pedestrian | cyclist | other',
    x: 'm',
    y: 'm',
    z: 'm',
    yaw: 'rad, counter-clockwise about z from +x',
    vx: 'm/s',
    vy: 'm/s',
    length: 'm',
    width: 'm',
    height: 'm',
    valid: 'true when the agent exists at the step',
  },
  tokens: {
    frame_index: 'index into the log',
    pose: 'world_from_vehicle (drivekit.pose_layout)',
    tokens: 'id',
  },
  poses: {
    frame_index: 'index into the log (0-based)',
    timestamp_ns: 'ns (drivekit.time)',
    pose: 'world_from_vehicle (drivekit.pose_layout)',
  },
  agentObservations: {
    agent_id: 'id',
    obs: 'observation row in the agent frame (simulation/observation.ts layout)',
  },
  agentActions: {
    agent_id: 'id',
    action: 'action bin index',
    accel: 'm/s²',
    curvature: '1/m (positive turns left)',
  },
};

/** The convention metadata of a record kind (merged into its schema by `schemaFor`). */
export function conventionMetadata(kind: RecordKind): Record<string, string> {
  const m: Record<string, string> = {
    'drivekit.conventions': CONVENTIONS_VERSION,
    'drivekit.units': JSON.stringify(COLUMN_UNITS[kind]),
  };
  if (kind === 'sensorFrame' || kind === 'boxes') m['drivekit.frame'] = FRAME_CONVENTION;
  if (kind === 'agentStates') m['drivekit.frame'] = WORLD_CONVENTION;
  if (kind === 'poses' || kind === 'tokens') m['drivekit.pose_layout'] = POSE_LAYOUT;
  if (kind === 'poses' || kind === 'sensorFrame' || kind === 'boxes') m['drivekit.time'] = TIME_CONVENTION;
  if (kind === 'boxes') m['drivekit.classes'] = JSON.stringify(CANONICAL_CLASSES);
  return m;
}
