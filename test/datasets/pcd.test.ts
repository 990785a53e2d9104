// PCD reader: the real KITTI 0048 sequence (counts, pad, poses), every DATA kind through our writer,
// hand-written headers with other field orders, sizes and types, and a hand-built LZF section.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { importLog } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { decodePcd, writePcd } from '../../datasets/pcd.ts';
import { readPosesFile } from '../../datasets/posesFile.ts';
import { cloudOf, tmpDir } from './tmp.ts';

const header = (fields: string, size: string, type: string, count: string, n: number, data: string) =>
  `# .PCD v0.7\nVERSION 0.7\nFIELDS ${fields}\nSIZE ${size}\nTYPE ${type}\nCOUNT ${count}\nWIDTH ${n}\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS ${n}\nDATA ${data}\n`;

describe('PCD reader', () => {
  itWithSharedData('reads KITTI 0048 frame 0: 119,978 points in the file, the last a (0,0,0,0) pad', () => {
    const file = realData('kitti-0048', '0000000000.pcd');
    const { header: h, points } = decodePcd(new Uint8Array(fs.readFileSync(file)), file);
    expect(h.data).toBe('binary');
    expect(points.x.length).toBe(119_978);
    const last = points.x.length - 1;
    expect([points.x[last], points.y[last], points.z[last], points.intensity[last]]).toEqual([0, 0, 0, 0]);
    // Real returns: reflectance in [0, 1], ranges up to the HDL-64E's ~120 m.
    expect(Math.max(...points.intensity)).toBeLessThanOrEqual(1);
    expect(Math.hypot(points.x[0], points.y[0], points.z[0])).toBeGreaterThan(1);
  });

  itWithSharedData(
    'imports the 22-frame sequence with its ICP poses; the pad is dropped and counted (or kept on request)',
    async () => {
      const src = realData('kitti-0048');
      const posesPath = path.join(src, 'poses_icp_estimated.txt');
      const out = path.join(tmpDir(), 'log');
      const meta = await importLog(src, 'pcd', out, { posesPath });
      expect(meta.frameCount).toBe(22);
      expect(meta.pointsPerFrame[0]).toBe(119_978 - 1);
      expect(meta.extra.droppedOriginPoints).toBe(22);
      const poses = readPosesFile(posesPath);
      const log = await LogReader.open(out);
      expect(Array.from(log.pose(0))).toEqual(Array.from(poses[0]));
      expect(Array.from(log.pose(21))).toEqual(Array.from(poses[21]));
      expect(log.timestampsNs[21]).toBe(2_100_000_000n);
      await log.close();

      const kept = await importLog(path.join(src, '0000000000.pcd'), 'pcd', path.join(tmpDir(), 'log'), {
        keepOriginPoints: true,
      });
      expect(kept.pointsPerFrame).toEqual([119_978]);
      expect(kept.extra.droppedOriginPoints).toBe(0);
    },
  );

  it('round-trips ascii, binary and binary_compressed through writePcd', () => {
    const p = cloudOf([
      [1.5, -2.25, 0.125, 0.5, 3],
      [100.75, 42, -1, 0.25, 63],
      [-7, 0.001, 2e-3, 1, 0],
      [NaN, 1, 1, 0, 1],
    ]);
    for (const kind of ['ascii', 'binary', 'binary_compressed'] as const) {
      const { header: h, points } = decodePcd(writePcd(p, kind), `t.${kind}.pcd`);
      expect(h.data).toBe(kind);
      expect(Array.from(points.x)).toEqual(Array.from(p.x));
      expect(Array.from(points.y)).toEqual(Array.from(p.y));
      expect(Array.from(points.z)).toEqual(Array.from(p.z));
      expect(Array.from(points.intensity)).toEqual(Array.from(p.intensity));
      expect(Array.from(points.ring)).toEqual(Array.from(p.ring));
    }
  });

  it('reads any field order, size, type and count (ascii and binary)', () => {
    // intensity as uint8 first, x as float64, a 3-wide padding field, y int16, z float32, ring uint16.
    const fields = 'intensity x pad y z ring';
    const ascii =
      header(fields, '1 8 4 2 4 2', 'U F F I F U', '1 1 3 1 1 1', 2, 'ascii') +
      '200 1.25 9 9 9 -3 0.5 7\n17 -4.5 0 0 0 12 8.75 1\n';
    const a = decodePcd(new TextEncoder().encode(ascii), 'a.pcd').points;
    expect(Array.from(a.x)).toEqual([1.25, -4.5]);
    expect(Array.from(a.y)).toEqual([-3, 12]);
    expect(Array.from(a.z)).toEqual([0.5, 8.75]);
    expect(Array.from(a.intensity)).toEqual([200, 17]);
    expect(Array.from(a.ring)).toEqual([7, 1]);

    const rec = 1 + 8 + 12 + 2 + 4 + 2;
    const body = new DataView(new ArrayBuffer(2 * rec));
    [
      [200, 1.25, -3, 0.5, 7],
      [17, -4.5, 12, 8.75, 1],
    ].forEach(([i, x, y, z, r], k) => {
      const o = k * rec;
      body.setUint8(o, i);
      body.setFloat64(o + 1, x, true);
      body.setInt16(o + 21, y, true);
      body.setFloat32(o + 23, z, true);
      body.setUint16(o + 27, r, true);
    });
    const bin = Buffer.concat([
      Buffer.from(header(fields, '1 8 4 2 4 2', 'U F F I F U', '1 1 3 1 1 1', 2, 'binary')),
      new Uint8Array(body.buffer),
    ]);
    const b = decodePcd(new Uint8Array(bin), 'b.pcd').points;
    expect(Array.from(b.x)).toEqual([1.25, -4.5]);
    expect(Array.from(b.y)).toEqual([-3, 12]);
    expect(Array.from(b.z)).toEqual([0.5, 8.75]);
    expect(Array.from(b.intensity)).toEqual([200, 17]);
    expect(Array.from(b.ring)).toEqual([7, 1]);
  });

  it('reads binary_compressed written field by field (column-major) with a hand-built LZF stream', () => {
    // Three points, fields z x y (float32): plain layout is z0 z1 z2 x0 x1 x2 y0 y1 y2.
    const plain = new Float32Array([5, 5, 5, 1, 2, 3, -1, -1, -1]);
    const raw = new Uint8Array(plain.buffer);
    // Literal 16 bytes (z0..z2, x0), then the rest as literals too, except y: one literal float and a
    // back-reference copying 8 bytes from distance 4 (the float just written).
    const lit = (bytes: Uint8Array) => [bytes.length - 1, ...bytes];
    const stream = Uint8Array.from([...lit(raw.subarray(0, 28)), (6 << 5) | 0, 3]);
    const sizes = new DataView(new ArrayBuffer(8));
    sizes.setUint32(0, stream.length, true);
    sizes.setUint32(4, raw.length, true);
    const file = Buffer.concat([
      Buffer.from(header('z x y', '4 4 4', 'F F F', '1 1 1', 3, 'binary_compressed')),
      new Uint8Array(sizes.buffer),
      stream,
    ]);
    const p = decodePcd(new Uint8Array(file), 'c.pcd').points;
    expect(Array.from(p.x)).toEqual([1, 2, 3]);
    expect(Array.from(p.y)).toEqual([-1, -1, -1]);
    expect(Array.from(p.z)).toEqual([5, 5, 5]);
  });

  it('treats a folder of .pcd files as a sequence ordered by frame name (2 before 10)', async () => {
    const dir = tmpDir();
    for (const i of [10, 2, 1])
      fs.writeFileSync(path.join(dir, `${i}.pcd`), writePcd(cloudOf([[i, 0, 0, 0]])));
    await importLog(dir, 'pcd', path.join(dir, 'log'), {});
    const log = await LogReader.open(path.join(dir, 'log'));
    const xs = [];
    for await (const f of log.iterFrames()) xs.push(f.points.x[0]);
    expect(xs).toEqual([1, 2, 10]);
    await log.close();
  });
});
