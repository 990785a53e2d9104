// The LZF and LZ4 decoders: hand-built streams, frames written by the reference `lz4` tool, round
// trips through our LZF compressor, and corrupt input.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lz4BlockDecompress, lz4FrameDecompress, xxhash32 } from '../../datasets/codecs/lz4.ts';
import { lzfCompress, lzfDecompress } from '../../datasets/codecs/lzf.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const bytes = (s: string) => new TextEncoder().encode(s);

// The plaintexts the fixtures were made from (by lz4 v1.9: `lz4 -12 -B4 -BD pattern.bin`,
// `lz4 -B4 -BX --content-size pattern.bin`, `lz4 noise.bin`).
function pattern(): Uint8Array {
  const b = new Uint8Array(150000);
  for (let i = 0; i < b.length; i++) b[i] = (((i % 997) * 31) ^ (i >> 12)) & 0xff;
  return b;
}
function noise(): Uint8Array {
  const b = new Uint8Array(1000);
  let s = 0x9e3779b9 >>> 0;
  for (let i = 0; i < b.length; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    b[i] = s & 0xff;
  }
  return b;
}

describe('LZF', () => {
  it('decodes a hand-built stream: literal run, back-reference, overlapping run, long reference', () => {
    // "abc" literal (ctrl 2), then copy 3 from distance 3 (ctrl (1<<5)|0, off 2) → "abcabc",
    // then 'x' literal, then an overlapping copy of 8 bytes from distance 1 (ctrl (6<<5), off 0) → 'x'×9,
    // then a long reference: len field 7 + extra 3 → 12 bytes from distance 10.
    const stream = Uint8Array.of(2, 97, 98, 99, 1 << 5, 2, 0, 120, 6 << 5, 0, 7 << 5, 3, 9);
    const want = 'abcabc' + 'x'.repeat(9);
    const out = lzfDecompress(stream, want.length + 12);
    const text = new TextDecoder().decode(out);
    expect(text.slice(0, want.length)).toBe(want);
    // From distance 10 the copy starts at the last 'c' and runs into its own output: c x×9, then c x again.
    expect(text.slice(want.length)).toBe('c' + 'x'.repeat(9) + 'cx');
  });

  it('round-trips through the compressor on compressible and random data', () => {
    const text = bytes('the quick brown fox jumps over the lazy dog. '.repeat(200));
    const packed = lzfCompress(text);
    expect(packed.length).toBeLessThan(text.length / 5);
    expect(lzfDecompress(packed, text.length)).toEqual(text);
    const rnd = noise();
    expect(lzfDecompress(lzfCompress(rnd), rnd.length)).toEqual(rnd);
    const floats = new Float32Array(5000).map((_, i) => Math.sin(i / 50) * 20);
    const fb = new Uint8Array(floats.buffer);
    expect(lzfDecompress(lzfCompress(fb), fb.length)).toEqual(fb);
  });

  it('rejects corrupt streams', () => {
    expect(() => lzfDecompress(Uint8Array.of(5, 1, 2), 6)).toThrow(/passes the end/);
    expect(() => lzfDecompress(Uint8Array.of(1 << 5, 4), 3)).toThrow(/before the start/);
    expect(() => lzfDecompress(Uint8Array.of(1, 1, 2), 5)).toThrow(/decompressed to 2 bytes, expected 5/);
  });
});

describe('LZ4', () => {
  it('xxHash32 matches its published values', () => {
    expect(xxhash32(new Uint8Array(0))).toBe(0x02cc5d05);
    expect(xxhash32(bytes('abc'))).toBe(0x32d153ff);
  });

  it('decodes frames written by the lz4 tool: linked blocks, independent blocks with checksums, stored blocks', () => {
    const p = pattern();
    for (const f of ['pattern-linked.lz4', 'pattern-indep-checksums.lz4']) {
      const out = lz4FrameDecompress(new Uint8Array(fs.readFileSync(path.join(fixtures, f))));
      expect(out.length).toBe(p.length);
      expect(Buffer.compare(Buffer.from(out), Buffer.from(p))).toBe(0);
    }
    expect(lz4FrameDecompress(new Uint8Array(fs.readFileSync(path.join(fixtures, 'noise.lz4'))))).toEqual(
      noise(),
    );
    const small = Buffer.from(
      '04224d186440a721000000ff0464726976656b6974206c7a3420746573743a201300ff577074686520656e640000000029d9dda4',
      'hex',
    );
    expect(new TextDecoder().decode(lz4FrameDecompress(new Uint8Array(small)))).toBe(
      'drivekit lz4 test: '.repeat(20) + 'the end',
    );
  });

  it('decodes a hand-built block with an overlapping match', () => {
    // token: 1 literal, match length 4+5; literal 'z'; offset 1 → 'z' × 10; then final literals "!!".
    const block = Uint8Array.of((1 << 4) | 5, 122, 1, 0, 2 << 4, 33, 33);
    expect(new TextDecoder().decode(lz4BlockDecompress(block, 64))).toBe('z'.repeat(10) + '!!');
  });

  it('rejects corrupt frames: bad magic, damaged data, truncation', () => {
    const good = new Uint8Array(fs.readFileSync(path.join(fixtures, 'pattern-indep-checksums.lz4')));
    const badMagic = good.slice();
    badMagic[0] ^= 0xff;
    expect(() => lz4FrameDecompress(badMagic)).toThrow(/magic/);
    const damaged = good.slice();
    damaged[200] ^= 0x55;
    expect(() => lz4FrameDecompress(damaged)).toThrow(/checksum|offset|past the end/);
    expect(() => lz4FrameDecompress(good.subarray(0, good.length - 100))).toThrow(/truncated/);
    expect(() => lz4BlockDecompress(Uint8Array.of(0x10, 97, 9, 0), 64)).toThrow(/offset/);
  });
});
