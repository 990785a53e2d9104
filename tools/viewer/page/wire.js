// The page's decoder of the server's compact binary frame (tools/viewer/frameWire.ts has the layout):
// typed views straight into the fetched bytes, which WebGL takes without conversion.
const MAGIC = 0x31464b44;
const HEADER_BYTES = 16 + 16 * 8;

/** Decode an ArrayBuffer from GET /frames/:i (or /frames/:i/forecast). */
export function decodeFrame(buf) {
  const view = new DataView(buf);
  if (buf.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC)
    throw new Error('not a drivekit viewer frame');
  const n = view.getUint32(4, true);
  const flags = view.getUint32(12, true);
  return {
    frameIndex: view.getInt32(8, true),
    count: n,
    pose: new Float64Array(buf, 16, 16),
    xyz: new Float32Array(buf, HEADER_BYTES, 3 * n),
    intensity: flags & 1 ? new Float32Array(buf, HEADER_BYTES + 12 * n, n) : null,
    ring: flags & 2 ? new Uint16Array(buf, HEADER_BYTES + 16 * n, n) : null,
  };
}
