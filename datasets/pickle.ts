// A safe reader of Python pickles (protocols 2–5): the stack machine is interpreted for plain data only
// (None, bools, ints, floats, str, bytes, list, tuple, dict, set) plus numpy arrays rebuilt by a whitelist
// of globals; any other global, REDUCE target, object build or extension is refused (CPython pickletools).
import fs from 'node:fs';
import { InputError } from '../core/errors.ts';
import { decodeArray, type NdArray, toRowMajor } from './numpyArray.ts';

import { ALLOWED_GLOBALS, DEFAULT_PICKLE_LIMITS, type PickleLimits } from './pickleWhitelist.ts';
import {
  NumpyDtype,
  PyGlobal,
  PySet,
  PyTuple,
  type PyDict,
  type PyKey,
  type PyValue,
} from './pickleValues.ts';

/** An ndarray made by _reconstruct, awaiting its BUILD state. */
class PendingArray {
  array: NdArray | null = null;
}

const MARK = Symbol('mark');
type StackItem = PyValue | typeof MARK | PendingArray;

const describe = (v: StackItem): string => {
  if (v === MARK) return 'a mark';
  if (v instanceof PyGlobal) return `${v.module}.${v.name}`;
  if (v === null) return 'None';
  if (v instanceof PendingArray) return 'numpy.ndarray';
  if (Array.isArray(v)) return 'a list';
  if (v instanceof Map) return 'a dict';
  if (v instanceof PyTuple) return 'a tuple';
  return typeof v;
};

/**
 * Interpret a pickle. `file` names the input in errors. Throws InputError for a truncated stream, an
 * opcode outside the supported set, a global outside the whitelist, a call of anything but numpy's
 * array reconstruction, or sizes beyond `limits`.
 */
export function readPickle(
  bytes: Uint8Array,
  file: string,
  limits: PickleLimits = DEFAULT_PICKLE_LIMITS,
): PyValue {
  if (bytes.length > limits.maxBytes)
    throw new InputError(file, `pickle: ${bytes.length} bytes, more than the limit of ${limits.maxBytes}`);
  const fail = (what: string): never => {
    throw new InputError(file, `pickle: ${what}`);
  };
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let pos = 0;
  const stack: StackItem[] = [];
  const marks: number[] = [];
  const memo = new Map<number, StackItem>();
  let items = 0;

  const need = (n: number, what: string) => {
    if (!Number.isFinite(n) || n < 0 || pos + n > bytes.length)
      fail(`truncated stream: ${what} at byte ${pos} needs ${n} bytes, ${bytes.length - pos} left`);
  };
  const u8 = () => {
    need(1, 'an opcode argument');
    return bytes[pos++];
  };
  const u16 = () => {
    need(2, 'a 2-byte argument');
    const v = dv.getUint16(pos, true);
    pos += 2;
    return v;
  };
  const u32 = () => {
    need(4, 'a 4-byte argument');
    const v = dv.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const i32 = () => {
    need(4, 'a 4-byte argument');
    const v = dv.getInt32(pos, true);
    pos += 4;
    return v;
  };
  const u64 = () => {
    need(8, 'an 8-byte argument');
    const v = dv.getBigUint64(pos, true);
    pos += 8;
    if (v > BigInt(bytes.length))
      fail(`a length of ${v} bytes at byte ${pos - 8}, the stream holds ${bytes.length}`);
    return Number(v);
  };
  const take = (n: number, what: string) => {
    need(n, what);
    const out = bytes.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const text = (n: number) => {
    const raw = take(n, 'a string');
    try {
      return utf8.decode(raw);
    } catch {
      return fail(`invalid UTF-8 in a string at byte ${pos - n}`);
    }
  };
  const push = (v: StackItem) => {
    if (++items > limits.maxItems) fail(`more than ${limits.maxItems} items`);
    stack.push(v);
  };
  const pop = (): StackItem => {
    if (stack.length === 0 || (marks.length && stack.length <= marks[marks.length - 1]))
      fail(`stack underflow at byte ${pos - 1}`);
    return stack.pop()!;
  };
  const top = (): StackItem => {
    if (stack.length === 0) fail(`stack underflow at byte ${pos - 1}`);
    return stack[stack.length - 1];
  };
  const popMark = (): StackItem[] => {
    const m = marks.pop();
    if (m === undefined) fail(`no mark to pop at byte ${pos - 1}`);
    return stack.splice(m!);
  };
  const value = (v: StackItem, where: string): PyValue => {
    if (v === MARK) return fail(`a mark used as a value (${where})`);
    if (v instanceof PendingArray) {
      if (!v.array) return fail(`a numpy array used before its state was set (${where})`);
      return v.array;
    }
    return v;
  };
  const keyOf = (k: PyValue): PyKey => {
    if (k === null || typeof k === 'string' || typeof k === 'number' || typeof k === 'boolean') return k;
    if (k instanceof PyTuple) return JSON.stringify(k.items);
    return fail(`an unhashable dict key (${describe(k)})`);
  };
  const dictOf = (d: StackItem, op: string): PyDict => {
    if (!(d instanceof Map)) return fail(`${op} on ${describe(d)}, not a dict`);
    return d;
  };
  const memoPut = (k: number) => {
    if (memo.size >= limits.maxMemo && !memo.has(k)) fail(`more than ${limits.maxMemo} memo entries`);
    memo.set(k, top());
  };
  const memoGet = (k: number) => {
    if (!memo.has(k)) fail(`memo entry ${k} read before it was written (byte ${pos})`);
    push(memo.get(k)!);
  };
  const global = (module: string, name: string): PyGlobal => {
    const full = `${module}.${name}`;
    if (!ALLOWED_GLOBALS.has(full))
      fail(`refused global '${full}' (only numpy array reconstruction and plain containers are allowed)`);
    return new PyGlobal(module, name);
  };
  const asInt = (v: PyValue, what: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v)) return fail(`${what} is not an integer`);
    return v;
  };

  const reduce = (fn: StackItem, args: StackItem): StackItem => {
    if (!(fn instanceof PyGlobal)) return fail(`REDUCE of ${describe(fn)}, not a whitelisted callable`);
    if (!(args instanceof PyTuple)) return fail(`REDUCE of ${describe(fn)} with ${describe(args)} arguments`);
    const a = args.items;
    switch (fn.name) {
      case '_reconstruct': {
        // _reconstruct(ndarray, (0,), b'b'): an empty array whose BUILD state follows.
        const cls = a[0];
        if (!(cls instanceof PyGlobal) || cls.name !== 'ndarray')
          return fail(`numpy _reconstruct of ${describe(cls as StackItem)}, only numpy.ndarray is allowed`);
        return new PendingArray();
      }
      case 'dtype': {
        if (typeof a[0] !== 'string') return fail('numpy.dtype of a non-string type code');
        return new NumpyDtype(a[0]);
      }
      case 'scalar': {
        // scalar(dtype, raw bytes): one numpy scalar.
        const dt = a[0];
        const raw = a[1];
        if (!(dt instanceof NumpyDtype) || !(raw instanceof Uint8Array))
          return fail('numpy scalar: bad arguments');
        const arr = decodeArray(file, dt.str, raw, 1);
        return arr[0];
      }
      case '_frombuffer': {
        // _frombuffer(buffer, dtype, shape, order): a protocol-5 in-band array.
        const [buf, dt, shape, order] = a;
        if (!(buf instanceof Uint8Array) || !(dt instanceof NumpyDtype) || !(shape instanceof PyTuple))
          return fail('numpy _frombuffer: bad arguments');
        return makeArray(dt, shape.items, buf, order === 'F');
      }
      case 'encode': {
        // Protocol 2 writes bytes as _codecs.encode(text, 'latin1'): a pure conversion back to bytes.
        if (typeof a[0] !== 'string' || (a[1] !== 'latin1' && a[1] !== 'latin-1'))
          return fail('_codecs.encode other than (str, latin1)');
        return Uint8Array.from(Buffer.from(a[0], 'latin1'));
      }
      case 'defaultdict':
      case 'OrderedDict':
      case 'dict':
        if (a.length > 0 && fn.name !== 'defaultdict') return fail(`${fn.module}.${fn.name} with arguments`);
        return new Map();
      case 'set':
      case 'frozenset':
        if (a.length === 0) return new PySet([]);
        if (Array.isArray(a[0])) return new PySet([...a[0]]);
        return fail(`${fn.name} of ${describe(a[0])}`);
      case 'list':
        if (a.length === 0) return [];
        if (Array.isArray(a[0])) return [...a[0]];
        return fail(`list of ${describe(a[0])}`);
      default:
        return fail(`refused REDUCE of '${fn.module}.${fn.name}' (not a whitelisted callable)`);
    }
  };

  const makeArray = (dt: NumpyDtype, shapeItems: PyValue[], raw: PyValue, fortran: boolean): NdArray => {
    const shape = shapeItems.map((v) => asInt(v, 'a numpy shape entry'));
    let count = 1;
    for (const d of shape) {
      if (d < 0) fail(`a negative numpy dimension ${d}`);
      count *= d;
    }
    if (count > limits.maxArrayElements)
      fail(`a numpy array of ${count} elements, more than the limit of ${limits.maxArrayElements}`);
    const dtype = dt.str;
    if (dt.code === 'O') {
      if (!Array.isArray(raw) || raw.length !== count) fail('a numpy object array without its element list');
      return { kind: 'ndarray', dtype, shape, data: raw as PyValue[] };
    }
    if (!(raw instanceof Uint8Array)) return fail(`numpy array data of ${describe(raw)}, not bytes`);
    let data = decodeArray(file, dtype, raw, count);
    if (fortran) data = toRowMajor(data, shape);
    return { kind: 'ndarray', dtype, shape, data };
  };

  const build = (obj: StackItem, state: StackItem): void => {
    if (obj instanceof PendingArray) {
      // ndarray.__setstate__((version, shape, dtype, is_fortran, rawdata)).
      if (!(state instanceof PyTuple)) fail('numpy array state is not a tuple');
      const s = (state as PyTuple).items;
      const [shape, dt, fortran, raw] = s.length === 5 ? s.slice(1) : s;
      if (!(shape instanceof PyTuple) || !(dt instanceof NumpyDtype)) fail('numpy array state is malformed');
      obj.array = makeArray(dt as NumpyDtype, (shape as PyTuple).items, raw as PyValue, fortran === true);
      return;
    }
    if (obj instanceof NumpyDtype) {
      // dtype.__setstate__((version, byteorder, subdtype, names, fields, elsize, alignment, flags)).
      if (!(state instanceof PyTuple)) fail('numpy dtype state is not a tuple');
      const s = (state as PyTuple).items;
      if (s[2] !== null && s[2] !== undefined) fail('numpy sub-array dtypes are not supported');
      if (s[3] !== null && s[3] !== undefined) fail('numpy structured dtypes are not supported');
      if (typeof s[1] === 'string') obj.order = s[1];
      return;
    }
    fail(`refused BUILD of ${describe(obj)} (only numpy arrays and dtypes are rebuilt)`);
  };

  if (bytes.length === 0) fail('empty file');
  for (;;) {
    if (pos >= bytes.length) fail(`truncated stream: no STOP opcode before byte ${bytes.length}`);
    const at = pos;
    const op = bytes[pos++];
    switch (op) {
      case 0x80: {
        const proto = u8();
        if (proto > 5) fail(`pickle protocol ${proto} (this reader knows 2–5)`);
        break;
      }
      case 0x95: // FRAME: a length prefix; the frame's opcodes follow inline.
        u64();
        break;
      case 0x2e: {
        // STOP
        if (stack.length !== 1) fail(`STOP with ${stack.length} items on the stack`);
        return value(stack[0], 'the result');
      }
      case 0x28: // MARK
        marks.push(stack.length);
        break;
      case 0x30: // POP
        if (marks.length && marks[marks.length - 1] === stack.length) marks.pop();
        else pop();
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x32: // DUP
        push(top());
        break;
      case 0x4e: // NONE
        push(null);
        break;
      case 0x88:
        push(true);
        break;
      case 0x89:
        push(false);
        break;
      case 0x4a: // BININT
        push(i32());
        break;
      case 0x4b: // BININT1
        push(u8());
        break;
      case 0x4d: // BININT2
        push(u16());
        break;
      case 0x8a: // LONG1
      case 0x8b: {
        // LONG4: little-endian two's complement of n bytes.
        const n = op === 0x8a ? u8() : u32();
        if (n > 8) fail(`an integer of ${n} bytes (more than 64 bits) at byte ${at}`);
        const raw = take(n, 'an integer');
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(raw[i]);
        if (n > 0 && raw[n - 1] & 0x80) v -= 1n << BigInt(8 * n);
        push(Number(v));
        break;
      }
      case 0x47: {
        // BINFLOAT: big-endian float64
        need(8, 'a float');
        push(dv.getFloat64(pos, false));
        pos += 8;
        break;
      }
      case 0x8c: // SHORT_BINUNICODE
        push(text(u8()));
        break;
      case 0x58: // BINUNICODE
        push(text(u32()));
        break;
      case 0x8d: // BINUNICODE8
        push(text(u64()));
        break;
      case 0x55: // SHORT_BINSTRING (Python 2 str: bytes as latin-1)
        push(Buffer.from(take(u8(), 'a string')).toString('latin1'));
        break;
      case 0x54: {
        // BINSTRING
        const n = i32();
        push(Buffer.from(take(n, 'a string')).toString('latin1'));
        break;
      }
      case 0x43: // SHORT_BINBYTES
        push(take(u8(), 'bytes').slice());
        break;
      case 0x42: // BINBYTES
        push(take(u32(), 'bytes').slice());
        break;
      case 0x8e: // BINBYTES8
      case 0x96: // BYTEARRAY8
        push(take(u64(), 'bytes').slice());
        break;
      case 0x5d: // EMPTY_LIST
        push([]);
        break;
      case 0x6c: // LIST
        push(popMark().map((v) => value(v, 'a list item')));
        break;
      case 0x61: {
        // APPEND
        const v = value(pop(), 'an appended item');
        const list = top();
        if (!Array.isArray(list)) fail(`APPEND to ${describe(list)}, not a list`);
        (list as PyValue[]).push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const vs = popMark().map((v) => value(v, 'an appended item'));
        const list = top();
        if (!Array.isArray(list)) fail(`APPENDS to ${describe(list)}, not a list`);
        for (const v of vs) (list as PyValue[]).push(v);
        break;
      }
      case 0x29: // EMPTY_TUPLE
        push(new PyTuple([]));
        break;
      case 0x74: // TUPLE
        push(new PyTuple(popMark().map((v) => value(v, 'a tuple item'))));
        break;
      case 0x85:
      case 0x86:
      case 0x87: {
        const n = op - 0x84;
        const vs: PyValue[] = [];
        for (let i = 0; i < n; i++) vs.unshift(value(pop(), 'a tuple item'));
        push(new PyTuple(vs));
        break;
      }
      case 0x7d: // EMPTY_DICT
        push(new Map());
        break;
      case 0x64: {
        // DICT
        const kv = popMark();
        if (kv.length % 2) fail('DICT with an odd number of items');
        const d: PyDict = new Map();
        for (let i = 0; i < kv.length; i += 2)
          d.set(keyOf(value(kv[i], 'a key')), value(kv[i + 1], 'a value'));
        push(d);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = value(pop(), 'a value');
        const k = value(pop(), 'a key');
        dictOf(top(), 'SETITEM').set(keyOf(k), v);
        break;
      }
      case 0x75: {
        // SETITEMS
        const kv = popMark();
        if (kv.length % 2) fail('SETITEMS with an odd number of items');
        const d = dictOf(top(), 'SETITEMS');
        for (let i = 0; i < kv.length; i += 2)
          d.set(keyOf(value(kv[i], 'a key')), value(kv[i + 1], 'a value'));
        break;
      }
      case 0x8f: // EMPTY_SET
        push(new PySet([]));
        break;
      case 0x90: {
        // ADDITEMS
        const vs = popMark().map((v) => value(v, 'a set item'));
        const set = top();
        if (!(set instanceof PySet)) fail(`ADDITEMS to ${describe(set)}, not a set`);
        (set as PySet).items.push(...vs);
        break;
      }
      case 0x91: // FROZENSET
        push(new PySet(popMark().map((v) => value(v, 'a set item'))));
        break;
      case 0x71: // BINPUT
        memoPut(u8());
        break;
      case 0x72: // LONG_BINPUT
        memoPut(u32());
        break;
      case 0x94: // MEMOIZE
        memoPut(memo.size);
        break;
      case 0x68: // BINGET
        memoGet(u8());
        break;
      case 0x6a: // LONG_BINGET
        memoGet(u32());
        break;
      case 0x63: {
        // GLOBAL: "module\nname\n"
        const line = () => {
          const end = bytes.indexOf(0x0a, pos);
          if (end < 0) fail('truncated stream: GLOBAL without its newline');
          const s = Buffer.from(bytes.subarray(pos, end)).toString('latin1');
          pos = end + 1;
          return s;
        };
        const module = line();
        push(global(module, line()));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = value(pop(), 'a global name');
        const module = value(pop(), 'a global module');
        if (typeof module !== 'string' || typeof name !== 'string') fail('STACK_GLOBAL of non-strings');
        push(global(module as string, name as string));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop();
        const fn = pop();
        push(reduce(fn, args));
        break;
      }
      case 0x62: {
        // BUILD
        const state = pop();
        build(top(), state);
        break;
      }
      case 0x81:
      case 0x92:
        fail(`refused ${op === 0x81 ? 'NEWOBJ' : 'NEWOBJ_EX'} at byte ${at} (no class instances are built)`);
        break;
      case 0x69:
      case 0x6f:
        fail(`refused ${op === 0x69 ? 'INST' : 'OBJ'} at byte ${at} (no class instances are built)`);
        break;
      case 0x50:
      case 0x51:
        fail(`refused persistent id at byte ${at}`);
        break;
      case 0x82:
      case 0x83:
      case 0x84:
        fail(`refused extension-registry opcode at byte ${at}`);
        break;
      case 0x97:
      case 0x98:
        fail(`refused out-of-band buffer at byte ${at} (only in-band data is read)`);
        break;
      default:
        fail(`unsupported opcode 0x${op.toString(16).padStart(2, '0')} at byte ${at} (protocols 2–5 only)`);
    }
  }
}

/** Read a pickle file (its size checked before it is read). */
export function readPickleFile(file: string, limits: PickleLimits = DEFAULT_PICKLE_LIMITS): PyValue {
  const size = fs.statSync(file).size;
  if (size > limits.maxBytes)
    throw new InputError(file, `pickle: ${size} bytes, more than the limit of ${limits.maxBytes}`);
  return readPickle(fs.readFileSync(file), file, limits);
}
