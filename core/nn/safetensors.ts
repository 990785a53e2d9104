// The safetensors file format (Hugging Face): 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets}, __metadata__: {string: string}}, then the raw tensor bytes.
import fs from 'node:fs';
import { writeFileAtomic } from '../atomic.ts';
import { InputError } from '../errors.ts';
import { allocArray, bytesPerElement, type DType, type TypedArray } from './dtype.ts';

export interface NamedTensor {
  dtype: DType;
  shape: readonly number[];
  data: TypedArray;
}

const TO_ST: Record<DType, string> = {
  float32: 'F32',
  float64: 'F64',
  int32: 'I32',
  int64: 'I64',
  uint8: 'U8',
  bool: 'BOOL',
};
const FROM_ST: Record<string, DType> = Object.fromEntries(
  Object.entries(TO_ST).map(([k, v]) => [v, k as DType]),
);

export function encodeSafetensors(
  tensors: ReadonlyMap<string, NamedTensor>,
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  // Sorted names, like the reference implementation, so equal contents give equal files.
  const names = [...tensors.keys()].sort();
  for (const name of names) {
    const t = tensors.get(name)!;
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.data.length)
      throw new Error(`safetensors: '${name}' has ${t.data.length} values for shape [${t.shape}]`);
    const bytes = n * bytesPerElement(t.dtype);
    header[name] = { dtype: TO_ST[t.dtype], shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  // Pad the header with spaces so the data starts 8-byte aligned.
  json += ' '.repeat((8 - ((Buffer.byteLength(json) + 8) % 8)) % 8);
  const headerBytes = Buffer.from(json, 'utf8');
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let pos = 8 + headerBytes.length;
  for (const name of names) {
    const d = tensors.get(name)!.data;
    out.set(new Uint8Array(d.buffer, d.byteOffset, d.byteLength), pos);
    pos += d.byteLength;
  }
  return out;
}

export interface DecodedSafetensors {
  tensors: Map<string, NamedTensor>;
  metadata: Record<string, string>;
}

/** Parse safetensors bytes; `file` names the source in errors. */
export function decodeSafetensors(bytes: Uint8Array, file = '<safetensors>'): DecodedSafetensors {
  if (bytes.length < 8) throw new InputError(file, 'too short for a safetensors header');
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  if (8 + n > bytes.length) throw new InputError(file, `header length ${n} exceeds the file`);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, n).toString('utf8'));
  } catch (e) {
    throw new InputError(file, `bad safetensors header: ${(e as Error).message}`);
  }
  const base = 8 + n;
  const tensors = new Map<string, NamedTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, v] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = v as Record<string, string>;
      continue;
    }
    const e = v as { dtype: string; shape: number[]; data_offsets: [number, number] };
    const dtype = FROM_ST[e.dtype];
    if (!dtype) throw new InputError(file, `tensor '${name}' has unsupported dtype ${e.dtype}`);
    const [b0, b1] = e.data_offsets;
    const count = e.shape.reduce((a, b) => a * b, 1);
    if (b1 - b0 !== count * bytesPerElement(dtype) || base + b1 > bytes.length) {
      throw new InputError(file, `tensor '${name}' has inconsistent offsets`);
    }
    // Copy into a fresh (aligned) array.
    const data: TypedArray = allocArray(dtype, count);
    new Uint8Array(data.buffer).set(bytes.subarray(base + b0, base + b1));
    tensors.set(name, { dtype, shape: e.shape, data });
  }
  return { tensors, metadata };
}

export async function writeSafetensors(
  path: string,
  tensors: ReadonlyMap<string, NamedTensor>,
  metadata: Readonly<Record<string, string>> = {},
): Promise<void> {
  await writeFileAtomic(path, encodeSafetensors(tensors, metadata));
}

export async function readSafetensors(path: string): Promise<DecodedSafetensors> {
  return decodeSafetensors(new Uint8Array(await fs.promises.readFile(path)), path);
}
