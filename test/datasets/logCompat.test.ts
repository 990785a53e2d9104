// Old logs stay readable: a log written by the previous schema versions (test/fixtures/log-v1, never
// regenerated) is read by the current readers, frames, poses and boxes alike.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LogReader } from '../../datasets/logstore.ts';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'log-v1');
const tmp: string[] = [];
afterEach(() => tmp.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A copy, so readers that clean leftovers never touch the committed fixture. */
function copyFixture(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-compat-'));
  tmp.push(d);
  const dir = path.join(d, 'log-v1');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe('logs written by the previous schema version', () => {
  it('reads frames, poses, labels and detections of a drivekit-log/1 log', async () => {
    const log = await LogReader.open(copyFixture());
    expect(log.hasManifest).toBe(true);
    expect(log.frameCount).toBe(2);
    const f1 = await log.readFrame(1);
    expect(f1.points.x.length).toBe(160);
    expect(f1.frameIndex).toBe(1);
    expect(f1.timestampNs).toBe(1_600_000_000_100_000_000n);
    expect(f1.points.x[0]).toBeCloseTo(6);
    expect(f1.points.ring[65]).toBe(1);
    expect(f1.points.tOffset[10]).toBeCloseTo(1e-3);
    expect(f1.pose[3]).toBeCloseTo(1.5);
    const labels = log.readBoxes('labels')!;
    expect(Array.from(labels.frameIndex)).toEqual([0, 0, 1, 1]);
    expect(Array.from(labels.trackId)).toEqual([3, 4, 3, -1]);
    expect(labels.label).toEqual(['Car', 'Pedestrian', 'Car', 'Cyclist']);
    const det = log.readBoxes('detections')!;
    expect(Array.from(det.score)).toEqual([Math.fround(0.9), Math.fround(0.7)]);
    await log.close();
  });
});
