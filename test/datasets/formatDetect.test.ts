// Format detection from a path's names and layout (datasets/formatDetect.ts) and the poses file found beside
// the frames (datasets/posesBeside.ts), on scratch folders of empty files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, formatHint } from '../../datasets/formatDetect.ts';
import { posesBeside } from '../../datasets/posesBeside.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'format-detect-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function folder(name: string, files: string[]): string {
  const dir = path.join(tmp, name);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '');
  }
  return dir;
}

describe('detectFormat', () => {
  it('tells each format by its files and layout', () => {
    expect(detectFormat(folder('pcd', ['0.pcd', '1.pcd', 'poses.txt']))).toEqual({
      format: 'pcd',
      evidence: '2 .pcd files',
    });
    expect(detectFormat(folder('nus', ['a.pcd.bin', 'b.pcd.bin']))?.format).toBe('nuscenes');
    expect(detectFormat(folder('kitti', ['velodyne/000.bin', 'label_2/000.txt']))).toEqual({
      format: 'kitti',
      evidence: 'KITTI .bin sweeps in velodyne/',
    });
    expect(detectFormat(folder('raw', ['data/0000000000.bin']))?.format).toBe('kitti');
    const drive = folder('drive', ['velodyne_points/data/0000000000.bin', 'velodyne_points/timestamps.txt']);
    expect(detectFormat(drive)).toEqual({
      format: 'kitti',
      evidence: 'KITTI raw sweeps in velodyne_points/data/',
      input: path.join(drive, 'velodyne_points'),
    });
    expect(
      detectFormat(folder('av2', ['sensors/lidar/1.feather', 'city_SE3_egovehicle.feather']))?.format,
    ).toBe('av2');
    const laz = path.join(folder('las', ['survey.LAZ']), 'survey.LAZ');
    expect(detectFormat(laz)).toEqual({ format: 'las', evidence: 'a .laz file' });
    expect(detectFormat(folder('ply', ['a.ply']))?.format).toBe('ply');
  });

  it('says nothing when nothing matches, and refuses a missing path', () => {
    expect(detectFormat(folder('other', ['notes.md']))).toBeNull();
    expect(() => detectFormat(path.join(tmp, 'missing'))).toThrow(/no such file or directory/);
  });

  it('hints at the right format only when the given one differs', () => {
    const dir = path.join(tmp, 'pcd');
    expect(formatHint(dir, 'kitti')).toBe(' (it looks like --format pcd: 2 .pcd files)');
    expect(formatHint(dir, 'pcd')).toBe('');
    expect(formatHint(path.join(tmp, 'missing'), 'pcd')).toBe('');
  });
});

describe('posesBeside', () => {
  it('finds the one poses*.txt beside the frames, also above a velodyne/ folder', () => {
    expect(posesBeside(path.join(tmp, 'pcd'))).toBe(path.join(tmp, 'pcd', 'poses.txt'));

    const k = folder('kitti-poses', ['velodyne/0.bin', 'poses_gt.txt']);
    expect(posesBeside(path.join(k, 'velodyne'))).toBe(path.join(k, 'poses_gt.txt'));
  });

  it('takes none when there are several or none, or for one file of a sequence', () => {
    expect(posesBeside(path.join(tmp, 'pcd', '0.pcd'))).toBeNull();
    expect(posesBeside(folder('two', ['0.pcd', 'poses_a.txt', 'poses_b.txt']))).toBeNull();
    expect(posesBeside(folder('none', ['0.pcd', 'times.txt']))).toBeNull();
  });
});
