// PLY (Stanford polygon format): ascii, binary_little_endian and binary_big_endian 1.0. Reads the
// vertex element's x y z [intensity] [ring] (other elements are skipped); writes point-cloud PLY too.
import { allocatePointCloud, type PointCloud } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { fileSequence } from './fileSequence.ts';
import { frameFiles, readFileHead, readInputFile } from './inputFiles.ts';
import { dropOriginPoints } from './pointFilters.ts';
import { loadPoses } from './posesFile.ts';
import type { SourceOpener } from './source.ts';

export type PlyFormat = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

interface PlyProperty {
  name: string;
  type: string;
  /** For `property list <countType> <type> name`. */
  listCountType?: string;
}

interface PlyElement {
  name: string;
  count: number;
  properties: PlyProperty[];
}

interface PlyHeader {
  format: PlyFormat;
  elements: PlyElement[];
  dataOffset: number;
}

const TYPE_BYTES: Record<string, number> = {
  char: 1,
  uchar: 1,
  int8: 1,
  uint8: 1,
  short: 2,
  ushort: 2,
  int16: 2,
  uint16: 2,
  int: 4,
  uint: 4,
  int32: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};

const INTENSITY_NAMES = ['intensity', 'scalar_intensity', 'reflectance', 'i'];

function parseHeader(bytes: Uint8Array, file: string): PlyHeader {
  const head = Buffer.from(bytes.subarray(0, Math.min(bytes.length, 64 * 1024))).toString('latin1');
  if (!/^ply\r?\n/.test(head)) throw new InputError(file, "not a PLY file (does not start with 'ply')");
  const end = /end_header\r?\n/.exec(head);
  if (!end) throw new InputError(file, 'PLY header has no end_header line');
  let format: PlyFormat | null = null;
  const elements: PlyElement[] = [];
  const lines = head.slice(0, end.index).split(/\r?\n/);
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i].trim().split(/\s+/);
    if (t[0] === 'format') {
      if (t[1] !== 'ascii' && t[1] !== 'binary_little_endian' && t[1] !== 'binary_big_endian')
        throw new InputError(file, `PLY format '${t[1]}' is not ascii or binary`);
      format = t[1];
    } else if (t[0] === 'element') {
      const count = Number(t[2]);
      if (!Number.isInteger(count) || count < 0)
        throw new InputError(file, `PLY element ${t[1]} has a bad count '${t[2]}'`);
      elements.push({ name: t[1], count, properties: [] });
    } else if (t[0] === 'property') {
      const el = elements[elements.length - 1];
      if (!el) throw new InputError(file, `PLY header line ${i + 1}: property before any element`);
      const prop: PlyProperty =
        t[1] === 'list' ? { listCountType: t[2], type: t[3], name: t[4] } : { type: t[1], name: t[2] };
      for (const ty of [prop.type, prop.listCountType])
        if (ty !== undefined && !(ty in TYPE_BYTES))
          throw new InputError(file, `PLY property ${prop.name}: unknown type '${ty}'`);
      el.properties.push(prop);
    }
  }
  if (!format) throw new InputError(file, 'PLY header has no format line');
  return { format, elements, dataOffset: end.index + end[0].length };
}

/** Reads numbers of a given PLY type from a binary body, advancing a cursor. */
function binaryReader(body: Uint8Array, littleEndian: boolean, file: string) {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let pos = 0;
  return {
    get pos() {
      return pos;
    },
    skip(n: number) {
      pos += n;
      if (pos > body.length) throw new InputError(file, 'PLY data too short for its header');
    },
    read(type: string): number {
      const size = TYPE_BYTES[type];
      if (pos + size > body.length) throw new InputError(file, 'PLY data too short for its header');
      const o = pos;
      pos += size;
      switch (type) {
        case 'char':
        case 'int8':
          return view.getInt8(o);
        case 'uchar':
        case 'uint8':
          return view.getUint8(o);
        case 'short':
        case 'int16':
          return view.getInt16(o, littleEndian);
        case 'ushort':
        case 'uint16':
          return view.getUint16(o, littleEndian);
        case 'int':
        case 'int32':
          return view.getInt32(o, littleEndian);
        case 'uint':
        case 'uint32':
          return view.getUint32(o, littleEndian);
        case 'float':
        case 'float32':
          return view.getFloat32(o, littleEndian);
        default:
          return view.getFloat64(o, littleEndian);
      }
    },
  };
}

export function decodePly(bytes: Uint8Array, file: string): PointCloud {
  const header = parseHeader(bytes, file);
  const vertex = header.elements.find((e) => e.name === 'vertex');
  if (!vertex) throw new InputError(file, 'PLY has no vertex element');
  const names = vertex.properties.map((p) => p.name);
  for (const axis of ['x', 'y', 'z'])
    if (!names.includes(axis)) throw new InputError(file, `PLY vertex has no '${axis}' property`);
  const p = allocatePointCloud(vertex.count);
  const intensityName = INTENSITY_NAMES.find((n) => names.includes(n));
  const cols = vertex.properties.map((prop) => {
    if (prop.listCountType) return null;
    if (prop.name === 'x') return p.x;
    if (prop.name === 'y') return p.y;
    if (prop.name === 'z') return p.z;
    if (prop.name === intensityName) return p.intensity;
    if (prop.name === 'ring') return p.ring;
    return null;
  });
  const body = bytes.subarray(header.dataOffset);
  if (header.format === 'ascii') {
    decodeAscii(body, header.elements, vertex, cols, file);
    return p;
  }
  const r = binaryReader(body, header.format === 'binary_little_endian', file);
  for (const el of header.elements) {
    const fixed = el.properties.every((q) => !q.listCountType);
    if (el !== vertex) {
      // Skip other elements (faces, …); fixed-size records in one step, lists item by item.
      if (fixed) r.skip(el.count * el.properties.reduce((s, q) => s + TYPE_BYTES[q.type], 0));
      else
        for (let i = 0; i < el.count; i++)
          for (const q of el.properties) {
            if (q.listCountType) r.skip(r.read(q.listCountType) * TYPE_BYTES[q.type]);
            else r.skip(TYPE_BYTES[q.type]);
          }
      continue;
    }
    for (let i = 0; i < el.count; i++) {
      for (let j = 0; j < el.properties.length; j++) {
        const q = el.properties[j];
        if (q.listCountType) {
          r.skip(r.read(q.listCountType) * TYPE_BYTES[q.type]);
          continue;
        }
        const v = r.read(q.type);
        const col = cols[j];
        if (col) col[i] = v;
      }
    }
    break; // nothing after the vertices is needed
  }
  return p;
}

function decodeAscii(
  body: Uint8Array,
  elements: PlyElement[],
  vertex: PlyElement,
  cols: (Float32Array | Uint16Array | null)[],
  file: string,
): void {
  const lines = Buffer.from(body).toString('latin1').split(/\r?\n/);
  let li = 0;
  const nextLine = (): string[] => {
    while (li < lines.length) {
      const line = lines[li++].trim();
      if (line) return line.split(/\s+/);
    }
    throw new InputError(file, 'PLY data too short for its header');
  };
  for (const el of elements) {
    if (el !== vertex) {
      for (let i = 0; i < el.count; i++) nextLine();
      continue;
    }
    for (let i = 0; i < el.count; i++) {
      const tok = nextLine();
      let t = 0;
      for (let j = 0; j < el.properties.length; j++) {
        const q = el.properties[j];
        if (q.listCountType) {
          t += 1 + Number(tok[t]);
          continue;
        }
        if (t >= tok.length) throw new InputError(file, `PLY vertex ${i}: too few values on its line`);
        const col = cols[j];
        if (col) col[i] = Number(tok[t]);
        t++;
      }
    }
    return;
  }
}

/** Write a cloud as a PLY point cloud: x y z intensity (float) and ring (ushort). */
export function writePly(p: PointCloud, format: PlyFormat = 'binary_little_endian'): Uint8Array {
  const n = p.x.length;
  const header =
    [
      'ply',
      `format ${format} 1.0`,
      'comment drivekit point cloud',
      `element vertex ${n}`,
      'property float x',
      'property float y',
      'property float z',
      'property float intensity',
      'property ushort ring',
      'end_header',
    ].join('\n') + '\n';
  const head = Buffer.from(header, 'latin1');
  if (format === 'ascii') {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`${p.x[i]} ${p.y[i]} ${p.z[i]} ${p.intensity[i]} ${p.ring[i]}`);
    return Buffer.concat([head, Buffer.from(lines.join('\n') + (n ? '\n' : ''), 'latin1')]);
  }
  const le = format === 'binary_little_endian';
  const body = new Uint8Array(n * 18);
  const view = new DataView(body.buffer);
  for (let i = 0, o = 0; i < n; i++, o += 18) {
    view.setFloat32(o, p.x[i], le);
    view.setFloat32(o + 4, p.y[i], le);
    view.setFloat32(o + 8, p.z[i], le);
    view.setFloat32(o + 12, p.intensity[i], le);
    view.setUint16(o + 16, p.ring[i], le);
  }
  return Buffer.concat([head, body]);
}

export const open: SourceOpener = async (input, opts) => {
  const files = frameFiles(input, ['.ply'], 'PLY');
  for (const f of files) parseHeader(readFileHead(f, 64 * 1024).head, f); // before anything is written
  const poses = loadPoses(opts, files.length, 'vehicle');
  const extra: Record<string, unknown> = { poses: poses.note, droppedOriginPoints: 0 };
  let droppedOrigin = 0;
  return fileSequence({
    source: 'ply',
    sensor: null,
    rateHz: opts.rateHz ?? 10,
    files,
    poses: poses.poses,
    decode(file) {
      const points = decodePly(readInputFile(file), file);
      if (opts.keepOriginPoints) return points;
      const r = dropOriginPoints(points);
      droppedOrigin += r.dropped;
      extra.droppedOriginPoints = droppedOrigin;
      return r.points;
    },
    extra,
  });
};
