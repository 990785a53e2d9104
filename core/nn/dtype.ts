// Element types of tensors and the JavaScript typed arrays that carry them (ONNX TensorProto
// data types; int64 travels as BigInt64Array, bool as Uint8Array, as onnxruntime-node expects).
import { DATA_TYPE } from './onnxProto.ts';

export type FloatType = 'float32' | 'float64';
export type DType = FloatType | 'int32' | 'int64' | 'bool' | 'uint8';

export type TypedArray = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array;

export function isFloat(dtype: DType): dtype is FloatType {
  return dtype === 'float32' || dtype === 'float64';
}

export function onnxDataType(dtype: DType): number {
  return DATA_TYPE[dtype];
}

export function dtypeFromOnnx(code: number): DType {
  for (const [k, v] of Object.entries(DATA_TYPE)) if (v === code) return k as DType;
  throw new Error(`unsupported ONNX data type ${code}`);
}

export function bytesPerElement(dtype: DType): number {
  switch (dtype) {
    case 'float64':
    case 'int64':
      return 8;
    case 'float32':
    case 'int32':
      return 4;
    default:
      return 1;
  }
}

/** A zero-filled typed array of the right kind for `dtype`. */
export function allocArray(dtype: DType, n: number): TypedArray {
  switch (dtype) {
    case 'float32':
      return new Float32Array(n);
    case 'float64':
      return new Float64Array(n);
    case 'int32':
      return new Int32Array(n);
    case 'int64':
      return new BigInt64Array(n);
    default:
      return new Uint8Array(n);
  }
}

/** Build a typed array of `dtype` from plain numbers (or booleans). */
export function arrayFrom(dtype: DType, values: ArrayLike<number | boolean | bigint>): TypedArray {
  const out = allocArray(dtype, values.length);
  if (out instanceof BigInt64Array) {
    for (let i = 0; i < values.length; i++) out[i] = BigInt(values[i] as number);
  } else {
    for (let i = 0; i < values.length; i++) out[i] = Number(values[i]);
  }
  return out;
}

/** Does `data` have the typed-array kind that carries `dtype`? */
export function matchesDType(data: TypedArray, dtype: DType): boolean {
  switch (dtype) {
    case 'float32':
      return data instanceof Float32Array;
    case 'float64':
      return data instanceof Float64Array;
    case 'int32':
      return data instanceof Int32Array;
    case 'int64':
      return data instanceof BigInt64Array;
    default:
      return data instanceof Uint8Array;
  }
}
