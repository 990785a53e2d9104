// LAS/LAZ reader: point counts of the real samples, LAS and LAZ decoding to the same points, our LAS
// 1.4 record decoder checked against loaders.gl on LAS 1.2, re-centring that keeps centimetres, and the
// file's CRS (WKT / GeoKeys) kept in meta.json with coordinates converted from its feet to metres.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { describeWithSharedData } from '../sharedData.ts';
import { importLog } from '../../datasets/import.ts';
import { readLasPoints } from '../../datasets/las.ts';
import { readLasCrs } from '../../datasets/lasCrs.ts';
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

  it('reads the CRS: autzen in feet (WKT and GeoKeys agree), test1_4 in US survey feet (WKT only)', () => {
    const crsOf = (f: string) => {
      const bytes = new Uint8Array(fs.readFileSync(realData('las', f)));
      return readLasCrs(bytes, parseLasHeader(bytes, f), f);
    };
    const autzen = crsOf('autzen_trim.las');
    expect(autzen.from).toBe('wkt');
    expect(autzen.name).toBe('NAD_1983_HARN_Lambert_Conformal_Conic');
    expect(autzen.horizontalUnit).toEqual({ name: 'foot', metres: 0.3048 });
    expect(autzen.verticalUnitAssumed).toBe(true);
    // The GeoKeys alone (the WKT record removed) give the same unit: ProjLinearUnitsGeoKey 9002.
    const bytes = new Uint8Array(fs.readFileSync(realData('las', 'autzen_trim.las')));
    const noWkt = Buffer.from(bytes);
    for (let o = noWkt.indexOf('LASF_Projection'); o >= 0; o = noWkt.indexOf('LASF_Projection', o + 1))
      if (noWkt.readUInt16LE(o + 16) === 2112) noWkt.write('XXXX_Projection', o, 'latin1');
    const geo = readLasCrs(noWkt, parseLasHeader(noWkt, 'x'), 'x');
    expect(geo.from).toBe('geokeys');
    expect(geo.horizontalUnit).toEqual({ name: 'foot', metres: 0.3048 });
    expect(geo.name).toMatch(/Lambert_Conformal_Conic/);
    const nm = crsOf('test1_4.las');
    expect(nm.epsg).toBe(2903);
    expect(nm.name).toBe('NAD83(HARN) / New Mexico Central (ftUS)');
    expect(nm.horizontalUnit!.name).toBe('US survey foot');
    expect(nm.horizontalUnit!.metres).toBeCloseTo(1200 / 3937, 12);
    // Its nested VERTCS names the US survey foot with a factor of 1.0: the name wins.
    expect(nm.verticalUnitAssumed).toBe(false);
    expect(nm.verticalUnit!.metres).toBeCloseTo(1200 / 3937, 12);
    expect(crsOf('simple.las').from).toBe('none');
  });

  it('imports in metres: extents are the file extents × the foot, the CRS is in meta.json', async () => {
    for (const [f, unit] of [
      ['autzen_trim.las', 0.3048],
      ['test1_4.las', 1200 / 3937],
    ] as const) {
      const file = realData('las', f);
      const h = parseLasHeader(new Uint8Array(fs.readFileSync(file)), file);
      const out = path.join(tmpDir(), `m-${f}`);
      const meta = await importLog(file, 'las', out, {});
      const crs = meta.extra.crs as Record<string, { name: string; metres: number } | string>;
      expect((crs.file_horizontal_unit as { metres: number }).metres).toBe(unit);
      expect(crs.coordinates).toMatch(/^metres/);
      const log = await LogReader.open(out);
      const pose = log.pose(0);
      const fr = await log.readFrame(0);
      const lo = [Infinity, Infinity, Infinity];
      const hi = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < fr.points.x.length; i++) {
        const p = [fr.points.x[i] + pose[3], fr.points.y[i] + pose[7], fr.points.z[i] + pose[11]];
        for (let j = 0; j < 3; j++) {
          lo[j] = Math.min(lo[j], p[j]);
          hi[j] = Math.max(hi[j], p[j]);
        }
      }
      await log.close();
      // Within a millimetre (float32 storage relative to the origin, header bounds rounded to the scale).
      for (let j = 0; j < 3; j++) {
        expect(Math.abs(lo[j] - h.min[j] * unit)).toBeLessThan(1e-3);
        expect(Math.abs(hi[j] - h.max[j] * unit)).toBeLessThan(1e-3);
      }
      // Feet taken as metres would be off by 0.3048 × 636,000 ft ≈ 440 km: this is not a tolerance question.
      expect(Math.abs(lo[0] - h.min[0])).toBeGreaterThan(1000);
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
    // The file is in feet (its CRS says so); the log holds metres.
    for (let i = 0; i < raw.x.length; i++) {
      raw.x[i] *= 0.3048;
      raw.y[i] *= 0.3048;
      raw.z[i] *= 0.3048;
    }
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
    expect(worst).toBeLessThan(0.002);
    // Storing the raw coordinates in float32 would lose more (spacing 1/64 m at 259 km).
    expect(worstRawFloat32).toBeGreaterThan(0.005);
    await log.close();
  });
});
