// The typed, struct-of-arrays records the stages exchange (docs/architecture.md): one sweep of
// points, a set of boxes, agent states, and a token grid. Plain data; the Arrow schemas mirror them.
import type { Box3 } from '../geometry/box.ts';
import type { Pose } from '../geometry/pose.ts';

/** Points of one sweep, struct-of-arrays; every array has the same length. */
export interface PointCloud {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  intensity: Float32Array;
  /** Laser (beam) index; 0 where the source has none. */
  ring: Uint16Array;
  /** Seconds from the start of the sweep; 0 where the source has none. */
  tOffset: Float32Array;
}

/** The coordinates of a point cloud: all that the geometric stages (ground, clustering, boxes) read. */
export type XYZ = Pick<PointCloud, 'x' | 'y' | 'z'>;

/** One LiDAR sweep in the vehicle frame, with the vehicle's pose in the world. */
export interface SensorFrame {
  logId: string;
  frameIndex: number;
  timestampNs: bigint;
  /** world_from_vehicle. */
  pose: Pose;
  points: PointCloud;
}

/**
 * A set of oriented boxes (ground truth, detections or tracks), struct-of-arrays. Boxes stored in a
 * log are in the vehicle frame of their `frameIndex`; `trackId` is −1 for untracked boxes.
 */
export interface Boxes {
  frameIndex: Int32Array;
  trackId: Int32Array;
  label: string[];
  score: Float32Array;
  cx: Float32Array;
  cy: Float32Array;
  cz: Float32Array;
  length: Float32Array;
  width: Float32Array;
  height: Float32Array;
  yaw: Float32Array;
  /** LiDAR points inside the box in its frame's sweep; −1 when unknown. */
  numPoints: Int32Array;
}

/** Agent states per (scenario, step, agent), struct-of-arrays, world frame. */
export interface AgentStates {
  scenarioId: string[];
  step: Int32Array;
  agentId: Int32Array;
  /** 'vehicle' | 'pedestrian' | 'cyclist' | 'other'. */
  type: string[];
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  yaw: Float32Array;
  vx: Float32Array;
  vy: Float32Array;
  length: Float32Array;
  width: Float32Array;
  height: Float32Array;
  /** 1 when the agent exists at this step. */
  valid: Uint8Array;
}

/** One frame's grid of discrete tokens (row-major rows × cols), with the pose it was taken at. */
export interface TokenGrid {
  frameIndex: number;
  rows: number;
  cols: number;
  pose: Pose;
  tokens: Int32Array;
}

export function pointCount(p: PointCloud): number {
  return p.x.length;
}

export function allocatePointCloud(n: number): PointCloud {
  return {
    x: new Float32Array(n),
    y: new Float32Array(n),
    z: new Float32Array(n),
    intensity: new Float32Array(n),
    ring: new Uint16Array(n),
    tOffset: new Float32Array(n),
  };
}

/** The first `n` points of a cloud, as views (no copy). */
export function truncatePointCloud(p: PointCloud, n: number): PointCloud {
  return {
    x: p.x.subarray(0, n),
    y: p.y.subarray(0, n),
    z: p.z.subarray(0, n),
    intensity: p.intensity.subarray(0, n),
    ring: p.ring.subarray(0, n),
    tOffset: p.tOffset.subarray(0, n),
  };
}

/**
 * Drop points with a non-finite coordinate or intensity, compacting in place.
 * Returns the cleaned cloud (views of the same buffers) and how many were dropped.
 */
export function dropNonFinitePoints(p: PointCloud): { points: PointCloud; dropped: number } {
  const n = p.x.length;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (
      Number.isFinite(p.x[i]) &&
      Number.isFinite(p.y[i]) &&
      Number.isFinite(p.z[i]) &&
      Number.isFinite(p.intensity[i])
    ) {
      if (k !== i) {
        p.x[k] = p.x[i];
        p.y[k] = p.y[i];
        p.z[k] = p.z[i];
        p.intensity[k] = p.intensity[i];
        p.ring[k] = p.ring[i];
        p.tOffset[k] = p.tOffset[i];
      }
      k++;
    }
  }
  return { points: k === n ? p : truncatePointCloud(p, k), dropped: n - k };
}

export function boxesLength(b: Boxes): number {
  return b.cx.length;
}

export function allocateBoxes(n: number): Boxes {
  return {
    frameIndex: new Int32Array(n),
    trackId: new Int32Array(n).fill(-1),
    label: new Array<string>(n).fill('object'),
    score: new Float32Array(n).fill(1),
    cx: new Float32Array(n),
    cy: new Float32Array(n),
    cz: new Float32Array(n),
    length: new Float32Array(n),
    width: new Float32Array(n),
    height: new Float32Array(n),
    yaw: new Float32Array(n),
    numPoints: new Int32Array(n).fill(-1),
  };
}

/** One box of a set as a Box3. */
export function boxAt(b: Boxes, i: number): Box3 {
  return {
    cx: b.cx[i],
    cy: b.cy[i],
    cz: b.cz[i],
    length: b.length[i],
    width: b.width[i],
    height: b.height[i],
    yaw: b.yaw[i],
  };
}

export interface BoxRow extends Box3 {
  frameIndex: number;
  trackId?: number;
  label?: string;
  score?: number;
  numPoints?: number;
}

/** Boxes from a list of rows (convenient for readers and tests; not for hot paths). */
export function boxesFromRows(rows: readonly BoxRow[]): Boxes {
  const b = allocateBoxes(rows.length);
  rows.forEach((r, i) => setBoxRow(b, i, r));
  return b;
}

export function setBoxRow(b: Boxes, i: number, r: BoxRow): void {
  b.frameIndex[i] = r.frameIndex;
  b.trackId[i] = r.trackId ?? -1;
  b.label[i] = r.label ?? 'object';
  b.score[i] = r.score ?? 1;
  b.cx[i] = r.cx;
  b.cy[i] = r.cy;
  b.cz[i] = r.cz;
  b.length[i] = r.length;
  b.width[i] = r.width;
  b.height[i] = r.height;
  b.yaw[i] = r.yaw;
  b.numPoints[i] = r.numPoints ?? -1;
}

export function boxRowAt(b: Boxes, i: number): BoxRow {
  return {
    ...boxAt(b, i),
    frameIndex: b.frameIndex[i],
    trackId: b.trackId[i],
    label: b.label[i],
    score: b.score[i],
    numPoints: b.numPoints[i],
  };
}

/** The subset of boxes at the given row indices (copies). */
export function selectBoxes(b: Boxes, rows: ArrayLike<number>): Boxes {
  const out = allocateBoxes(rows.length);
  for (let k = 0; k < rows.length; k++) setBoxRow(out, k, boxRowAt(b, rows[k]));
  return out;
}

/** Concatenate box sets column by column (copies). */
export function concatBoxes(parts: readonly Boxes[]): Boxes {
  const n = parts.reduce((s, p) => s + boxesLength(p), 0);
  const cat = <T extends Float32Array | Int32Array>(key: keyof Boxes, ctor: new (n: number) => T): T => {
    const out = new ctor(n);
    let k = 0;
    for (const p of parts) {
      out.set(p[key] as T, k);
      k += boxesLength(p);
    }
    return out;
  };
  return {
    frameIndex: cat('frameIndex', Int32Array),
    trackId: cat('trackId', Int32Array),
    label: parts.flatMap((p) => p.label),
    score: cat('score', Float32Array),
    cx: cat('cx', Float32Array),
    cy: cat('cy', Float32Array),
    cz: cat('cz', Float32Array),
    length: cat('length', Float32Array),
    width: cat('width', Float32Array),
    height: cat('height', Float32Array),
    yaw: cat('yaw', Float32Array),
    numPoints: cat('numPoints', Int32Array),
  };
}

/** Row indices of each frame: frame index → rows, in row order. */
export function rowsByFrame(b: Boxes): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (let i = 0; i < b.frameIndex.length; i++) {
    const f = b.frameIndex[i];
    let rows = m.get(f);
    if (!rows) m.set(f, (rows = []));
    rows.push(i);
  }
  return m;
}
