// numpy array payloads as pickles carry them: raw bytes of a dtype ('<f4', '>i8', '|b1', …) decoded into
// numbers, and Fortran-order data reordered row-major (numpy's array-interface type strings).
import { InputError } from '../core/errors.ts';

/** A numpy array as the pickle describes it: dtype string ('<f4', '|b1', …), shape and the values. */
export interface NdArray {
  kind: 'ndarray';
  dtype: string;
  shape: number[];
  /** Row-major values (numbers: float64/int as Float64Array; bools as Uint8Array; object arrays: list). */
  data: Float64Array | Uint8Array | unknown[];
}

const DTYPE_SIZES: Record<string, number> = {
  b1: 1,
  i1: 1,
  u1: 1,
  i2: 2,
  u2: 2,
  i4: 4,
  u4: 4,
  i8: 8,
  u8: 8,
  f2: 2,
  f4: 4,
  f8: 8,
};

/** Decode raw array bytes of a dtype ('<f4', '>i8', '|b1', …) into numbers. */
export function decodeArray(
  file: string,
  dtype: string,
  raw: Uint8Array,
  count: number,
): Float64Array | Uint8Array {
  const order = dtype[0];
  const code = dtype.slice(1);
  const size = DTYPE_SIZES[code];
  if (size === undefined) throw new InputError(file, `pickle: unsupported numpy dtype '${dtype}'`);
  if (raw.length !== count * size)
    throw new InputError(
      file,
      `pickle: numpy array of ${count} × ${dtype} needs ${count * size} bytes, the pickle holds ${raw.length}`,
    );
  if (code === 'b1') return Uint8Array.from(raw, (v) => (v ? 1 : 0));
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const le = order !== '>';
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const o = i * size;
    switch (code) {
      case 'i1':
        out[i] = dv.getInt8(o);
        break;
      case 'u1':
        out[i] = dv.getUint8(o);
        break;
      case 'i2':
        out[i] = dv.getInt16(o, le);
        break;
      case 'u2':
        out[i] = dv.getUint16(o, le);
        break;
      case 'i4':
        out[i] = dv.getInt32(o, le);
        break;
      case 'u4':
        out[i] = dv.getUint32(o, le);
        break;
      case 'i8':
        out[i] = Number(dv.getBigInt64(o, le));
        break;
      case 'u8':
        out[i] = Number(dv.getBigUint64(o, le));
        break;
      case 'f2':
        out[i] = halfToFloat(dv.getUint16(o, le));
        break;
      case 'f4':
        out[i] = dv.getFloat32(o, le);
        break;
      default:
        out[i] = dv.getFloat64(o, le);
    }
  }
  return out;
}

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}

/** Reorder a Fortran-order (column-major) array into row-major. */
export function toRowMajor<T extends Float64Array | Uint8Array>(data: T, shape: number[]): T {
  if (shape.length < 2) return data;
  const out = data.slice() as T;
  const n = data.length;
  const idx = new Array<number>(shape.length).fill(0);
  for (let k = 0; k < n; k++) {
    // k walks Fortran order: first index fastest.
    let rm = 0;
    for (let d = 0; d < shape.length; d++) rm = rm * shape[d] + idx[d];
    out[rm] = data[k];
    for (let d = 0; d < shape.length; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}
