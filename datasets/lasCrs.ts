// The coordinate reference system of a LAS file and its linear units: the OGC WKT VLR (record 2112) or
// the GeoTIFF GeoKeyDirectory VLRs (34735/34736/34737), per ASPRS LAS 1.4 R15 §2.5 and GeoTIFF 1.0 §6.
import { InputError } from '../core/errors.ts';
import type { LasHeader } from './lasFormat.ts';

/** A linear unit and its length in metres. */
export interface LinearUnit {
  name: string;
  metres: number;
}

export interface LasCrs {
  /** Where the CRS was read from ('none': the file states no CRS). */
  from: 'wkt' | 'geokeys' | 'none';
  /** The OGC WKT as stored (null without a WKT record). */
  wkt: string | null;
  /** The EPSG code of the projected (else geographic) CRS; null when user-defined or absent. */
  epsg: number | null;
  /** The CRS's name (WKT PROJCS/GEOGCS name or the GeoTIFF citation). */
  name: string | null;
  /** Unit of x and y; null when unknown (no CRS) or angular (a geographic CRS in degrees). */
  horizontalUnit: LinearUnit | null;
  /** Unit of z; null when unknown. */
  verticalUnit: LinearUnit | null;
  /** True when the file names no vertical unit and z is taken in the horizontal unit (as PDAL does). */
  verticalUnitAssumed: boolean;
}

/** GeoTIFF linear unit codes (EPSG unit-of-measure codes, GeoTIFF 1.0 §6.3.1.3). */
const GEOTIFF_UNITS: Record<number, LinearUnit> = {
  9001: { name: 'metre', metres: 1 },
  9002: { name: 'foot', metres: 0.3048 },
  9003: { name: 'US survey foot', metres: 1200 / 3937 },
  9005: { name: "Clarke's foot", metres: 0.3047972654 },
  9036: { name: 'kilometre', metres: 1000 },
};

const KEY = {
  gtCitation: 1026,
  geographicType: 2048,
  projectedCsType: 3072,
  pcsCitation: 3073,
  projLinearUnits: 3076,
  projLinearUnitSize: 3077,
  verticalUnits: 4099,
} as const;
const USER_DEFINED = 32767;

interface Vlr {
  userId: string;
  recordId: number;
  data: Uint8Array;
}

/** The VLRs after the header and, in LAS 1.4, the extended VLRs (out-of-range records are an error). */
function readVlrs(bytes: Uint8Array, h: LasHeader, file: string): Vlr[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Vlr[] = [];
  const text = (o: number, n: number) =>
    String.fromCharCode(...bytes.subarray(o, o + n)).replace(/\0[\s\S]*$/, '');
  const read = (start: number, count: number, headerLen: number, extended: boolean) => {
    let o = start;
    for (let i = 0; i < count; i++) {
      if (o + headerLen > bytes.length)
        throw new InputError(file, `LAS ${extended ? 'EVLR' : 'VLR'} ${i} header lies past the file's end`);
      const userId = text(o + 2, 16);
      const recordId = v.getUint16(o + 18, true);
      const len = extended ? Number(v.getBigUint64(o + 20, true)) : v.getUint16(o + 20, true);
      if (o + headerLen + len > bytes.length)
        throw new InputError(
          file,
          `LAS ${extended ? 'EVLR' : 'VLR'} ${i} (${userId} ${recordId}) is truncated`,
        );
      out.push({ userId, recordId, data: bytes.subarray(o + headerLen, o + headerLen + len) });
      o += headerLen + len;
    }
  };
  if (bytes.length >= 104) read(h.headerSize, v.getUint32(100, true), 54, false);
  if (h.versionMinor >= 4 && bytes.length >= 247) {
    const start = Number(v.getBigUint64(235, true));
    const count = v.getUint32(243, true);
    // EVLRs sit after LAZ point data too; a header pointing outside the file has none we can read.
    if (count > 0 && start > 0 && start < bytes.length) read(start, count, 60, true);
  }
  return out;
}

// ---- WKT ---------------------------------------------------------------------------------------------

interface WktNode {
  key: string;
  args: (string | number | WktNode)[];
}

/** A small WKT (1 and 2) parser: KEYWORD[arg, …] with quoted strings, numbers and nested nodes. */
function parseWkt(s: string): WktNode | null {
  let i = 0;
  const ws = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const node = (): WktNode | null => {
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
    if (!m) return null;
    i += m[0].length;
    ws();
    const open = s[i];
    if (open !== '[' && open !== '(') return { key: m[0].toUpperCase(), args: [] };
    i++;
    const args: WktNode['args'] = [];
    for (;;) {
      ws();
      if (i >= s.length) return null;
      if (s[i] === ']' || s[i] === ')') {
        i++;
        break;
      }
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] === '"') {
        const end = s.indexOf('"', i + 1);
        if (end < 0) return null;
        args.push(s.slice(i + 1, end));
        i = end + 1;
      } else if (/[-+.\d]/.test(s[i])) {
        const n = /^[-+]?[\d.]+(?:[eE][-+]?\d+)?/.exec(s.slice(i));
        if (!n) return null;
        args.push(Number(n[0]));
        i += n[0].length;
      } else {
        const child = node();
        if (!child) return null;
        args.push(child);
      }
    }
    return { key: m[0].toUpperCase(), args };
  };
  return node();
}

/** Linear units by name: some writers nest a vertical CS whose UNIT factor is wrong (1.0 for feet). */
const UNIT_BY_NAME: Record<string, number> = {
  metre: 1,
  meter: 1,
  foot: 0.3048,
  'international foot': 0.3048,
  'us survey foot': 1200 / 3937,
  foot_us: 1200 / 3937,
  'foot (us survey)': 1200 / 3937,
};

const children = (n: WktNode) => n.args.filter((a): a is WktNode => typeof a === 'object');
const GEOG = new Set(['GEOGCS', 'GEOGCRS', 'BASEGEOGCRS', 'BASEGEODCRS', 'GEODCRS', 'DATUM', 'PRIMEM']);

/** The first UNIT / LENGTHUNIT of a CRS node outside its geographic base (whose unit is angular). */
function unitOf(n: WktNode): LinearUnit | null {
  for (const c of children(n))
    if ((c.key === 'UNIT' || c.key === 'LENGTHUNIT') && typeof c.args[1] === 'number')
      return { name: String(c.args[0]), metres: c.args[1] };
  for (const c of children(n)) {
    if (GEOG.has(c.key)) continue;
    const u = unitOf(c);
    if (u) return u;
  }
  return null;
}

function epsgOf(n: WktNode): number | null {
  const a = children(n).find((c) => c.key === 'AUTHORITY' || c.key === 'ID');
  return a && String(a.args[0]).toUpperCase() === 'EPSG' ? Number(a.args[1]) : null;
}

function crsFromWkt(wkt: string, file: string): LasCrs {
  const root = parseWkt(wkt);
  if (!root) throw new InputError(file, 'LAS WKT coordinate system record is not valid WKT');
  const parts = root.key === 'COMPD_CS' || root.key === 'COMPOUNDCRS' ? children(root) : [root];
  const horiz = parts.find((p) => !/^VERT/.test(p.key)) ?? null;
  // A vertical CS beside the horizontal one (COMPD_CS), or nested in it (an ESRI-style PROJCS).
  const vert =
    parts.find((p) => /^VERT/.test(p.key)) ??
    (horiz && children(horiz).find((c) => /^VERT/.test(c.key))) ??
    null;
  const geographic = horiz !== null && GEOG.has(horiz.key);
  const h = horiz && !geographic ? unitOf(horiz) : null;
  const vRaw = vert ? unitOf(vert) : null;
  const vUnit = vRaw && { name: vRaw.name, metres: UNIT_BY_NAME[vRaw.name.toLowerCase()] ?? vRaw.metres };
  return {
    from: 'wkt',
    wkt,
    epsg: horiz ? epsgOf(horiz) : null,
    name: horiz && typeof horiz.args[0] === 'string' ? horiz.args[0] : null,
    horizontalUnit: h,
    verticalUnit: vUnit ?? h,
    verticalUnitAssumed: vUnit === null && h !== null,
  };
}

// ---- GeoKeys -----------------------------------------------------------------------------------------

function crsFromGeoKeys(dir: Uint8Array, doubles: Uint8Array | null, ascii: Uint8Array | null): LasCrs {
  const v = new DataView(dir.buffer, dir.byteOffset, dir.byteLength);
  const count = dir.length >= 8 ? v.getUint16(6, true) : 0;
  const keys = new Map<number, { loc: number; n: number; value: number }>();
  for (let k = 0; k < count && 8 + 8 * k + 8 <= dir.length; k++) {
    const o = 8 + 8 * k;
    keys.set(v.getUint16(o, true), {
      loc: v.getUint16(o + 2, true),
      n: v.getUint16(o + 4, true),
      value: v.getUint16(o + 6, true),
    });
  }
  const text = (id: number): string | null => {
    const k = keys.get(id);
    if (!k || k.loc !== 34737 || !ascii) return null;
    return String.fromCharCode(...ascii.subarray(k.value, k.value + k.n)).replace(/[|\0]+$/, '');
  };
  const double = (id: number): number | null => {
    const k = keys.get(id);
    if (!k || k.loc !== 34736 || !doubles || 8 * k.value + 8 > doubles.length) return null;
    return new DataView(doubles.buffer, doubles.byteOffset, doubles.byteLength).getFloat64(8 * k.value, true);
  };
  const code = (id: number): number | null => {
    const k = keys.get(id);
    return k && k.loc === 0 ? k.value : null;
  };
  const unit = (id: number): LinearUnit | null => {
    const c = code(id);
    if (c === null) return null;
    if (c === USER_DEFINED) {
      const size = double(KEY.projLinearUnitSize);
      return size ? { name: 'user-defined', metres: size } : null;
    }
    return GEOTIFF_UNITS[c] ?? null;
  };
  const pcs = code(KEY.projectedCsType);
  const gcs = code(KEY.geographicType);
  const h = unit(KEY.projLinearUnits);
  const vUnit = unit(KEY.verticalUnits);
  const epsg = pcs !== null && pcs !== USER_DEFINED ? pcs : gcs !== null && gcs !== USER_DEFINED ? gcs : null;
  return {
    from: 'geokeys',
    wkt: null,
    epsg,
    name: text(KEY.pcsCitation) ?? text(KEY.gtCitation),
    horizontalUnit: h,
    verticalUnit: vUnit ?? h,
    verticalUnitAssumed: vUnit === null && h !== null,
  };
}

/**
 * The file's CRS: the WKT record when there is one (LAS 1.4 requires WKT for formats 6–10; 1.2 writers
 * often store both), else the GeoKeys; `from: 'none'` when the file states neither.
 */
export function readLasCrs(bytes: Uint8Array, h: LasHeader, file: string): LasCrs {
  const vlrs = readVlrs(bytes, h, file).filter((r) => r.userId === 'LASF_Projection');
  const get = (id: number) => vlrs.find((r) => r.recordId === id)?.data ?? null;
  const wkt = get(2112);
  if (wkt)
    return crsFromWkt(
      new TextDecoder()
        .decode(wkt)
        .replace(/\0[\s\S]*$/, '')
        .trim(),
      file,
    );
  const dir = get(34735);
  if (dir) return crsFromGeoKeys(dir, get(34736), get(34737));
  return {
    from: 'none',
    wkt: null,
    epsg: null,
    name: null,
    horizontalUnit: null,
    verticalUnit: null,
    verticalUnitAssumed: false,
  };
}
