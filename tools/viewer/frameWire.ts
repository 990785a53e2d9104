// The viewer's compact binary frame (GET /frames/:i): one sweep's points laid out so the page hands them to
// WebGL without conversion — interleaved float32 x, y, z, then intensity and ring — plus index and pose.
import type { PointCloud } from '../../core/arrow/records.ts';

/** 'DKF1' little-endian: the page refuses anything else. */
export const FRAME_WIRE_MAGIC = 0x31464b44;

/** Bytes before the point data: magic, point count, frame index, flags, 16 × float64 pose. */
export const FRAME_WIRE_HEADER_BYTES = 16 + 16 * 8;

export interface WireFrame {
  frameIndex: number;
  /** world_from_vehicle, row-major (the identity where the points are already in the world frame). */
  pose: ArrayLike<number>;
  points: Pick<PointCloud, 'x' | 'y' | 'z'> & Partial<Pick<PointCloud, 'intensity' | 'ring'>>;
}

/** Byte size of a frame of `n` points: 18 bytes a point (ring padded to 4 bytes) after the header. */
export function frameWireBytes(n: number): number {
  return FRAME_WIRE_HEADER_BYTES + n * 16 + ((n * 2 + 3) & ~3);
}

/**
 * Encode a frame. Layout (little-endian): u32 magic, u32 n, i32 frame index, u32 flags (bit 0: intensity
 * present, bit 1: ring present), f64[16] pose, f32[3n] xyz interleaved, f32[n] intensity, u16[n] ring.
 */
export function encodeWireFrame(f: WireFrame): Buffer {
  const n = f.points.x.length;
  // A fresh ArrayBuffer (not a pooled Buffer slice), so the typed views below start aligned.
  const ab = new ArrayBuffer(frameWireBytes(n));
  const buf = Buffer.from(ab);
  const base = 0;
  const head = new DataView(ab, base, FRAME_WIRE_HEADER_BYTES);
  const flags = (f.points.intensity ? 1 : 0) | (f.points.ring ? 2 : 0);
  head.setUint32(0, FRAME_WIRE_MAGIC, true);
  head.setUint32(4, n, true);
  head.setInt32(8, f.frameIndex, true);
  head.setUint32(12, flags, true);
  for (let k = 0; k < 16; k++) head.setFloat64(16 + 8 * k, f.pose[k], true);
  const xyz = new Float32Array(ab, base + FRAME_WIRE_HEADER_BYTES, 3 * n);
  const { x, y, z } = f.points;
  for (let i = 0; i < n; i++) {
    xyz[3 * i] = x[i];
    xyz[3 * i + 1] = y[i];
    xyz[3 * i + 2] = z[i];
  }
  const intensity = new Float32Array(ab, base + FRAME_WIRE_HEADER_BYTES + 12 * n, n);
  if (f.points.intensity) intensity.set(f.points.intensity.subarray(0, n));
  const ring = new Uint16Array(ab, base + FRAME_WIRE_HEADER_BYTES + 16 * n, n);
  if (f.points.ring) ring.set(f.points.ring.subarray(0, n));
  return buf;
}

/** Decode a frame (for tests and tools; the page has its own copy of this in page/wire.js). */
export function decodeWireFrame(bytes: Uint8Array): {
  frameIndex: number;
  pose: Float64Array;
  xyz: Float32Array;
  intensity: Float32Array | null;
  ring: Uint16Array | null;
} {
  const copy = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
  const view = new DataView(copy.buffer, copy.byteOffset, copy.byteLength);
  if (copy.byteLength < FRAME_WIRE_HEADER_BYTES || view.getUint32(0, true) !== FRAME_WIRE_MAGIC)
    throw new Error('not a drivekit viewer frame (bad magic)');
  const n = view.getUint32(4, true);
  if (copy.byteLength !== frameWireBytes(n))
    throw new Error(
      `viewer frame of ${n} points should be ${frameWireBytes(n)} bytes, is ${copy.byteLength}`,
    );
  const flags = view.getUint32(12, true);
  const at = copy.byteOffset + FRAME_WIRE_HEADER_BYTES;
  return {
    frameIndex: view.getInt32(8, true),
    pose: new Float64Array(copy.buffer, copy.byteOffset + 16, 16),
    xyz: new Float32Array(copy.buffer, at, 3 * n),
    intensity: flags & 1 ? new Float32Array(copy.buffer, at + 12 * n, n) : null,
    ring: flags & 2 ? new Uint16Array(copy.buffer, at + 16 * n, n) : null,
  };
}
