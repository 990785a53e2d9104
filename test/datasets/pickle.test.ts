// The whitelisting pickle reader: plain containers and numpy arrays (bytes built here, as Python's
// pickle writes them) come back; hostile pickles (unknown globals, REDUCE of a callable, object builds,
// truncation, absurd sizes) are refused with an error naming the file and what was refused.
import { describe, expect, it } from 'vitest';
import type { NdArray } from '../../datasets/numpyArray.ts';
import { readPickle } from '../../datasets/pickle.ts';
import { PyTuple } from '../../datasets/pickleValues.ts';

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

  it('reads numpy arrays as Python writes them at protocols 2 and 5, big-endian and Fortran order', () => {
    // pickle.dumps of numpy 2 arrays (hex kept here so the test needs no Python).
    const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
    const p2 = hex(
      '80027d7100285801000000617101636e756d70792e5f636f72652e6d756c746961727261790a5f7265636f6e7374727563740a7102636e756d70790a6e6461727261790a71034b00857104635f636f646563730a656e636f64650a7105580100000062710658060000006c6174696e31710786710852710987710a52710b284b014b024b0286710c636e756d70790a64747970650a710d58020000006634710e898887710f527110284b0358010000003c71114e4e4e4affffffff4affffffff4b007471126289680558120000000000c3803f00000040000040400000c28840711368078671145271157471166258010000007471174b015801000000787118867119752e',
    );
    const p5 = hex(
      '8005959a000000000000007d94288c0161948c136e756d70792e5f636f72652e6e756d65726963948c0b5f66726f6d627566666572949394289610000000000000000000c03f000000400000404000008840948c056e756d7079948c0564747970659493948c02663494898887945294284b038c013c944e4e4e4affffffff4affffffff4b007494624b024b0286948c014394749452948c0174944b018c0178948694752e',
    );
    for (const bytes of [p2, p5]) {
      const d = readPickle(bytes, F) as Map<string, unknown>;
      const a = d.get('a') as NdArray;
      expect(a.shape).toEqual([2, 2]);
      expect(Array.from(a.data as Float64Array)).toEqual([1.5, 2, 3, 4.25]);
      expect((d.get('t') as PyTuple).items).toEqual([1, 'x']);
    }
    const be = readPickle(
      hex(
        '80059580000000000000008c136e756d70792e5f636f72652e6e756d65726963948c0b5f66726f6d62756666657294939428960c00000000000000000000010000000200000003948c056e756d7079948c0564747970659493948c02693494898887945294284b038c013e944e4e4e4affffffff4affffffff4b007494624b0385948c014394749452942e',
      ),
      F,
    ) as NdArray;
    expect([be.dtype, ...Array.from(be.data as Float64Array)]).toEqual(['>i4', 1, 2, 3]);
    const fortran = readPickle(
      hex(
        '800495bb000000000000008c166e756d70792e5f636f72652e6d756c74696172726179948c0c5f7265636f6e7374727563749493948c056e756d7079948c076e6461727261799493944b0085944301629487945294284b014b024b03869468038c0564747970659493948c02663894898887945294284b038c013c944e4e4e4affffffff4affffffff4b0074946288433000000000000000000000000000000840000000000000f03f000000000000104000000000000000400000000000001440947494622e',
      ),
      F,
    ) as NdArray;
    // np.asfortranarray(np.arange(6).reshape(2, 3)): row-major values 0..5 whatever the storage order.
    expect(Array.from(fortran.data as Float64Array)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refuses a protocol above 5 and an unknown opcode', () => {
    expect(() => readPickle(Uint8Array.from([0x80, 6, 0x4e, 0x2e]), F)).toThrow('pickle protocol 6');
    expect(() => readPickle(Uint8Array.from([0x80, 4, 0xfe, 0x2e]), F)).toThrow('unsupported opcode 0xfe');
  });
});
