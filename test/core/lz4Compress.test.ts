// The LZ4 frame compressor (MCAP chunk compression): round trips through drivekit's decoder and through the
// reference `lz4` tool where it is installed; repetitive input shrinks, incompressible input is stored.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lz4FrameCompress } from '../../core/lz4Compress.ts';
import { lz4FrameDecompress } from '../../datasets/codecs/lz4.ts';

function xorshift(n: number, seed = 0x9e3779b9): Uint8Array {
  const b = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    b[i] = s & 0xff;
  }
  return b;
}

const inputs: Record<string, Uint8Array> = {
  empty: new Uint8Array(0),
  tiny: Uint8Array.of(1, 2, 3, 4, 5),
  text: new TextEncoder().encode('the lidar the lidar the lidar sees the road; '.repeat(40)),
  // Over one 4 MiB block: two blocks, matches reaching back across the 64 KiB window edge.
  pattern: Uint8Array.from({ length: 4_300_000 }, (_, i) => (((i % 997) * 31) ^ (i >> 12)) & 0xff),
  noise: xorshift(70_000),
  // A point-cloud-like record stream: float32 x, y, z, intensity and a uint16 ring, stride 20.
  points: (() => {
    const b = new Uint8Array(20 * 5000);
    const v = new DataView(b.buffer);
    for (let k = 0; k < 5000; k++) {
      v.setFloat32(20 * k, 10 * Math.cos(k / 100), true);
      v.setFloat32(20 * k + 4, 10 * Math.sin(k / 100), true);
      v.setFloat32(20 * k + 8, -1.7, true);
      v.setFloat32(20 * k + 12, (k % 7) / 7, true);
      v.setUint16(20 * k + 16, k % 64, true);
    }
    return b;
  })(),
};

const hasLz4Tool = (() => {
  try {
    execFileSync('lz4', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('LZ4 frame compressor', () => {
  it('round-trips every input through the frame decoder', () => {
    for (const [name, b] of Object.entries(inputs)) {
      const z = lz4FrameCompress(b);
      expect(Buffer.compare(Buffer.from(lz4FrameDecompress(z)), Buffer.from(b)), name).toBe(0);
    }
  });

  it('shrinks repetitive data and stores incompressible blocks (a few bytes over the input)', () => {
    expect(lz4FrameCompress(inputs.text).length).toBeLessThan(inputs.text.length / 10);
    expect(lz4FrameCompress(inputs.pattern).length).toBeLessThan(inputs.pattern.length / 4);
    expect(lz4FrameCompress(inputs.points).length).toBeLessThan(inputs.points.length);
    const z = lz4FrameCompress(inputs.noise);
    expect(z.length).toBe(inputs.noise.length + 7 + 4 + 4);
    expect(z[11 + 3] & 0x80).toBe(0x80); // the block's "stored" bit
  });

  it.skipIf(!hasLz4Tool)('writes frames the reference lz4 tool decodes', () => {
    for (const [name, b] of Object.entries(inputs)) {
      const out = execFileSync('lz4', ['-d', '-c'], { input: lz4FrameCompress(b), maxBuffer: 1 << 24 });
      expect(Buffer.compare(out, Buffer.from(b)), name).toBe(0);
    }
  });
});
