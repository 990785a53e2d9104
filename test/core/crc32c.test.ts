// CRC32C against published check values (RFC 3720 B.4, the iSCSI test vectors) and against itself over
// pieces: any split of the bytes and crc32cCombine give the checksum of the whole. The native addon's
// paths (folding, three streams, the tail) against the TypeScript one on every size that selects them.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Crc32c, crc32c, crc32cBackend, crc32cCombine, crc32cPortable, crcHex } from '../../core/crc32c.ts';
import { nativeAddon, nativeAddonProblem } from '../../core/native/addon.ts';
import { REPO_ROOT } from '../../core/paths.ts';

describe('crc32c', () => {
  it('matches the published check values', () => {
    expect(crcHex(crc32c(Buffer.from('123456789')))).toBe('e3069283');
    // RFC 3720 appendix B.4: 32 bytes of zeros, of ones, ascending and descending.
    expect(crc32c(Buffer.alloc(32, 0))).toBe(0x8a9136aa);
    expect(crc32c(Buffer.alloc(32, 0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it('agrees with the bit-at-a-time definition for every length and start around the 16-byte steps', () => {
    // The polynomial applied one bit at a time, independent of the lookup tables.
    const bitwise = (bytes: Uint8Array): number => {
      let c = 0xffffffff;
      for (const v of bytes) {
        c ^= v;
        for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      }
      return ~c >>> 0;
    };
    const bytes = Uint8Array.from({ length: 200 }, (_, i) => (i * 2654435761 + 12345) >>> 23);
    for (let start = 0; start < 5; start++) {
      for (let n = 0; n <= 70; n++) {
        const piece = bytes.subarray(start, start + n);
        expect(crc32c(piece)).toBe(bitwise(piece));
      }
    }
  });

  it('gives the same value however the bytes are split, aligned or not, and combined from pieces', () => {
    const bytes = Uint8Array.from({ length: 10_007 }, (_, i) => (i * 2654435761) >>> 24);
    const whole = crc32c(bytes);
    for (const cut of [0, 1, 3, 7, 8, 9, 4096, 10_006, 10_007]) {
      const a = bytes.subarray(0, cut);
      const b = bytes.subarray(cut);
      expect(crc32c(b, crc32c(a))).toBe(whole);
      expect(crc32cCombine(crc32c(a), crc32c(b), b.length)).toBe(whole);
      const c = new Crc32c().update(a).update(b);
      expect([c.value, c.bytes]).toEqual([whole, bytes.length]);
    }
    // Unaligned views of one buffer (the word path starts at an aligned address).
    for (let off = 1; off < 8; off++) {
      const copy = new Uint8Array(bytes.length + off);
      copy.set(bytes, off);
      expect(crc32c(copy.subarray(off))).toBe(whole);
    }
    // One flipped bit changes it.
    const flipped = bytes.slice();
    flipped[5000] ^= 1;
    expect(crc32c(flipped)).not.toBe(whole);
  });
});

describe('crc32c native addon', () => {
  it('is built by npm ci on this machine (x86-64 / AArch64 Linux with a C++ compiler) and in use', () => {
    expect(nativeAddonProblem('crc32c')).toBe('');
    expect(crc32cBackend).toBe('native');
  });

  it('agrees with the TypeScript CRC32C on every path: folded blocks, three streams, tails, any start', () => {
    const native = nativeAddon('crc32c')!;
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 2654435761 + 7) >>> 24);
    // Around 256-byte folds (from 1 KiB), 3 × 256 and 3 × 8192 three-way blocks, and word tails.
    const sizes = [0, 1, 7, 8, 9, 255, 256, 767, 768, 1023, 1024, 1025, 1279, 1280, 24_575, 24_576, 24_583];
    for (const n of [...sizes, 100_003, 199_990]) {
      for (const start of [0, 1, 5, 8]) {
        const piece = bytes.subarray(start, start + n);
        for (const seed of [0, 0xdeadbeef])
          expect(native.crc32c(piece, seed)).toBe(crc32cPortable(piece, seed));
      }
    }
    expect(crcHex(native.crc32c(Buffer.from('123456789'), 0))).toBe('e3069283');
    expect(() => native.crc32c(new Float32Array(4) as unknown as Uint8Array, 0)).toThrow(/Uint8Array/);
  });

  it('DRIVEKIT_NATIVE=0 turns it off and the TypeScript CRC32C gives the same values', () => {
    const script =
      "import('./core/crc32c.ts').then((m) => console.log(m.crc32cBackend, m.crc32c(new Uint8Array(5000).fill(3))))";
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      }).stdout.trim();
    const off = run({ DRIVEKIT_NATIVE: '0' });
    expect(off).toBe(`typescript ${crc32c(new Uint8Array(5000).fill(3))}`);
    expect(run({})).toBe(`native ${crc32c(new Uint8Array(5000).fill(3))}`);
  });
});
