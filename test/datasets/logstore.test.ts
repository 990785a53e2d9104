// The log store: frames, poses and labels written and read back by index exactly; NaN/Inf points dropped
// and counted; no silent overwrite (an aborted write keeps the old log); broken logs named with the problem.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allocatePointCloud, boxesFromRows } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';

const tmp: string[] = [];
const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-log-'));
  tmp.push(d);
  return d;
};
afterEach(() => tmp.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function frame(i: number, n: number) {
  const p = allocatePointCloud(n);
  for (let k = 0; k < n; k++) {
    p.x[k] = i * 1000 + k;
    p.y[k] = -k;
    p.z[k] = 0.5;
    p.intensity[k] = 0.1;
  }
  return { timestampNs: BigInt(i) * 100_000_000n, pose: poseFromTranslationYaw(i, 0, 0, 0), points: p };
}

describe('log store', () => {
  it('writes frames, poses and labels and reads any frame back by index', async () => {
    const dir = path.join(tmpDir(), 'log');
    const w = LogWriter.create(dir, { source: 'test', sensor: 'none' });
    for (let i = 0; i < 5; i++) w.appendFrame(frame(i, 10 + i));
    w.setLabels(
      boxesFromRows([
        { frameIndex: 2, trackId: 7, cx: 1, cy: 1, cz: 1, length: 1, width: 1, height: 1, yaw: 0 },
      ]),
    );
    // Nothing is visible before close.
    expect(fs.existsSync(path.join(dir, 'frames.arrow'))).toBe(false);
    const meta = await w.close();
    expect(meta.frameCount).toBe(5);
    expect(meta.pointsPerFrame).toEqual([10, 11, 12, 13, 14]);

    const log = await LogReader.open(dir);
    const f3 = await log.readFrame(3);
    expect(f3.points.x.length).toBe(13);
    expect(f3.points.x[4]).toBe(3004);
    expect(f3.pose[3]).toBe(3);
    expect(f3.timestampNs).toBe(300_000_000n);
    const f0 = await log.readFrame(0);
    expect(f0.points.x[9]).toBe(9);
    expect(log.readBoxes('labels')!.trackId[0]).toBe(7);
    expect(log.readBoxes('detections')).toBeNull();
    await expect(log.readFrame(5)).rejects.toThrow(/out of range/);
    await log.close();
  });

  it('drops and counts NaN/Inf points', async () => {
    const dir = path.join(tmpDir(), 'log');
    const w = LogWriter.create(dir, { source: 'test' });
    const f = frame(0, 6);
    f.points.x[1] = NaN;
    f.points.z[4] = Infinity;
    w.appendFrame(f);
    const meta = await w.close();
    expect(meta.droppedNonFinite).toBe(2);
    const log = await LogReader.open(dir);
    expect(Array.from((await log.readFrame(0)).points.x)).toEqual([0, 2, 3, 5]);
    await log.close();
  });

  it('refuses to overwrite a log unless asked, and an aborted write leaves the old log intact', async () => {
    const dir = path.join(tmpDir(), 'log');
    const w = LogWriter.create(dir, { source: 'a' });
    w.appendFrame(frame(0, 3));
    await w.close();
    expect(() => LogWriter.create(dir, { source: 'b' })).toThrow(/already exists/);
    const w2 = LogWriter.create(dir, { source: 'b', overwrite: true });
    w2.appendFrame(frame(0, 99));
    w2.abort();
    const log = await LogReader.open(dir);
    expect(log.meta.source).toBe('a');
    expect((await log.readFrame(0)).points.x.length).toBe(3);
    await log.close();
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('says what is wrong with a broken log directory', async () => {
    const dir = tmpDir();
    await expect(LogReader.open(path.join(dir, 'nope'))).rejects.toThrow(/no such log directory/);
    await expect(LogReader.open(dir)).rejects.toThrow(/meta.json is missing/);
    const logDir = path.join(dir, 'log');
    const w = LogWriter.create(logDir, { source: 'a' });
    w.appendFrame(frame(0, 3));
    await w.close();
    const framesFile = path.join(logDir, 'frames.arrow');
    fs.truncateSync(framesFile, 100);
    await expect(LogReader.open(logDir)).rejects.toThrow(/frames.arrow/);
  });
});
