// nuScenes reader on generated `.pcd.bin` sweeps (no sample data ships): 5 floats per point, sensor
// axes turned to vehicle axes, timestamps from the file names.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importLog } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { tmpDir } from './tmp.ts';

function pcdBin(rows: number[][]): Uint8Array {
  return new Uint8Array(Float32Array.from(rows.flat()).buffer);
}

describe('nuScenes reader', () => {
  it('reads a folder of sweeps: x y z intensity ring, sensor x-right/y-forward → vehicle x-forward/y-left', async () => {
    const dir = tmpDir();
    const name = (us: string) => `n015-2018-07-24-11-22-45+0800__LIDAR_TOP__${us}.pcd.bin`;
    // A point 10 m ahead (sensor +y) and one 2 m to the right (sensor +x).
    fs.writeFileSync(
      path.join(dir, name('1532402927647951')),
      pcdBin([
        [0, 10, -1.5, 37, 12],
        [2, 0, 0.5, 200, 31],
      ]),
    );
    fs.writeFileSync(path.join(dir, name('1532402927697951')), pcdBin([[1, 1, 1, 5, 0]]));
    const out = path.join(tmpDir(), 'log');
    const meta = await importLog(dir, 'nuscenes', out, {});
    expect(meta.pointsPerFrame).toEqual([2, 1]);
    const log = await LogReader.open(out);
    expect(Array.from(log.timestampsNs)).toEqual([1532402927647951000n, 1532402927697951000n]);
    const f = await log.readFrame(0);
    expect(Array.from(f.points.x)).toEqual([10, 0]);
    expect(Array.from(f.points.y)).toEqual([0, -2]);
    expect(Array.from(f.points.z)).toEqual([-1.5, 0.5]);
    expect(Array.from(f.points.intensity)).toEqual([37, 200]);
    expect(Array.from(f.points.ring)).toEqual([12, 31]);
    await log.close();
  });

  it('reads a single file without a timestamp in its name at the default 20 Hz', async () => {
    const file = path.join(tmpDir(), 'sweep.pcd.bin');
    fs.writeFileSync(file, pcdBin([[3, 4, 5, 6, 7]]));
    const meta = await importLog(file, 'nuscenes', path.join(tmpDir(), 'log'), {});
    expect(meta.rateHz).toBe(20);
    expect(meta.pointsPerFrame).toEqual([1]);
  });
});
