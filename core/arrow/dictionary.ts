// Dictionary-encoded string columns (Arrow Dictionary<Int32, Utf8>, the Arrow columnar format's
// dictionary encoding): named values such as classes and light states, each name stored once per batch.
import {
  type Data,
  Dictionary,
  Int8,
  Int32,
  makeData,
  Utf8,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';

/**
 * One dictionary vector per fixed vocabulary, shared by every batch: the Arrow file format allows one
 * dictionary per column for the whole file, and apache-arrow's writer recognises it by identity.
 */
const SHARED = new Map<string, Vector<Utf8>>();
function sharedDictionary(vocabulary: readonly string[]): Vector<Utf8> {
  const key = vocabulary.join('\u0000');
  let v = SHARED.get(key);
  if (!v) SHARED.set(key, (v = vectorFromArray([...vocabulary], new Utf8())));
  return v;
}

/** The type of a dictionary-encoded string column (Polars reads it as Categorical, pandas as category). */
export const dictUtf8Type = () => new Dictionary(new Utf8(), new Int32());

/** The type of a small fixed vocabulary (≤ 127 names) whose index is the name's code (light states). */
export const dictCodeType = () => new Dictionary(new Utf8(), new Int8());

/**
 * A dictionary-encoded column of `values`; the dictionary is `vocabulary` (its order fixes the codes)
 * followed by any other value met, in order of appearance. `null` entries are nulls. When every value
 * is in `vocabulary`, the batch shares its dictionary with every other such batch (files of many batches).
 */
export function dictUtf8Data(values: readonly (string | null)[], vocabulary: readonly string[] = []): Data {
  const names = [...vocabulary];
  const code = new Map(names.map((v, i) => [v, i]));
  const indices = new Int32Array(values.length);
  let nulls = 0;
  const bits = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v === null) {
      nulls++;
      return;
    }
    let k = code.get(v);
    if (k === undefined) {
      k = names.length;
      names.push(v);
      code.set(v, k);
    }
    indices[i] = k;
    bits[i >> 3] |= 1 << (i & 7);
  });
  return makeData({
    type: dictUtf8Type(),
    length: values.length,
    nullCount: nulls,
    ...(nulls ? { nullBitmap: bits } : {}),
    data: indices,
    dictionary:
      names.length === vocabulary.length && vocabulary.length > 0
        ? sharedDictionary(vocabulary)
        : vectorFromArray(names, new Utf8()),
  } as never);
}

/**
 * A dictionary-encoded column of codes into a fixed vocabulary (code k names `vocabulary[k]`), so a
 * reader of the indices sees the same codes as before; codes listed in `nullCodes` become nulls.
 */
export function dictCodeData(
  codes: ArrayLike<number>,
  vocabulary: readonly string[],
  nullCodes: number[] = [],
  type: Dictionary = dictCodeType(),
): Data {
  const n = codes.length;
  const indices = new Int8Array(n);
  const bits = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const c = codes[i];
    if (nullCodes.includes(c)) {
      nulls++;
      continue;
    }
    if (!(c >= 0 && c < vocabulary.length))
      throw new Error(`code ${c} has no name (${vocabulary.length} names)`);
    indices[i] = c;
    bits[i >> 3] |= 1 << (i & 7);
  }
  return makeData({
    type,
    length: n,
    nullCount: nulls,
    ...(nulls ? { nullBitmap: bits } : {}),
    data: indices,
    dictionary: sharedDictionary(vocabulary),
  } as never);
}
