// PCD v0.7 (Point Cloud Library file format): header, then DATA ascii, binary (row-major records) or
// binary_compressed (LZF of column-major fields). Reads x y z [intensity] [ring]; writes PCD too.
import { allocatePointCloud, type PointCloud } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { lzfCompress, lzfDecompress } from './codecs/lzf.ts';
import { fileSequence } from './fileSequence.ts';
import { frameFiles, readFileHead, readInputFile } from './inputFiles.ts';
import { dropOriginPoints } from './pointFilters.ts';
import { loadPoses } from './posesFile.ts';
import type { SourceOpener } from './source.ts';
import { checkSensorPoints } from './plausibility.ts';

export type PcdDataKind = 'ascii' | 'binary' | 'binary_compressed';

export interface PcdField {
  name: string;
  /** Bytes per element: 1, 2, 4 or 8. */
  size: number;
  /** 'F' float, 'I' signed, 'U' unsigned. */
  type: 'F' | 'I' | 'U';
  count: number;
}

export interface PcdHeader {
  fields: PcdField[];
  width: number;
  height: number;
  points: number;
  data: PcdDataKind;
  /** Byte offset of the data section. */
  dataOffset: number;
}

/** Names accepted for the intensity column (PCL writes 'intensity'; some tools 'i' or 'reflectance'). */
const INTENSITY_NAMES = ['intensity', 'i', 'reflectance'];

const HEADER_LIMIT = 64 * 1024;

export function parsePcdHeader(bytes: Uint8Array, file: string): PcdHeader {
  const head = Buffer.from(bytes.subarray(0, Math.min(bytes.length, HEADER_LIMIT))).toString('latin1');
  const kv = new Map<string, string[]>();
  let pos = 0;
  let dataOffset = -1;
  while (pos < head.length) {
    let eol = head.indexOf('\n', pos);
    if (eol < 0) eol = head.length;
    const line = head.slice(pos, eol).replace(/\r$/, '').trim();
    pos = eol + 1;
    if (!line || line.startsWith('#')) continue;
    const [key, ...vals] = line.split(/\s+/);
    kv.set(key.toUpperCase(), vals);
    if (key.toUpperCase() === 'DATA') {
      dataOffset = Math.min(pos, bytes.length);
      break;
    }
  }
  if (dataOffset < 0) throw new InputError(file, 'not a PCD file (no DATA line in the header)');
  const need = (k: string) => {
    const v = kv.get(k);
    if (!v || v.length === 0) throw new InputError(file, `PCD header has no ${k} line`);
    return v;
  };
  const names = need('FIELDS');
  const sizes = need('SIZE').map(Number);
  const types = need('TYPE').map((t) => t.toUpperCase());
  const counts = kv.has('COUNT') ? need('COUNT').map(Number) : names.map(() => 1);
  if (sizes.length !== names.length || types.length !== names.length || counts.length !== names.length)
    throw new InputError(
      file,
      `PCD header lists ${names.length} FIELDS but ${sizes.length} SIZE, ${types.length} TYPE, ${counts.length} COUNT`,
    );
  const fields: PcdField[] = names.map((name, j) => {
    const size = sizes[j];
    const type = types[j];
    const count = counts[j];
    if (![1, 2, 4, 8].includes(size))
      throw new InputError(file, `field ${name}: SIZE ${size} is not 1, 2, 4 or 8`);
    if (type !== 'F' && type !== 'I' && type !== 'U')
      throw new InputError(file, `field ${name}: TYPE ${type} is not F, I or U`);
    if (type === 'F' && size !== 4 && size !== 8)
      throw new InputError(file, `field ${name}: float of SIZE ${size} (only 4 or 8)`);
    if (!Number.isInteger(count) || count < 1) throw new InputError(file, `field ${name}: COUNT ${count}`);
    return { name, size, type, count };
  });
  for (const axis of ['x', 'y', 'z'])
    if (!fields.some((f) => f.name === axis)) throw new InputError(file, `PCD has no '${axis}' field`);
  const int = (k: string) => {
    const v = Number(need(k)[0]);
    if (!Number.isInteger(v) || v < 0) throw new InputError(file, `PCD ${k} '${need(k)[0]}' is not a count`);
    return v;
  };
  const width = int('WIDTH');
  const height = kv.has('HEIGHT') ? int('HEIGHT') : 1;
  const points = kv.has('POINTS') ? int('POINTS') : width * height;
  if (points !== width * height)
    throw new InputError(file, `PCD header says POINTS ${points} but WIDTH×HEIGHT = ${width}×${height}`);
  const data = need('DATA')[0].toLowerCase();
  if (data !== 'ascii' && data !== 'binary' && data !== 'binary_compressed')
    throw new InputError(file, `PCD DATA '${data}' is not ascii, binary or binary_compressed`);
  return { fields, width, height, points, data, dataOffset };
}

type Getter = (view: DataView, offset: number) => number;

function getterFor(f: PcdField): Getter {
  if (f.type === 'F') return f.size === 4 ? (v, o) => v.getFloat32(o, true) : (v, o) => v.getFloat64(o, true);
  if (f.type === 'U') {
    if (f.size === 1) return (v, o) => v.getUint8(o);
    if (f.size === 2) return (v, o) => v.getUint16(o, true);
    if (f.size === 4) return (v, o) => v.getUint32(o, true);
    return (v, o) => Number(v.getBigUint64(o, true));
  }
  if (f.size === 1) return (v, o) => v.getInt8(o);
  if (f.size === 2) return (v, o) => v.getInt16(o, true);
  if (f.size === 4) return (v, o) => v.getInt32(o, true);
  return (v, o) => Number(v.getBigInt64(o, true));
}

/** Target columns of the cloud by PCD field name. */
function targets(p: PointCloud, fields: PcdField[]): (Float32Array | Uint16Array | null)[] {
  const intensityField = INTENSITY_NAMES.find((n) => fields.some((f) => f.name === n));
  return fields.map((f) => {
    if (f.name === 'x') return p.x;
    if (f.name === 'y') return p.y;
    if (f.name === 'z') return p.z;
    if (f.name === intensityField) return p.intensity;
    if (f.name === 'ring') return p.ring;
    return null;
  });
}

/**
 * Check that the data section can hold what the header promises, from the file's first bytes
 * (header + 8) and its size: binary needs POINTS × record bytes; binary_compressed states its sizes.
 * Returns the compressed/raw sizes of binary_compressed data.
 */
export function checkPcdData(
  header: PcdHeader,
  head: Uint8Array,
  fileSize: number,
  file: string,
): { compressed: number; raw: number } | null {
  const n = header.points;
  const pointSize = header.fields.reduce((s, f) => s + f.size * f.count, 0);
  const bodyLength = fileSize - header.dataOffset;
  if (header.data === 'binary' && bodyLength < n * pointSize)
    throw new InputError(
      file,
      `PCD data too short: ${bodyLength} bytes for ${n} points of ${pointSize} bytes (${n * pointSize})`,
    );
  if (header.data !== 'binary_compressed') return null;
  if (bodyLength < 8 || head.length < header.dataOffset + 8)
    throw new InputError(file, 'PCD binary_compressed data too short for its size header');
  const sizes = new DataView(head.buffer, head.byteOffset + header.dataOffset, 8);
  const compressed = sizes.getUint32(0, true);
  const raw = sizes.getUint32(4, true);
  if (raw !== n * pointSize)
    throw new InputError(file, `PCD compressed data decodes to ${raw} bytes, header needs ${n * pointSize}`);
  if (8 + compressed > bodyLength)
    throw new InputError(
      file,
      `PCD data too short: ${bodyLength - 8} compressed bytes, header says ${compressed}`,
    );
  return { compressed, raw };
}

/** Decode a whole PCD file; every point is kept (filters are the caller's choice). */
export function decodePcd(bytes: Uint8Array, file: string): { header: PcdHeader; points: PointCloud } {
  const header = parsePcdHeader(bytes, file);
  const { fields, points: n, dataOffset } = header;
  const p = allocatePointCloud(n);
  const cols = targets(p, fields);
  const pointSize = fields.reduce((s, f) => s + f.size * f.count, 0);
  const body = bytes.subarray(dataOffset);
  const sizes = checkPcdData(header, bytes, bytes.length, file);
  if (header.data === 'ascii') {
    decodeAscii(body, fields, cols, n, file);
  } else if (header.data === 'binary') {
    checkTrailingRecords(body, n, pointSize, file);
    const view = new DataView(body.buffer, body.byteOffset, n * pointSize);
    let fieldOffset = 0;
    fields.forEach((f, j) => {
      const col = cols[j];
      if (col) {
        const get = getterFor(f);
        for (let i = 0, o = fieldOffset; i < n; i++, o += pointSize) col[i] = get(view, o);
      }
      fieldOffset += f.size * f.count;
    });
  } else {
    const { compressed, raw } = sizes!;
    let plain: Uint8Array;
    try {
      plain = n === 0 ? new Uint8Array(0) : lzfDecompress(body.subarray(8, 8 + compressed), raw);
    } catch (e) {
      throw new InputError(file, `PCD LZF data is corrupt (${(e as Error).message})`);
    }
    // Column-major: all values of field 0, then field 1, …
    const view = new DataView(plain.buffer, plain.byteOffset, plain.byteLength);
    let blockStart = 0;
    fields.forEach((f, j) => {
      const col = cols[j];
      const stride = f.size * f.count;
      if (col) {
        const get = getterFor(f);
        for (let i = 0, o = blockStart; i < n; i++, o += stride) col[i] = get(view, o);
      }
      blockStart += n * stride;
    });
  }
  return { header, points: p };
}

/**
 * Binary data past POINTS records: zero bytes are padding (KITTI 0048's files end with ~4 KB of it),
 * anything else is points the header does not count, which would otherwise be dropped silently.
 */
function checkTrailingRecords(body: Uint8Array, n: number, pointSize: number, file: string): void {
  const end = n * pointSize;
  if (pointSize === 0 || body.length - end < pointSize) return;
  for (let i = end; i < body.length; i++)
    if (body[i] !== 0)
      throw new InputError(
        file,
        `PCD data holds ${Math.floor(body.length / pointSize)} records of ${pointSize} bytes (non-zero data past record ${n}), the header says POINTS ${n}`,
      );
}

function decodeAscii(
  body: Uint8Array,
  fields: PcdField[],
  cols: (Float32Array | Uint16Array | null)[],
  n: number,
  file: string,
): void {
  const text = Buffer.from(body).toString('latin1');
  const tokensPerPoint = fields.reduce((s, f) => s + f.count, 0);
  // Column of each token of a line (element 0 of a multi-count field; other elements ignored).
  const tokenCol: (Float32Array | Uint16Array | null)[] = [];
  fields.forEach((f, j) => {
    for (let c = 0; c < f.count; c++) tokenCol.push(c === 0 ? cols[j] : null);
  });
  let pos = 0;
  let i = 0;
  while (i < n && pos < text.length) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = text.length;
    const line = text.slice(pos, eol).trim();
    pos = eol + 1;
    if (!line) continue;
    const tok = line.split(/\s+/);
    if (tok.length !== tokensPerPoint)
      throw new InputError(
        file,
        `PCD ascii point ${i}: ${tok.length} values, header needs ${tokensPerPoint}`,
      );
    for (let t = 0; t < tokensPerPoint; t++) {
      const col = tokenCol[t];
      if (!col) continue;
      // 'nan' appears in organised clouds; Number() does not read it.
      const s = tok[t];
      col[i] = s === 'nan' || s === 'NaN' ? NaN : Number(s);
    }
    i++;
  }
  if (i < n) throw new InputError(file, `PCD data too short: ${i} ascii points, header says ${n}`);
  let extra = 0;
  for (const line of text.slice(pos).split('\n')) if (line.trim()) extra++;
  if (extra > 0)
    throw new InputError(file, `PCD data holds ${n + extra} ascii points, the header says POINTS ${n}`);
}

/** Write a cloud as PCD v0.7 with fields x y z intensity (float32) and ring (uint16). */
export function writePcd(p: PointCloud, data: PcdDataKind = 'binary'): Uint8Array {
  const n = p.x.length;
  const header =
    [
      '# .PCD v0.7 - Point Cloud Data file format (drivekit)',
      'VERSION 0.7',
      'FIELDS x y z intensity ring',
      'SIZE 4 4 4 4 2',
      'TYPE F F F F U',
      'COUNT 1 1 1 1 1',
      `WIDTH ${n}`,
      'HEIGHT 1',
      'VIEWPOINT 0 0 0 1 0 0 0',
      `POINTS ${n}`,
      `DATA ${data}`,
    ].join('\n') + '\n';
  const head = Buffer.from(header, 'latin1');
  if (data === 'ascii') {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`${p.x[i]} ${p.y[i]} ${p.z[i]} ${p.intensity[i]} ${p.ring[i]}`);
    return Buffer.concat([head, Buffer.from(lines.join('\n') + (n ? '\n' : ''), 'latin1')]);
  }
  const pointSize = 18;
  const body = new Uint8Array(n * pointSize);
  const view = new DataView(body.buffer);
  if (data === 'binary') {
    for (let i = 0, o = 0; i < n; i++, o += pointSize) {
      view.setFloat32(o, p.x[i], true);
      view.setFloat32(o + 4, p.y[i], true);
      view.setFloat32(o + 8, p.z[i], true);
      view.setFloat32(o + 12, p.intensity[i], true);
      view.setUint16(o + 16, p.ring[i], true);
    }
    return Buffer.concat([head, body]);
  }
  const cols = [p.x, p.y, p.z, p.intensity];
  cols.forEach((c, j) => {
    for (let i = 0; i < n; i++) view.setFloat32(4 * (j * n + i), c[i], true);
  });
  for (let i = 0; i < n; i++) view.setUint16(16 * n + 2 * i, p.ring[i], true);
  const packed = lzfCompress(body);
  const sizes = new DataView(new ArrayBuffer(8));
  sizes.setUint32(0, packed.length, true);
  sizes.setUint32(4, body.length, true);
  return Buffer.concat([head, new Uint8Array(sizes.buffer), packed]);
}

export const open: SourceOpener = async (input, opts) => {
  const files = frameFiles(input, ['.pcd'], 'PCD');
  // Headers and data sizes first: a bad file fails before anything is written.
  for (const f of files) {
    const { head, size } = readFileHead(f, HEADER_LIMIT);
    checkPcdData(parsePcdHeader(head, f), head, size, f);
  }
  const poses = loadPoses(opts, files.length, 'vehicle');
  const extra: Record<string, unknown> = { poses: poses.note, droppedOriginPoints: 0 };
  let droppedOrigin = 0;
  let dropped = 0;
  return fileSequence({
    source: 'pcd',
    sensor: null,
    rateHz: opts.rateHz ?? 10,
    files,
    poses: poses.poses,
    decode(file) {
      // NaN marks "no return" in organised PCD clouds, so only range is checked here.
      const checked = checkSensorPoints(decodePcd(readInputFile(file), file).points, file, {
        ...opts,
        allowNonFinite: true,
      });
      const points = checked.points;
      dropped += checked.dropped;
      if (dropped) extra.droppedImplausiblePoints = dropped;
      if (opts.keepOriginPoints) return points;
      const r = dropOriginPoints(points);
      droppedOrigin += r.dropped;
      extra.droppedOriginPoints = droppedOrigin;
      return r.points;
    },
    extra,
  });
};
