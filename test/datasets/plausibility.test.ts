// Corrupt input is refused naming the file (issue 21, case 5): flipped bytes in AV2 and LAZ files, points
// beyond any sensor's range, a KITTI .bin read as nuScenes, a PCD undercounting its points, a missing label.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { realData } from '../../core/paths.ts';
import { READERS } from '../../datasets/import.ts';
import { readLasPoints } from '../../datasets/las.ts';
import { decodePcd, writePcd } from '../../datasets/pcd.ts';
import { checkSensorPoints } from '../../datasets/plausibility.ts';
import type { ReaderOptions } from '../../datasets/source.ts';
import { describeWithSharedData } from '../sharedData.ts';
import { cloudOf, kittiBin, tmpDir } from './tmp.ts';

/** Read every frame and the labels of an input with a reader, as import does. */
async function readAll(format: string, input: string, opts: ReaderOptions = {}) {
  const seq = await (await READERS[format]())(input, opts);
  let points = 0;
  for await (const f of seq.frames()) points += f.points.x.length;
  seq.labels();
  return { points, extra: seq.extra ?? {} };
}

/** A copy of `src` with `count` bytes from `at` XORed with `mask` (never touches ../shared). */
function flipped(src: string, dest: string, at: number, count: number, mask = 0xff): string {
  const b = fs.readFileSync(src);
  for (let i = at; i < at + count; i++) b[i] ^= mask;
  fs.writeFileSync(dest, b);
  return dest;
}

describe('plausibility of decoded points', () => {
  it('refuses points beyond any LiDAR range or non-finite, naming the file, or drops and counts them', () => {
    const rows = () => [
      [5, 0, 0],
      [1, 2, -7164],
      [3, 4, 0],
      [NaN, 0, 0],
    ];
    expect(() => checkSensorPoints(cloudOf(rows()), 'sweep.bin')).toThrow(InputError);
    expect(() => checkSensorPoints(cloudOf(rows()), 'sweep.bin')).toThrow(
      /^sweep\.bin: 2 of 4 points are implausible \(point 1 at \(1, 2, -7164\): 7164 m from the sensor/,
    );
    const dropped = checkSensorPoints(cloudOf(rows()), 'sweep.bin', { dropImplausible: true });
    expect(dropped.dropped).toBe(2);
    expect(Array.from(dropped.points.x)).toEqual([5, 3]);
    // PCD organised clouds mark "no return" with NaN: allowed there, range still checked.
    const pcd = checkSensorPoints(
      cloudOf([
        [5, 0, 0],
        [NaN, NaN, NaN],
      ]),
      'a.pcd',
      { allowNonFinite: true },
    );
    expect(pcd.dropped).toBe(0);
    expect(() => checkSensorPoints(cloudOf([[0, 0, 2000]]), 'a.pcd', { allowNonFinite: true })).toThrow(
      /a\.pcd: 1 of 1 points are implausible/,
    );
  });

  it('reads a KITTI .bin as --format nuscenes only to refuse it (ring column is not a laser index)', async () => {
    const dir = tmpDir();
    // 5 points × 16 bytes = 80 bytes: a multiple of 20, so the size check alone cannot tell.
    const rows = [0, 1, 2, 3, 4].map((i) => [10 + i * 0.37, 2.5 - i * 0.11, -1.2, 0.31]);
    const file = path.join(dir, 'n015__LIDAR_TOP__1532402927647951.pcd.bin');
    fs.writeFileSync(file, kittiBin(rows));
    await expect(readAll('nuscenes', file)).rejects.toThrow(
      /pcd\.bin: point 0: ring column holds 10\.3\d*, not a laser index 0–127; not a nuScenes \.pcd\.bin/,
    );
    // The same file is fine for the KITTI reader.
    fs.writeFileSync(path.join(dir, 'k.bin'), kittiBin(rows));
    expect((await readAll('kitti', path.join(dir, 'k.bin'))).points).toBe(5);
  });

  it('refuses a PCD whose data holds more records than POINTS, and accepts zero padding', () => {
    const cloud = cloudOf([
      [1, 2, 3, 4, 0],
      [5, 6, 7, 8, 1],
      [9, 10, 11, 12, 2],
    ]);
    const undercount = (data: 'binary' | 'ascii') =>
      Buffer.from(
        Buffer.from(writePcd(cloud, data))
          .toString('latin1')
          .replace('WIDTH 3', 'WIDTH 2')
          .replace('POINTS 3', 'POINTS 2'),
        'latin1',
      );
    expect(() => decodePcd(undercount('binary'), 'u.pcd')).toThrow(
      /^u\.pcd: PCD data holds 3 records of 18 bytes .*the header says POINTS 2$/,
    );
    expect(() => decodePcd(undercount('ascii'), 'a.pcd')).toThrow(
      /^a\.pcd: PCD data holds 3 ascii points, the header says POINTS 2$/,
    );
    const padded = Buffer.concat([Buffer.from(writePcd(cloud, 'binary')), Buffer.alloc(100)]);
    expect(decodePcd(padded, 'p.pcd').points.x.length).toBe(3);
  });
});

describeWithSharedData('corrupt real samples', () => {
  it('refuses a LAZ file with 200 bytes flipped (points outside its own header bounds)', async () => {
    const dir = tmpDir();
    const bad = flipped(realData('las', 'autzen_trim.laz'), path.join(dir, 'flip.laz'), 301_676, 200);
    await expect(readLasPoints(bad)).rejects.toThrow(
      /flip\.laz: \d+ of 110000 points lie outside the header's bounds \[636001\.76, 848935\.2, 406\.26\]–/,
    );
    const kept = await readLasPoints(bad, { dropImplausible: true });
    expect(kept.dropped).toBeGreaterThan(0);
    expect(kept.points.x.length + kept.dropped).toBe(110_000);
    for (const x of kept.points.x) expect(x >= 636001.75 && x <= 637179.23).toBe(true);
    // The untouched file has no point outside its bounds.
    expect((await readLasPoints(realData('las', 'autzen_trim.laz'))).dropped).toBe(0);
  });

  it('names a truncated LAZ file as truncated (not "Failed to open file: undefined")', async () => {
    const dir = tmpDir();
    const whole = fs.readFileSync(realData('las', 'autzen_trim.laz'));
    const cut = path.join(dir, 'cut.laz');
    fs.writeFileSync(cut, whole.subarray(0, whole.length >> 1));
    await expect(readLasPoints(cut)).rejects.toThrow(
      /^.*cut\.laz: truncated or corrupt LAZ: its chunk table/,
    );
  });

  it('refuses an AV2 sweep with 500 bytes flipped (z far below any sensor range)', async () => {
    const dir = tmpDir();
    const src = realData('av2-7fab2350');
    fs.cpSync(src, path.join(dir, 'av2'), { recursive: true });
    const sweep = path.join(dir, 'av2', 'sensors', 'lidar', '315966265259836000.feather');
    fs.chmodSync(sweep, 0o644);
    // At this offset the LZ4 frames still decode, into wrong float16 values (as in issue 21).
    flipped(path.join(src, 'sensors', 'lidar', '315966265259836000.feather'), sweep, 300_000, 500, 0x55);
    await expect(readAll('av2', path.join(dir, 'av2'))).rejects.toThrow(
      /315966265259836000\.feather: \d+ of 99229 points are implausible .* m from the sensor, beyond any LiDAR's range/,
    );
    const dropped = await readAll('av2', path.join(dir, 'av2'), { dropImplausible: true });
    expect(dropped.extra.droppedImplausiblePoints).toBeGreaterThan(0);
    expect(dropped.points + Number(dropped.extra.droppedImplausiblePoints)).toBe(198_695);
  }, 30_000);

  it('refuses a KITTI object layout with a label_2 file missing (not "no objects")', async () => {
    const dir = tmpDir();
    fs.cpSync(realData('kitti-object'), path.join(dir, 'ko'), { recursive: true });
    fs.chmodSync(path.join(dir, 'ko', 'label_2'), 0o755);
    fs.rmSync(path.join(dir, 'ko', 'label_2', '000001.txt'));
    await expect(readAll('kitti', path.join(dir, 'ko'))).rejects.toThrow(
      /label_2\/000001\.txt: missing: .* has no label file for 000001\.bin \(an empty file means no objects\)/,
    );
  }, 30_000);
});
