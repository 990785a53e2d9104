// `drivekit discover` and `drivekit eval` as a user runs them: files written into the log, the --json
// shapes the issue fixes, and one-line errors with a non-zero exit on bad input.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud, boxesFromRows } from '../../../core/arrow/records.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { LogWriter, readBoxesFile } from '../../../datasets/logstore.ts';
import { castSequence } from '../../perception/scene.ts';
import { tmpDir } from '../../perception/tmp.ts';

const run = promisify(execFile);
const drivekit = (...args: string[]) =>
  run(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), ...args], { cwd: REPO_ROOT });

async function syntheticLog(dir: string) {
  const seq = castSequence({
    sensorZ: 1.8,
    rings: 32,
    azimuthSteps: 720,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM: 60,
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

describe('drivekit discover / eval', () => {
  it('discovers into the log and scores it in the documented JSON shape', async () => {
    const log = path.join(tmpDir(), 'log');
    await syntheticLog(log);
    const d = await drivekit('discover', '--log', log, '--min-track', '5', '--json');
    const summary = JSON.parse(d.stdout);
    expect(summary.frames).toBe(12);
    expect(summary.refined.tracksKept).toBe(2);
    const det = readBoxesFile(path.join(log, 'detections.arrow'));
    const tracks = readBoxesFile(path.join(log, 'tracks.arrow'));
    expect(det.cx.length).toBe(summary.detections);
    expect(new Set(tracks.trackId).size).toBe(2);

    const [e, rawOut, textOut] = await Promise.all([
      drivekit('eval', '--pred', log, '--gt', log, '--json'),
      drivekit('eval', '--pred', `${log}:detections`, '--gt', log, '--json'),
      drivekit('eval', '--pred', log, '--gt', log),
    ]);
    const r = JSON.parse(e.stdout);
    const buckets = ['0-30', '30-50', '50-80', 'all'];
    expect(Object.keys(r.ap).sort()).toEqual(['3d', 'bev']);
    expect(Object.keys(r.ap.bev).sort()).toEqual(['0.3', '0.5']);
    expect(Object.keys(r.ap['3d'])).toEqual(['0.3']);
    for (const t of [r.ap.bev['0.3'], r.ap.bev['0.5'], r.ap['3d']['0.3']])
      expect(Object.keys(t)).toEqual(buckets);
    expect(r.ap.bev['0.3'].all).toBeGreaterThan(0);
    expect(r.ap.bev['0.3'].all).toBeLessThanOrEqual(1);
    expect(Object.keys(r.dtc)).toEqual(
      expect.arrayContaining(['mean_abs_err_m', 'p95_abs_err_m', 'phantom_rate', 'missed_rate']),
    );
    expect(r.best_f1.bev['0.3'].f1).toBeGreaterThan(0);
    // Raw detections of the same log, and the text table.
    expect(JSON.parse(rawOut.stdout).counts.pred_boxes).toBe(det.cx.length);
    expect(textOut.stdout).toMatch(/BEV IoU 0\.3/);
    expect(textOut.stdout).toMatch(/DTC over \d+ frames/);
  });

  it('fails with one line and exit 1 on bad input, writing nothing', async () => {
    const dir = tmpDir();
    const fail = async (args: string[], msg: RegExp) => {
      const e = (await drivekit(...args).then(
        () => null,
        (err: unknown) => err,
      )) as { code: number; stderr: string } | null;
      expect(e).not.toBeNull();
      expect(e!.code).toBe(1);
      expect(e!.stderr.trim().split('\n')).toHaveLength(1);
      expect(e!.stderr).toMatch(msg);
    };
    fs.writeFileSync(path.join(dir, 'pred.json'), '{"frames": 3}');
    const log = path.join(dir, 'log');
    const w = LogWriter.create(log, { source: 'test' });
    w.appendFrame({
      timestampNs: 0n,
      pose: Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1),
      points: allocatePointCloud(0),
    });
    await w.close();
    await Promise.all([
      fail(['discover', '--log', path.join(dir, 'missing')], /no such log directory/),
      fail(
        ['eval', '--pred', path.join(dir, 'pred.json'), '--gt', path.join(dir, 'pred.json')],
        /'frames' array/,
      ),
      fail(['discover', '--log', log, '--range', '-3'], /--range: must be a positive/),
    ]);
    expect(fs.existsSync(path.join(log, 'detections.arrow'))).toBe(false);
    // An empty sweep is not an error: nothing found.
    const ok = JSON.parse((await drivekit('discover', '--log', log, '--json')).stdout);
    expect(ok.detections).toBe(0);
  });
});
