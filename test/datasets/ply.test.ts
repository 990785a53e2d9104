// PLY reader and writer: ascii and binary of both byte orders round-trip, and hand-written files with
// faces, list properties, other property types and intensity names are read.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importLog } from '../../datasets/import.ts';
import { decodePly, writePly } from '../../datasets/ply.ts';
import { cloudOf, tmpDir } from './tmp.ts';

describe('PLY reader', () => {
  it('round-trips ascii, binary little- and big-endian through writePly', () => {
    const p = cloudOf([
      [1.5, -2.25, 0.125, 0.5, 3],
      [100.75, 42, -1, 17, 63],
      [-7, 0.001, 2e-3, 1, 0],
    ]);
    for (const format of ['ascii', 'binary_little_endian', 'binary_big_endian'] as const) {
      const bytes = writePly(p, format);
      expect(new TextDecoder().decode(bytes.subarray(0, 40))).toContain(`format ${format} 1.0`);
      const q = decodePly(bytes, `t.${format}.ply`);
      for (const k of ['x', 'y', 'z', 'intensity', 'ring'] as const)
        expect(Array.from(q[k])).toEqual(Array.from(p[k]));
    }
  });

  it('reads big-endian doubles with a face list before the vertices and scalar_intensity', () => {
    const head =
      'ply\nformat binary_big_endian 1.0\ncomment made by hand\nelement face 2\nproperty list uchar int vertex_indices\n' +
      'element vertex 2\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nproperty float scalar_intensity\nend_header\n';
    const v = new DataView(new ArrayBuffer(2 * (1 + 3 * 4) + 2 * 29));
    let o = 0;
    for (let f = 0; f < 2; f++) {
      v.setUint8(o, 3);
      o += 1;
      for (let k = 0; k < 3; k++, o += 4) v.setInt32(o, k, false);
    }
    for (const [x, y, z, r, i] of [
      [1.25, 2.5, -3.75, 9, 0.5],
      [1e3, -1e3, 0.001, 255, 12],
    ]) {
      v.setFloat64(o, x, false);
      v.setFloat64(o + 8, y, false);
      v.setFloat64(o + 16, z, false);
      v.setUint8(o + 24, r);
      v.setFloat32(o + 25, i, false);
      o += 29;
    }
    const p = decodePly(
      new Uint8Array(Buffer.concat([Buffer.from(head), new Uint8Array(v.buffer)])),
      'h.ply',
    );
    expect(Array.from(p.x)).toEqual([1.25, 1000]);
    expect(Array.from(p.y)).toEqual([2.5, -1000]);
    expect(Array.from(p.z)).toEqual([-3.75, Math.fround(0.001)]);
    expect(Array.from(p.intensity)).toEqual([0.5, 12]);
  });

  it('reads ascii with a list property inside the vertex element, and imports a folder as a sequence', async () => {
    const text =
      'ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty list uchar int refs\nproperty float y\nproperty float z\nproperty float intensity\nend_header\n' +
      '1 2 7 8 3 4 0.5\n5 0 6 7 0.25\n';
    const p = decodePly(new TextEncoder().encode(text), 'a.ply');
    expect(Array.from(p.x)).toEqual([1, 5]);
    expect(Array.from(p.y)).toEqual([3, 6]);
    expect(Array.from(p.z)).toEqual([4, 7]);
    expect(Array.from(p.intensity)).toEqual([0.5, 0.25]);

    const dir = tmpDir();
    fs.writeFileSync(
      path.join(dir, 'b.ply'),
      writePly(
        cloudOf([
          [1, 0, 0],
          [0, 0, 0],
        ]),
      ),
    );
    fs.writeFileSync(path.join(dir, 'a.ply'), writePly(cloudOf([[2, 0, 0]]), 'ascii'));
    const meta = await importLog(dir, 'ply', path.join(dir, 'log'), {});
    expect(meta.pointsPerFrame).toEqual([1, 1]); // the (0,0,0) point is padding: dropped and counted
    expect(meta.extra.droppedOriginPoints).toBe(1);
  });
});
