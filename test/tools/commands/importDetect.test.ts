// `drivekit import` on the real samples as a new user runs it: kitti-0048 without --format or --poses
// (detected as PCD, poses read from beside the frames), the wrong --format naming the right one, an unknown
// format as a usage error, and a LAS survey described as a survey rather than a sweep sequence.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { realData } from '../../../core/paths.ts';
import { LogReader } from '../../../datasets/logstore.ts';
import { LASER_BLOCKS, laserBlocksOf } from '../../../worldmodel/laserLines.ts';
import { itWithSharedData } from '../../sharedData.ts';
import { drivekit, expectOneLineFailure } from './castLog.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-detect-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit import without --format', () => {
  itWithSharedData(
    'imports kitti-0048 as PCD with the poses beside it, and says both; --lasers records the HDL-64E blocks',
    async () => {
      const out = path.join(tmp, 'k48');
      const { stdout, stderr } = await drivekit(
        'import',
        realData('kitti-0048'),
        '--out',
        out,
        '--lasers',
        'hdl64-kitti',
      );
      expect(stderr).toContain('import: format pcd (detected: 22 .pcd files; --format to choose)');
      expect(stderr).toContain(
        `import: poses from ${realData('kitti-0048', 'poses_icp_estimated.txt')}, found beside the frames`,
      );
      expect(stdout).toMatch(/frames\s+22 at 10 Hz, 2\.10 s/);
      const log = await LogReader.open(out);
      try {
        // The ICP trajectory drives ~18 m forward: not the identity poses of an import without them.
        expect(log.meta.trajectoryExtent!.max[0]).toBeGreaterThan(15);
        // PCD says nothing of the sensor: the flag put its two laser blocks in the log.
        expect(laserBlocksOf(log.meta)).toEqual(LASER_BLOCKS['hdl64-kitti']);
      } finally {
        await log.close();
      }
    },
    60_000,
  );

  itWithSharedData(
    'suggests the right format when the given one does not fit; unknown is a usage error',
    async () => {
      await expectOneLineFailure(
        ['import', realData('kitti-0048'), '--format', 'kitti', '--no-poses', '--out', path.join(tmp, 'x')],
        /^drivekit import: .*kitti-0048: no KITTI velodyne \.bin files .*\(it looks like --format pcd: 22 \.pcd files\)/,
      );
      await expectOneLineFailure(
        ['import', realData('kitti-0048'), '--format', 'foo', '--out', path.join(tmp, 'y')],
        /^drivekit import: --format: unknown format 'foo' .*--format pcd/,
      );
      await expectOneLineFailure(
        ['import', realData('kitti-0048'), '--lasers', 'hdl32', '--out', path.join(tmp, 'z')],
        /^drivekit import: --lasers: unknown sensor 'hdl32' \(known: hdl64-kitti\)/,
      );
      expect(fs.existsSync(path.join(tmp, 'x'))).toBe(false);
      expect(fs.existsSync(path.join(tmp, 'z'))).toBe(false);
    },
    60_000,
  );

  itWithSharedData(
    'describes a LAS/LAZ import as a survey, not a 0-second sweep sequence',
    async () => {
      const { stdout } = await drivekit(
        'import',
        realData('las', 'simple.laz'),
        '--out',
        path.join(tmp, 'las'),
      );
      expect(stdout).toMatch(/frames\s+1 survey point cloud \(aerial or terrestrial LAS\/LAZ/);
      expect(stdout).not.toMatch(/Hz|0\.00 s/);
      const info = JSON.parse((await drivekit('info', path.join(tmp, 'las'), '--json')).stdout);
      expect(info.kind).toBe('survey');
    },
    60_000,
  );
});
