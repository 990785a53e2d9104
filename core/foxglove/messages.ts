// drivekit records as Foxglove messages: a sweep as foxglove.PointCloud (packed float32 x, y, z, intensity
// and uint16 ring), a pose as foxglove.FrameTransform, oriented boxes as SceneEntity cubes (foxglove/schemas).
import os from 'node:os';
import type { PointCloud } from '../arrow/records.ts';
import type { Pose } from '../geometry/pose.ts';

/** Foxglove's google.protobuf.Timestamp from nanoseconds. */
export function timestampOf(ns: bigint): { seconds: number; nanos: number } {
  const s = ns >= 0n ? ns / 1_000_000_000n : (ns - 999_999_999n) / 1_000_000_000n;
  return { seconds: Number(s), nanos: Number(ns - s * 1_000_000_000n) };
}

/** Unit quaternion {x, y, z, w} of a row-major 4×4 pose's rotation (Shepperd's method: stable for any angle). */
export function poseQuaternion(p: Pose): { x: number; y: number; z: number; w: number } {
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = [
    p[0],
    p[1],
    p[2],
    p[4],
    p[5],
    p[6],
    p[8],
    p[9],
    p[10],
  ];
  const tr = m00 + m11 + m22;
  let q: [number, number, number, number];
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    q = [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4];
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    q = [s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    q = [(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    q = [(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s];
  }
  const n = Math.hypot(...q) || 1;
  return { x: q[0] / n, y: q[1] / n, z: q[2] / n, w: q[3] / n };
}

/** Quaternion of a rotation by `yaw` about +z. */
export function yawQuaternion(yaw: number): { x: number; y: number; z: number; w: number } {
  return { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) };
}

/** A foxglove.FrameTransform placing `child` in `parent` (a world_from_vehicle pose: parent = world). */
export function frameTransform(
  parent: string,
  child: string,
  pose: Pose,
  ns: bigint,
): Record<string, unknown> {
  return {
    timestamp: timestampOf(ns),
    parent_frame_id: parent,
    child_frame_id: child,
    translation: { x: pose[3], y: pose[7], z: pose[11] },
    rotation: poseQuaternion(pose),
  };
}

/** PackedElementField.NumericType values (foxglove/schemas). */
const FLOAT32 = 7;
const UINT16 = 3;

/**
 * The point layout: x, y, z, intensity as float32 at 0, 4, 8, 12 and ring as uint16 at 16, padded to 20 bytes
 * so the float32 columns can be written through one aligned Float32Array view instead of a DataView per value.
 */
export const POINT_STRIDE = 20;
export const POINT_FIELDS = [
  { name: 'x', offset: 0, type: FLOAT32 },
  { name: 'y', offset: 4, type: FLOAT32 },
  { name: 'z', offset: 8, type: FLOAT32 },
  { name: 'intensity', offset: 12, type: FLOAT32 },
  { name: 'ring', offset: 16, type: UINT16 },
] as const;

// The typed-array views write in the machine's byte order; Foxglove reads packed fields little-endian.
if (os.endianness() !== 'LE') throw new Error('the Foxglove point packing assumes a little-endian machine');

/** Pack a sweep's points into PointCloud.data (little-endian, POINT_STRIDE bytes a point). */
export function packPoints(p: PointCloud): Uint8Array {
  const n = p.x.length;
  const buf = new ArrayBuffer(n * POINT_STRIDE);
  const f = new Float32Array(buf);
  const r = new Uint16Array(buf);
  const fw = POINT_STRIDE / 4;
  const rw = POINT_STRIDE / 2;
  for (let i = 0; i < n; i++) {
    const o = i * fw;
    f[o] = p.x[i];
    f[o + 1] = p.y[i];
    f[o + 2] = p.z[i];
    f[o + 3] = p.intensity[i];
    r[i * rw + 8] = p.ring[i];
  }
  return new Uint8Array(buf);
}

/** Unpack PointCloud.data written by packPoints (x, y, z, intensity, ring). */
export function unpackPoints(data: Uint8Array): Pick<PointCloud, 'x' | 'y' | 'z' | 'intensity' | 'ring'> {
  const n = Math.floor(data.byteLength / POINT_STRIDE);
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out = {
    x: new Float32Array(n),
    y: new Float32Array(n),
    z: new Float32Array(n),
    intensity: new Float32Array(n),
    ring: new Uint16Array(n),
  };
  for (let i = 0; i < n; i++) {
    const o = i * POINT_STRIDE;
    out.x[i] = dv.getFloat32(o, true);
    out.y[i] = dv.getFloat32(o + 4, true);
    out.z[i] = dv.getFloat32(o + 8, true);
    out.intensity[i] = dv.getFloat32(o + 12, true);
    out.ring[i] = dv.getUint16(o + 16, true);
  }
  return out;
}

/** A foxglove.PointCloud of a sweep in `frameId` (the points' own frame: identity pose). */
export function pointCloudMessage(p: PointCloud, frameId: string, ns: bigint): Record<string, unknown> {
  return {
    timestamp: timestampOf(ns),
    frame_id: frameId,
    pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    point_stride: POINT_STRIDE,
    fields: POINT_FIELDS,
    data: packPoints(p),
  };
}

export type Rgba = readonly [number, number, number, number];

/** An oriented box (centre, size, yaw about +z) as a CubePrimitive. */
export function cube(
  b: { cx: number; cy: number; cz: number; length: number; width: number; height: number; yaw: number },
  color: Rgba,
): Record<string, unknown> {
  return {
    pose: { position: { x: b.cx, y: b.cy, z: b.cz }, orientation: yawQuaternion(b.yaw) },
    size: { x: b.length, y: b.width, z: b.height },
    color: { r: color[0], g: color[1], b: color[2], a: color[3] },
  };
}

/** A SceneEntityDeletion of everything before `ns`: a frame's boxes replace the previous frame's. */
export function deleteAll(ns: bigint): Record<string, unknown> {
  return { timestamp: timestampOf(ns), type: 1 };
}
