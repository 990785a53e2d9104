// The whitelisting pickle reader: plain containers and numpy arrays (bytes built here, as Python's
// pickle writes them) come back; hostile pickles (unknown globals, REDUCE of a callable, object builds,
// truncation, absurd sizes) are refused with an error naming the file and what was refused.
import { describe, expect, it } from 'vitest';
import { type NdArray, PyTuple, readPickle } from '../../datasets/pickle.ts';

const F = 'evil.pkl';

/** A byte builder for pickle opcodes. */
class P {
  private b: number[] = [];
  op(...bytes: number[]) {
    this.b.push(...bytes);
    return this;
  }
  u32(n: number) {
    return this.op(n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255);
  }
  str(s: string) {
    const e = Buffer.from(s, 'utf8');
    return this.op(0x8c, e.length, ...e);
  }
  bytes(raw: Uint8Array) {
    return this.op(0x42)
      .u32(raw.length)
      .op(...raw);
  }
  int(n: number) {
    return this.op(0x4b, n);
  }
  global(mod: string, name: string) {
    return this.str(mod).str(name).op(0x93);
  }
  done() {
    return Uint8Array.from([0x80, 4, ...this.b, 0x2e]);
  }
}

/** numpy.core.multiarray._reconstruct(ndarray, (0,), b'b') + BUILD((1, shape, dtype('f4'), False, raw)). */
function float32Array(p: P, values: number[], shape: number[]) {
  const raw = new Uint8Array(new Float32Array(values).buffer);
  p.global('numpy.core.multiarray', '_reconstruct')
    .global('numpy', 'ndarray')
    .int(0)
    .op(0x85) // (0,)
    .op(0x43, 1, 0x62) // b'b'
    .op(0x87) // TUPLE3
    .op(0x52); // REDUCE
  p.op(0x28).int(1); // MARK, version 1
  for (const d of shape) p.int(d);
  p.op(shape.length === 2 ? 0x86 : 0x85); // shape tuple
  p.global('numpy', 'dtype').str('f4').op(0x89, 0x88, 0x87, 0x52); // dtype('f4', False, True)
  p.op(0x28)
    .int(3)
    .str('<')
    .op(0x4e, 0x4e, 0x4e)
    .op(0x4a)
    .u32(0xffffffff)
    .op(0x4a)
    .u32(0xffffffff)
    .int(0)
    .op(0x74, 0x62);
  p.op(0x89).bytes(raw).op(0x74, 0x62); // False, raw, TUPLE, BUILD
}

describe('pickle reader', () => {
  it('reads dicts, lists, tuples, numbers, strings and a numpy float32 array', () => {
    const p = new P().op(0x7d, 0x94, 0x28); // {} memo, MARK
    p.str('name').str('scene-1');
    p.str('n').op(0x4a).u32(123456);
    p.str('f').op(0x47, ...Buffer.from([0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18])); // pi, big-endian
    p.str('xs').op(0x5d, 0x28).int(1).int(2).op(0x65); // [1, 2]
    p.str('pos');
    float32Array(p, [1.5, -2, 3, 4.25, 5, 6], [2, 3]);
    p.op(0x75); // SETITEMS
    const d = readPickle(p.done(), F) as Map<string, unknown>;
    expect(d.get('name')).toBe('scene-1');
    expect(d.get('n')).toBe(123456);
    expect(d.get('f')).toBeCloseTo(Math.PI, 12);
    expect(d.get('xs')).toEqual([1, 2]);
    const a = d.get('pos') as NdArray;
    expect(a.shape).toEqual([2, 3]);
    expect(a.dtype).toBe('<f4');
    expect(Array.from(a.data as Float64Array)).toEqual([1.5, -2, 3, 4.25, 5, 6]);
  });

  it('keeps tuples apart from lists and reads defaultdict as a dict', () => {
    const p = new P()
      .global('collections', 'defaultdict')
      .global('builtins', 'int')
      .op(0x85, 0x52) // defaultdict((int,))
      .op(0x28)
      .str('k')
      .int(1)
      .int(2)
      .op(0x86, 0x75); // {'k': (1, 2)}
    const d = readPickle(p.done(), F) as Map<string, unknown>;
    expect(d.get('k')).toBeInstanceOf(PyTuple);
    expect((d.get('k') as PyTuple).items).toEqual([1, 2]);
  });

  it('refuses an unknown GLOBAL, naming the file and the global', () => {
    const p = new P().global('os', 'system').str('echo pwned').op(0x85, 0x52);
    expect(() => readPickle(p.done(), F)).toThrow(/^evil\.pkl: pickle: refused global 'os\.system'/);
    // The text form of GLOBAL too.
    const q = new P().op(0x63, ...Buffer.from('subprocess\ncall\n'));
    expect(() => readPickle(q.done(), F)).toThrow("refused global 'subprocess.call'");
  });

  it('refuses REDUCE of a whitelisted name that is not a numpy reconstruction', () => {
    // builtins.int may be named (defaultdict's factory) but never called.
    const p = new P().global('builtins', 'int').str('7').op(0x85, 0x52);
    expect(() => readPickle(p.done(), F)).toThrow("evil.pkl: pickle: refused REDUCE of 'builtins.int'");
    // numpy's _reconstruct of anything but ndarray.
    const q = new P()
      .global('numpy.core.multiarray', '_reconstruct')
      .global('numpy', 'dtype')
      .int(0)
      .op(0x85)
      .op(0x43, 1, 0x62, 0x87, 0x52);
    expect(() => readPickle(q.done(), F)).toThrow('only numpy.ndarray is allowed');
  });

  it('refuses object construction (NEWOBJ, BUILD of a plain value), persistent ids and extensions', () => {
    const newobj = new P().global('numpy', 'ndarray').op(0x29, 0x81);
    expect(() => readPickle(newobj.done(), F)).toThrow('refused NEWOBJ');
    const build = new P().op(0x7d, 0x7d, 0x62);
    expect(() => readPickle(build.done(), F)).toThrow('refused BUILD of a dict');
    expect(() => readPickle(new P().str('x').op(0x51).done(), F)).toThrow('refused persistent id');
    expect(() => readPickle(new P().op(0x82, 1).done(), F)).toThrow('refused extension-registry opcode');
  });

  it('refuses a truncated stream', () => {
    const full = new P().op(0x7d, 0x28).str('key').str('value').op(0x75).done();
    for (const cut of [3, 8, full.length - 1])
      expect(() => readPickle(full.subarray(0, cut), F)).toThrow(
        /^evil\.pkl: pickle: (truncated stream|stack underflow)/,
      );
    // A string whose length runs past the end.
    const long = Uint8Array.from([0x80, 4, 0x58, 0xff, 0xff, 0xff, 0x7f, 0x61]);
    expect(() => readPickle(long, F)).toThrow('truncated stream');
  });

  it('refuses absurd sizes: an 8-byte length beyond the file and an array beyond the element limit', () => {
    const huge = Uint8Array.from([0x80, 4, 0x8e, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x2e]); // BINBYTES8 of 2^60
    expect(() => readPickle(huge, F)).toThrow(/a length of \d+ bytes .* the stream holds 12/);
    const p = new P();
    float32Array(p, [1, 2, 3, 4, 5, 6], [2, 3]);
    const limits = { maxBytes: 1 << 20, maxArrayElements: 5, maxItems: 1 << 20, maxMemo: 1 << 10 };
    expect(() => readPickle(p.done(), F, limits)).toThrow(
      'a numpy array of 6 elements, more than the limit of 5',
    );
    // Shape and data that disagree.
    const q = new P();
    float32Array(q, [1, 2, 3, 4, 5], [2, 3]);
    expect(() => readPickle(q.done(), F)).toThrow('needs 24 bytes, the pickle holds 20');
  });

  it('refuses a protocol above 5 and an unknown opcode', () => {
    expect(() => readPickle(Uint8Array.from([0x80, 6, 0x4e, 0x2e]), F)).toThrow('pickle protocol 6');
    expect(() => readPickle(Uint8Array.from([0x80, 4, 0xfe, 0x2e]), F)).toThrow('unsupported opcode 0xfe');
  });
});
