// Bad input to the importers: each case is one InputError naming the file and the problem, no log
// left behind; NaN/Inf points are dropped and counted instead. A few go through the real CLI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { REPO_ROOT, realData } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { importLog } from '../../datasets/import.ts';
import { writePcd } from '../../datasets/pcd.ts';
import { writePly } from '../../datasets/ply.ts';
import { cloudOf, kittiBin, tmpDir } from './tmp.ts';

/** importLog must fail with an InputError on `file` whose message matches `problem`, writing nothing. */
async function expectInputError(input: string, format: string, file: string, problem: RegExp): Promise<void> {
  const out = path.join(tmpDir(), 'log');
  const err = await importLog(input, format, out, {}).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  const e = err as InputError;
  expect(e.file).toBe(file);
  expect(e.problem).toMatch(problem);
  expect(e.message.split('\n')).toHaveLength(1);
  expect(fs.existsSync(out)).toBe(false);
}

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function pcdHeader(n: number, points: number, data: string): string {
  return `VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH ${n}\nHEIGHT 1\nPOINTS ${points}\nDATA ${data}\n`;
}

describe('bad input', () => {
  it('a KITTI .bin whose size is not a multiple of 16', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, '000000.bin'), kittiBin([[1, 2, 3, 0]]));
    const bad = path.join(dir, '000001.bin');
    fs.writeFileSync(bad, new Uint8Array(20));
    await expectInputError(dir, 'kitti', bad, /size 20 bytes is not a multiple of 16/);
  });

  it('a PCD whose header disagrees with its data', async () => {
    const dir = tmpDir();
    const points = path.join(dir, 'points.pcd');
    fs.writeFileSync(points, pcdHeader(3, 4, 'ascii') + '1 2 3\n4 5 6\n7 8 9\n');
    await expectInputError(points, 'pcd', points, /POINTS 4 but WIDTH×HEIGHT = 3×1/);
    const short = path.join(dir, 'short.pcd');
    fs.writeFileSync(short, Buffer.concat([Buffer.from(pcdHeader(3, 3, 'binary')), new Uint8Array(24)]));
    await expectInputError(short, 'pcd', short, /data too short: 24 bytes for 3 points of 12 bytes/);
    const ascii = path.join(dir, 'ascii.pcd');
    fs.writeFileSync(ascii, pcdHeader(3, 3, 'ascii') + '1 2 3\n4 5 6\n');
    await expectInputError(ascii, 'pcd', ascii, /data too short: 2 ascii points, header says 3/);
    const compressed = writePcd(cloudOf([[1, 2, 3, 4]]), 'binary_compressed');
    const cut = path.join(dir, 'cut.pcd');
    fs.writeFileSync(cut, compressed.subarray(0, compressed.length - 3));
    await expectInputError(cut, 'pcd', cut, /data too short: \d+ compressed bytes, header says \d+/);
  });

  itWithSharedData(
    'a LAS with a broken header: bad signature, truncated header, truncated points',
    async () => {
      const dir = tmpDir();
      const real = fs.readFileSync(realData('las', 'simple.las'));
      const sig = path.join(dir, 'sig.las');
      fs.writeFileSync(sig, Buffer.concat([Buffer.from('LASX'), real.subarray(4)]));
      await expectInputError(sig, 'las', sig, /bad signature/);
      const head = path.join(dir, 'head.las');
      fs.writeFileSync(head, real.subarray(0, 100));
      await expectInputError(head, 'las', head, /truncated LAS header/);
      const pts = path.join(dir, 'points.las');
      fs.writeFileSync(pts, real.subarray(0, real.length - 1000));
      await expectInputError(pts, 'las', pts, /truncated LAS point data: \d+ of 1065 records/);
    },
  );

  it('an empty file, for every reader', async () => {
    const dir = tmpDir();
    for (const [name, format] of [
      ['e.bin', 'kitti'],
      ['e.pcd', 'pcd'],
      ['e.pcd.bin', 'nuscenes'],
      ['e.las', 'las'],
      ['e.ply', 'ply'],
    ]) {
      const f = path.join(dir, name);
      fs.writeFileSync(f, '');
      await expectInputError(f, format, f, /file is empty/);
    }
  });

  it('a missing path, a folder without frames, a poses file that does not match', async () => {
    const dir = tmpDir();
    const missing = path.join(dir, 'nope');
    await expectInputError(missing, 'kitti', missing, /no such file or directory/);
    await expectInputError(dir, 'pcd', dir, /no PCD files/);
    fs.writeFileSync(path.join(dir, 'a.ply'), writePly(cloudOf([[1, 1, 1]])));
    const poses = path.join(dir, 'poses.txt');
    fs.writeFileSync(poses, '1 0 0 0 0 1 0 0 0 0 1 0\n1 0 0 1 0 1 0 0 0 0 1 0\n');
    const out = path.join(tmpDir(), 'log');
    await expect(importLog(dir, 'ply', out, { posesPath: poses })).rejects.toThrow(
      `${poses}: has 2 poses for 1 frames`,
    );
  });

  it('NaN/Inf values in a format without "no return" markers are refused, or dropped and counted on request', async () => {
    const dir = tmpDir();
    const bin = path.join(dir, '000000.bin');
    fs.writeFileSync(
      bin,
      kittiBin([
        [1, 2, 3, 0.5],
        [NaN, 2, 3, 0.5],
        [1, Infinity, 3, 0.5],
        [4, 5, 6, NaN],
        [7, 8, 9, 0.25],
      ]),
    );
    await expect(importLog(dir, 'kitti', path.join(dir, 'log'), {})).rejects.toThrow(
      /000000\.bin: 3 of 5 points are implausible \(point 1 at \(NaN, 2, 3\): a non-finite coordinate\)/,
    );
    const meta = await importLog(dir, 'kitti', path.join(dir, 'log'), { dropImplausible: true });
    expect(meta.pointsPerFrame).toEqual([2]);
    expect(meta.extra.droppedImplausiblePoints).toBe(3);
    expect(meta.pointExtent).toEqual({ min: [1, 2, 3], max: [7, 8, 9] });
  });

  it('the CLI exits non-zero with one line naming the file (bad .bin, empty PCD, broken LAS, missing path)', () => {
    const dir = tmpDir();
    const bin = path.join(dir, '000000.bin');
    fs.writeFileSync(bin, new Uint8Array(33));
    const pcd = path.join(dir, 'empty.pcd');
    fs.writeFileSync(pcd, '');
    const las = path.join(dir, 'broken.las');
    fs.writeFileSync(las, 'LASF' + 'x'.repeat(50));
    const missing = path.join(dir, 'missing');
    for (const [input, format, problem] of [
      [bin, 'kitti', 'not a multiple of 16'],
      [pcd, 'pcd', 'file is empty'],
      [las, 'las', 'truncated LAS header'],
      [missing, 'av2', 'no such file or directory'],
    ]) {
      const out = path.join(dir, `log-${format}`);
      const r = cli('import', input, '--format', format, '--out', out);
      expect(r.code, r.stderr).not.toBe(0);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(input);
      expect(lines[0]).toContain(problem);
      expect(r.stdout).toBe('');
      expect(fs.existsSync(out)).toBe(false);
    }
  });
});
