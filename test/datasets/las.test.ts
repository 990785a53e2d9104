// LAS/LAZ reader: point counts of the real samples, LAS and LAZ decoding to the same points, our LAS
// 1.4 record decoder checked against loaders.gl on LAS 1.2, and re-centring that keeps centimetres.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { describeWithSharedData } from '../sharedData.ts';
import { importLog } from '../../datasets/import.ts';
import { readLasPoints } from '../../datasets/las.ts';
import { decodeLasPoints, parseLasHeader } from '../../datasets/lasFormat.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { tmpDir } from './tmp.ts';

describeWithSharedData('LAS/LAZ reader', () => {
  it('reads autzen_trim .las and .laz to the same 110,000 points, and simple .las/.laz to 1,065', async () => {
    const las = await readLasPoints(realData('las', 'autzen_trim.las'));
    const laz = await readLasPoints(realData('las', 'autzen_trim.laz'));
    expect(las.points.x.length).toBe(110_000);
    expect(laz.points.x.length).toBe(110_000);
    expect(laz.decoder).toMatch(/laz-perf/);
    const same = (a: ArrayBufferView, b: ArrayBufferView) =>
      Buffer.compare(
        Buffer.from(a.buffer, a.byteOffset, a.byteLength),
        Buffer.from(b.buffer, b.byteOffset, b.byteLength),
      );
    expect(same(laz.points.x, las.points.x)).toBe(0);
    expect(same(laz.points.y, las.points.y)).toBe(0);
    expect(same(laz.points.z, las.points.z)).toBe(0);
    expect(same(laz.points.intensity, las.points.intensity)).toBe(0);
    for (const f of ['simple.las', 'simple.laz'])
      expect((await readLasPoints(realData('las', f))).points.x.length).toBe(1_065);
  });

  it('our record decoder agrees with loaders.gl on LAS 1.2 and reads the LAS 1.4 format-6 file', async () => {
    const file = realData('las', 'autzen_trim.las');
    const bytes = new Uint8Array(fs.readFileSync(file));
    const ours = decodeLasPoints(bytes, parseLasHeader(bytes, file), file);
    const theirs = (await readLasPoints(file)).points;
    for (let i = 0; i < ours.x.length; i += 997) {
      expect(ours.x[i]).toBeCloseTo(theirs.x[i], 6);
      expect(ours.y[i]).toBeCloseTo(theirs.y[i], 6);
      expect(ours.z[i]).toBeCloseTo(theirs.z[i], 6);
      expect(ours.intensity[i]).toBe(theirs.intensity[i]);
    }
    const f14 = realData('las', 'test1_4.las');
    const h = parseLasHeader(new Uint8Array(fs.readFileSync(f14)), f14);
    expect([h.versionMajor, h.versionMinor, h.pointFormat]).toEqual([1, 4, 6]);
    const r = await readLasPoints(f14);
    expect(r.decoder).toMatch(/drivekit/);
    expect(r.points.x.length).toBe(h.pointCount);
    // Every point inside the header's bounds (a wrong record layout would scatter them).
    for (let i = 0; i < r.points.x.length; i++) {
      expect(r.points.x[i]).toBeGreaterThanOrEqual(h.min[0] - 1e-6);
      expect(r.points.x[i]).toBeLessThanOrEqual(h.max[0] + 1e-6);
      expect(r.points.z[i]).toBeGreaterThanOrEqual(h.min[2] - 1e-6);
      expect(r.points.z[i]).toBeLessThanOrEqual(h.max[2] + 1e-6);
    }
  });

  it('imports one frame re-centred on a whole-metre origin kept in the pose: coordinates survive to 1 cm', async () => {
    const file = realData('las', 'autzen_trim.laz');
    const out = path.join(tmpDir(), 'log');
    const meta = await importLog(file, 'las', out, {});
    expect(meta.frameCount).toBe(1);
    expect(meta.pointsPerFrame).toEqual([110_000]);
    const origin = (meta.extra.origins as number[][])[0];
    const log = await LogReader.open(out);
    const pose = log.pose(0);
    expect([pose[3], pose[7], pose[11]]).toEqual(origin);
    const f = await log.readFrame(0);
    const raw = (await readLasPoints(file)).points;
    let worst = 0;
    let worstRawFloat32 = 0;
    for (let i = 0; i < raw.x.length; i++) {
      worstRawFloat32 = Math.max(worstRawFloat32, Math.abs(Math.fround(raw.y[i]) - raw.y[i]));
      worst = Math.max(
        worst,
        Math.abs(f.points.x[i] + pose[3] - raw.x[i]),
        Math.abs(f.points.y[i] + pose[7] - raw.y[i]),
        Math.abs(f.points.z[i] + pose[11] - raw.z[i]),
      );
    }
    expect(worst).toBeLessThan(0.005);
    // Storing the raw coordinates in float32 would lose more than a centimetre (spacing 1/16 m at 850 km).
    expect(worstRawFloat32).toBeGreaterThan(0.01);
    await log.close();
  });
});
