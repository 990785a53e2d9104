// The ASPRS LAS format (R12/R13/R14 specifications): public header block of versions 1.0–1.4 with
// validation, and decoding of uncompressed point records of formats 0–10 (what loaders.gl lacks for 1.4).
import { InputError } from '../core/errors.ts';

export interface LasHeader {
  versionMajor: number;
  versionMinor: number;
  headerSize: number;
  pointDataOffset: number;
  /** Point data record format 0–10 (the LAZ compression bits removed). */
  pointFormat: number;
  /** LAZ: bit 7 (and 6) of the format byte set. */
  compressed: boolean;
  recordLength: number;
  pointCount: number;
  scale: [number, number, number];
  offset: [number, number, number];
  min: [number, number, number];
  max: [number, number, number];
}

/** Smallest record of each point format (bytes); files may append extra bytes per record. */
const MIN_RECORD_LENGTH = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];

const LEGACY_HEADER_SIZE = 227;
const LAS14_HEADER_SIZE = 375;

/** Parse and validate the header from the file's first bytes (≥ 375 when the file has them) and its size. */
export function parseLasHeader(bytes: Uint8Array, file: string, fileSize = bytes.length): LasHeader {
  if (bytes.length < 4 || String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]) !== 'LASF')
    throw new InputError(file, "not a LAS file (bad signature, expected 'LASF')");
  if (bytes.length < LEGACY_HEADER_SIZE)
    throw new InputError(
      file,
      `truncated LAS header (${bytes.length} bytes, needs at least ${LEGACY_HEADER_SIZE})`,
    );
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const versionMajor = v.getUint8(24);
  const versionMinor = v.getUint8(25);
  if (versionMajor !== 1 || versionMinor > 4)
    throw new InputError(file, `unsupported LAS version ${versionMajor}.${versionMinor} (1.0–1.4)`);
  const headerSize = v.getUint16(94, true);
  const pointDataOffset = v.getUint32(96, true);
  const formatByte = v.getUint8(104);
  const compressed = (formatByte & 0x80) !== 0;
  const pointFormat = formatByte & 0x3f;
  const recordLength = v.getUint16(105, true);
  let pointCount = v.getUint32(107, true);
  const f64 = (o: number) => v.getFloat64(o, true);
  const scale: [number, number, number] = [f64(131), f64(139), f64(147)];
  const offset: [number, number, number] = [f64(155), f64(163), f64(171)];
  const max: [number, number, number] = [f64(179), f64(195), f64(211)];
  const min: [number, number, number] = [f64(187), f64(203), f64(219)];
  if (headerSize < LEGACY_HEADER_SIZE || headerSize > fileSize)
    throw new InputError(file, `LAS header size ${headerSize} is impossible for a ${fileSize}-byte file`);
  if (versionMinor >= 4) {
    if (headerSize < LAS14_HEADER_SIZE || bytes.length < LAS14_HEADER_SIZE)
      throw new InputError(file, `truncated LAS 1.4 header (size ${headerSize}, needs ${LAS14_HEADER_SIZE})`);
    const count64 = Number(v.getBigUint64(247, true));
    if (pointCount === 0 || count64 > pointCount) pointCount = count64;
  }
  if (pointFormat > 10) throw new InputError(file, `unknown LAS point data format ${pointFormat}`);
  if (recordLength < MIN_RECORD_LENGTH[pointFormat])
    throw new InputError(
      file,
      `LAS point record length ${recordLength} is shorter than format ${pointFormat} needs (${MIN_RECORD_LENGTH[pointFormat]})`,
    );
  if (pointDataOffset < headerSize || pointDataOffset > fileSize)
    throw new InputError(
      file,
      `LAS offset to point data ${pointDataOffset} lies outside the file (${fileSize} bytes)`,
    );
  if (!scale.every((s) => Number.isFinite(s) && s !== 0) || !offset.every(Number.isFinite))
    throw new InputError(file, `LAS scale ${scale.join(',')} / offset ${offset.join(',')} is not usable`);
  if (!compressed) {
    const have = Math.floor((fileSize - pointDataOffset) / recordLength);
    if (have < pointCount)
      throw new InputError(file, `truncated LAS point data: ${have} of ${pointCount} records present`);
  }
  return {
    versionMajor,
    versionMinor,
    headerSize,
    pointDataOffset,
    pointFormat,
    compressed,
    recordLength,
    pointCount,
    scale,
    offset,
    min,
    max,
  };
}

export interface LasPoints {
  /** Scaled coordinates in the file's CRS (float64: UTM needs it). */
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  intensity: Uint16Array;
}

/** Decode uncompressed point records: X Y Z int32 scaled by scale + offset, intensity uint16 (all formats). */
export function decodeLasPoints(bytes: Uint8Array, h: LasHeader, file: string): LasPoints {
  if (h.compressed) throw new InputError(file, 'LAZ point data must be decompressed first');
  const n = h.pointCount;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: LasPoints = {
    x: new Float64Array(n),
    y: new Float64Array(n),
    z: new Float64Array(n),
    intensity: new Uint16Array(n),
  };
  const [sx, sy, sz] = h.scale;
  const [ox, oy, oz] = h.offset;
  for (let i = 0, o = h.pointDataOffset; i < n; i++, o += h.recordLength) {
    out.x[i] = v.getInt32(o, true) * sx + ox;
    out.y[i] = v.getInt32(o + 4, true) * sy + oy;
    out.z[i] = v.getInt32(o + 8, true) * sz + oz;
    out.intensity[i] = v.getUint16(o + 12, true);
  }
  return out;
}
