// Argoverse 2 reader on the shipped log: LZ4 feather sweeps, poses at each sweep, and cuboids whose
// point counts must equal the ones Argoverse computed (num_interior_pts).
import path from 'node:path';
import { expect, it } from 'vitest';
import { poseFromQuaternion } from '../../core/geometry/pose.ts';
import { realData } from '../../core/paths.ts';
import { describeWithSharedData } from '../sharedData.ts';
import { readFeather } from '../../datasets/av2.ts';
import { importLog } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { tmpDir } from './tmp.ts';

const SWEEPS = [315966265259836000n, 315966265360032000n];

describeWithSharedData('Argoverse 2 reader', () => {
  it('imports both sweeps with their point counts, poses and 81 cuboids each', async () => {
    const src = realData('av2-7fab2350');
    const out = path.join(tmpDir(), 'log');
    const meta = await importLog(src, 'av2', out, {});
    expect(meta.pointsPerFrame).toEqual([99_229, 99_466]);
    const log = await LogReader.open(out);
    expect(Array.from(log.timestampsNs)).toEqual(SWEEPS);

    // Poses: the city_SE3_egovehicle row at each sweep timestamp.
    const poses = readFeather(path.join(src, 'city_SE3_egovehicle.feather'));
    const ts = poses.getChild('timestamp_ns')!.toArray() as BigInt64Array;
    for (let f = 0; f < 2; f++) {
      const r = ts.indexOf(SWEEPS[f]);
      expect(r).toBeGreaterThanOrEqual(0);
      const col = (c: string) => Number(poses.getChild(c)!.get(r));
      const want = poseFromQuaternion(
        col('qw'),
        col('qx'),
        col('qy'),
        col('qz'),
        col('tx_m'),
        col('ty_m'),
        col('tz_m'),
      );
      expect(Array.from(log.pose(f))).toEqual(Array.from(want));
    }

    // Points: ego frame, ring from laser_number (two 32-beam sensors), t_offset within a sweep.
    const f0 = await log.readFrame(0);
    expect(Math.max(...f0.points.ring)).toBeLessThan(64);
    expect(Math.max(...f0.points.tOffset)).toBeLessThan(0.2);
    expect(Math.max(...f0.points.intensity)).toBeLessThanOrEqual(255);

    const b = log.readBoxes('labels')!;
    const perFrame = [0, 0];
    for (const f of b.frameIndex) perFrame[f]++;
    expect(perFrame).toEqual([81, 81]);
    // Our point counts equal Argoverse's own num_interior_pts, cuboid by cuboid.
    const ann = readFeather(path.join(src, 'annotations.feather'));
    const annTs = ann.getChild('timestamp_ns')!.toArray() as BigInt64Array;
    const nip = ann.getChild('num_interior_pts')!.toArray() as BigInt64Array;
    const uuid = ann.getChild('track_uuid')!;
    const theirs: number[] = [];
    const uuids: string[] = [];
    for (let r = 0; r < annTs.length; r++)
      if (SWEEPS.includes(annTs[r])) {
        theirs.push(Number(nip[r]));
        uuids.push(String(uuid.get(r)));
      }
    expect(Array.from(b.numPoints)).toEqual(theirs);
    // Track ids: one per uuid, the same id for the same object in both sweeps.
    const idOf = new Map<string, number>();
    uuids.forEach((u, k) => {
      if (!idOf.has(u)) idOf.set(u, b.trackId[k]);
      expect(b.trackId[k]).toBe(idOf.get(u));
    });
    expect(new Set(b.trackId).size).toBe(idOf.size);
    expect((meta.extra.trackUuids as string[])[b.trackId[0]]).toBe(uuids[0]);
    await log.close();
  });

  it('also opens the sensors/lidar folder or a single sweep file of the log', async () => {
    const lidar = realData('av2-7fab2350', 'sensors', 'lidar');
    const a = await importLog(lidar, 'av2', path.join(tmpDir(), 'log'), {});
    expect(a.frameCount).toBe(2);
    const one = await importLog(
      path.join(lidar, `${SWEEPS[1]}.feather`),
      'av2',
      path.join(tmpDir(), 'log'),
      {},
    );
    expect(one.pointsPerFrame).toEqual([99_466]);
  });
});
