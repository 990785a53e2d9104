// `drivekit info <log> --json` (and `import --json`) on logs imported from the real samples: the
// summary's keys and figures must follow from the log's own metadata and labels.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { REPO_ROOT, realData } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { readFeather } from '../../datasets/av2.ts';
import { importLog } from '../../datasets/import.ts';
import { kittiBin, tmpDir } from './tmp.ts';

const run = promisify(execFile);
const drivekit = (...args: string[]) =>
  run(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), ...args], { cwd: REPO_ROOT });

function expectedPoints(perFrame: number[]) {
  const s = [...perFrame].sort((a, b) => a - b);
  const n = s.length;
  return {
    total: s.reduce((a, b) => a + b, 0),
    min: s[0],
    median: n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2,
    max: s[n - 1],
  };
}

describe('drivekit info', () => {
  itWithSharedData(
    'summarises imported KITTI (labels, no tracks), AV2 (tracks) and a log with dropped NaN points',
    async () => {
      const dir = tmpDir();
      const kitti = path.join(dir, 'kitti');
      const av2 = path.join(dir, 'av2');
      const kittiMeta = await importLog(realData('kitti-object'), 'kitti', kitti, {});
      const av2Meta = await importLog(realData('av2-7fab2350'), 'av2', av2, {});
      const nanDir = path.join(dir, 'nan');
      fs.mkdirSync(nanDir);
      fs.writeFileSync(
        path.join(nanDir, '0.bin'),
        kittiBin([
          [1, 1, 1, 0],
          [NaN, 0, 0, 0],
        ]),
      );
      const pcdOut = path.join(dir, 'pcd');
      const [k, a, text, imported] = await Promise.all([
        drivekit('info', kitti, '--json'),
        drivekit('info', av2, '--json'),
        drivekit(
          'import',
          nanDir,
          '--format',
          'kitti',
          '--drop-implausible', // refused by default (datasets/plausibility.ts)
          '--out',
          path.join(dir, 'nanlog'),
        ).then(() => drivekit('info', path.join(dir, 'nanlog'))),
        drivekit(
          'import',
          realData('kitti-0048', '0000000000.pcd'),
          '--format',
          'pcd',
          '--out',
          pcdOut,
          '--json',
        ),
      ]);

      const ks = JSON.parse(k.stdout);
      expect(ks.frames).toBe(kittiMeta.frameCount);
      expect(ks.points).toEqual(expectedPoints(kittiMeta.pointsPerFrame));
      expect(ks.duration_s).toBeCloseTo(0.2, 9); // three frames at the default 10 Hz
      expect(ks.extent.points).toEqual(kittiMeta.pointExtent);
      const labelLines = fs
        .readdirSync(realData('kitti-object', 'label_2'))
        .flatMap((f) => fs.readFileSync(realData('kitti-object', 'label_2', f), 'utf8').split('\n'))
        .filter((l) => l.trim() && !l.startsWith('DontCare'));
      expect(ks.labels).toMatchObject({ boxes: labelLines.length, tracks: 0 });

      const as = JSON.parse(a.stdout);
      expect(as.frames).toBe(2);
      expect(as.points).toEqual(expectedPoints(av2Meta.pointsPerFrame));
      const av2Stamps = fs
        .readdirSync(realData('av2-7fab2350', 'sensors', 'lidar'))
        .map((f) => BigInt(f.replace('.feather', '')))
        .sort((x, y) => (x < y ? -1 : 1));
      expect(as.duration_s).toBeCloseTo(Number(av2Stamps[1] - av2Stamps[0]) / 1e9, 9); // the sweeps' own timestamps
      expect(as.labels.boxes).toBe(162);
      // Tracks: the distinct track_uuids among the cuboids at the two sweeps.
      const ann = readFeather(realData('av2-7fab2350', 'annotations.feather'));
      const ts = ann.getChild('timestamp_ns')!.toArray() as BigInt64Array;
      const uuids = new Set<string>();
      for (let r = 0; r < ts.length; r++)
        if (ts[r] === av2Stamps[0] || ts[r] === av2Stamps[1])
          uuids.add(String(ann.getChild('track_uuid')!.get(r)));
      expect(as.labels.tracks).toBe(uuids.size);

      expect(text.stdout).toMatch(/dropped implausible\s+1 points\n/);
      expect(text.stdout).toMatch(/points\s+1 total/);

      const ps = JSON.parse(imported.stdout);
      expect(ps.points.total).toBe(119_977);
      expect(ps.dropped_origin_points).toBe(1);
      expect(ps.labels).toBeNull();
    },
  );
});
