// Which poses odometry scores against: the source's (kept as poses.source.arrow), never an earlier estimate
// written into poses.arrow of a log imported without poses (that once scored kitti-raw-78 against itself).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { identityPose, poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { replaceLogPoses, sourcePosesOf } from '../../datasets/logPoses.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { tmpDir } from '../perception/tmp.ts';

async function logWith(poses: Float64Array[]): Promise<string> {
  const dir = path.join(tmpDir(), 'log');
  const w = LogWriter.create(dir, { source: 'test' });
  poses.forEach((pose, f) => {
    const p = allocatePointCloud(3);
    p.x.set([1, 2, 3]);
    w.appendFrame({ timestampNs: BigInt(f) * 100_000_000n, pose, points: p });
  });
  await w.close();
  return dir;
}

const flat = (ps: Float64Array[]) => {
  const out = new Float64Array(16 * ps.length);
  ps.forEach((p, i) => out.set(p, 16 * i));
  return out;
};
const ts = BigInt64Array.of(0n, 100_000_000n);

describe('sourcePosesOf', () => {
  it('is null for a log without poses, also after odometry wrote its estimate', async () => {
    const dir = await logWith([identityPose(), identityPose()]);
    expect(sourcePosesOf(dir)).toBeNull();
    await replaceLogPoses(dir, flat([identityPose(), poseFromTranslationYaw(1, 0, 0, 0)]), ts, { m: 'x' });
    expect(sourcePosesOf(dir)).toBeNull();
    // Stages read "none given…" as no poses: the note must now say they were estimated.
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    expect(meta.extra.poses).toMatch(/^estimated by odometry/);
  });

  it("is the source's poses, before and after they were replaced", async () => {
    const src = [identityPose(), poseFromTranslationYaw(2, 0, 0, 0.1)];
    const dir = await logWith(src);
    expect(sourcePosesOf(dir)).toEqual(flat(src));
    await replaceLogPoses(dir, flat([identityPose(), poseFromTranslationYaw(1, 0, 0, 0)]), ts, { m: 'x' });
    expect(sourcePosesOf(dir)).toEqual(flat(src));
  });
});
