// Shared by the command tests: the drivekit CLI run as a child process, and a small labelled log cast
// from a generated scene (two cars, one moving; the ego drives at 5 m/s) written through the log store.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { allocatePointCloud, boxesFromRows } from '../../../core/arrow/records.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import { castSequence } from '../../perception/scene.ts';

const run = promisify(execFile);

/** `drivekit <args>` in the repository; rejects (with stdout/stderr) on a non-zero exit. */
export const drivekit = (...args: string[]) =>
  run(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), ...args], { cwd: REPO_ROOT });

/**
 * `drivekit <args>` must fail with one stderr line matching `msg`, and exit code 2 when that line names an
 * option (a usage error: `drivekit sim: --x: … (see drivekit sim --help)`), 1 otherwise (docs/cli.md).
 */
export async function expectOneLineFailure(args: string[], msg: RegExp): Promise<void> {
  const e = (await drivekit(...args).then(
    () => null,
    (err: unknown) => err,
  )) as { code: number; stderr: string } | null;
  expect(e).not.toBeNull();
  const usage = /\(see drivekit [a-z -]+ --help\)\s*$/.test(e!.stderr);
  expect(e!.code).toBe(usage ? 2 : 1);
  expect(e!.stderr.trim().split('\n')).toHaveLength(1);
  expect(e!.stderr).toMatch(msg);
}

/** A 12-frame labelled log of the scene, cast by a 32-beam sensor out to `maxRangeM`. */
export async function writeCastLog(dir: string, maxRangeM: number): Promise<void> {
  const seq = castSequence({
    sensorZ: 1.8,
    rings: 32,
    azimuthSteps: 720,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM,
    frames: 12,
    rateHz: 10,
    egoSpeed: 5,
    terrain: () => 0,
    noiseM: 0.02,
    objects: [
      { cx: 15, cy: 4, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 0, vx: 6, vy: 0 },
      { cx: 12, cy: -5, cz: 0.8, length: 4.4, width: 1.8, height: 1.6, yaw: 0.1, vx: 0, vy: 0 },
    ],
  });
  const w = LogWriter.create(dir, { source: 'test' });
  seq.sweeps.forEach((s, f) => {
    const p = allocatePointCloud(s.x.length);
    p.x.set(s.x);
    p.y.set(s.y);
    p.z.set(s.z);
    w.appendFrame({
      timestampNs: BigInt(f) * 100_000_000n,
      pose: seq.poses.subarray(16 * f, 16 * f + 16),
      points: p,
    });
  });
  w.setLabels(
    boxesFromRows(
      seq.gt.map((g) => ({ ...g.box, frameIndex: g.frame, trackId: g.track, numPoints: g.points })),
    ),
  );
  await w.close();
}
