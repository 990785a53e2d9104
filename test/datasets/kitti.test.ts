// KITTI reader: hand-computed camera→LiDAR label and pose conversions on generated files, and the real
// object-benchmark frames, whose label boxes must hold LiDAR points.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countPointsInBox } from '../../core/geometry/box.ts';
import { poseFrom3x4, yawOfPose } from '../../core/geometry/pose.ts';
import { realData } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { importLog } from '../../datasets/import.ts';
import { open as openKitti } from '../../datasets/kitti.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { kittiBin, tmpDir } from './tmp.ts';

const nums = (a: readonly number[]) => a.map((v) => v.toExponential(6)).join(' ');
// Nominal KITTI axes (cam x = −velo y, cam y = −velo z, cam z = velo x) with a lever arm.
const TR = [0, -1, 0, 0, 0, 0, -1, -0.08, 1, 0, 0, -0.27];
const IDENTITY3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

function writeObjectLayout(root: string): void {
  for (const d of ['velodyne', 'label_2', 'calib']) fs.mkdirSync(path.join(root, d));
  fs.writeFileSync(
    path.join(root, 'calib', '000000.txt'),
    `P0: ${nums(new Array(12).fill(0))}\nR0_rect: ${nums(IDENTITY3)}\nTr_velo_to_cam: ${nums(TR)}\n`,
  );
  fs.writeFileSync(
    path.join(root, 'label_2', '000000.txt'),
    [
      // Heading along camera +x (right) → LiDAR −y: yaw −π/2.
      'Car 0.00 0 0.00 0 0 10 10 1.50 1.60 4.00 2.00 1.70 10.00 0.00',
      'DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10',
      // Heading along camera +z (forward) → LiDAR +x: yaw 0. A 16th column is a score.
      'Pedestrian 0.00 0 0.00 0 0 10 10 1.80 0.60 0.80 -3.00 1.27 5.00 -1.5707963 0.75',
    ].join('\n') + '\n',
  );
  // Three points inside the car (centre at LiDAR (10.27, −2, −1.03)), one inside the pedestrian, two outside.
  fs.writeFileSync(
    path.join(root, 'velodyne', '000000.bin'),
    kittiBin([
      [10.27, -2, -1.03, 0.5],
      [10.27, -1.3, -0.5, 0.5],
      [9.5, -2.5, -1.6, 0.5],
      [5.27, 3, -0.4, 0.2],
      [30, 0, 0, 0.1],
      [10.27, -2, 1.5, 0.1],
    ]),
  );
}

describe('KITTI reader', () => {
  it('converts label_2 boxes from the camera frame to LiDAR boxes (hand-computed) and counts their points', async () => {
    const root = tmpDir();
    writeObjectLayout(root);
    const seq = await openKitti(root, {});
    const frames = [...(seq.frames() as Iterable<{ points: { x: Float32Array } }>)];
    expect(frames).toHaveLength(1);
    expect(frames[0].points.x.length).toBe(6);
    const b = seq.labels()!;
    expect(b.label).toEqual(['Car', 'Pedestrian']); // DontCare skipped
    // Car: bottom centre (2, 1.7, 10) → geometric centre (2, 0.95, 10) in the camera; minus the lever
    // arm (0, −0.08, −0.27) → (2, 1.03, 10.27); into LiDAR axes → (10.27, −2, −1.03).
    expect(b.cx[0]).toBeCloseTo(10.27, 5);
    expect(b.cy[0]).toBeCloseTo(-2, 5);
    expect(b.cz[0]).toBeCloseTo(-1.03, 5);
    expect([b.length[0], b.width[0], b.height[0]]).toEqual([4, Math.fround(1.6), 1.5]);
    expect(b.yaw[0]).toBeCloseTo(-Math.PI / 2, 6);
    expect(b.numPoints[0]).toBe(3);
    // Pedestrian: (−3, 1.27 − 0.9, 5) → (−3, 0.45, 5.27) → LiDAR (5.27, 3, −0.45); yaw 0; score kept.
    expect(b.cx[1]).toBeCloseTo(5.27, 5);
    expect(b.cy[1]).toBeCloseTo(3, 5);
    expect(b.cz[1]).toBeCloseTo(-0.45, 5);
    expect(b.yaw[1]).toBeCloseTo(0, 6);
    expect(b.score[1]).toBeCloseTo(0.75, 6);
    expect(b.numPoints[1]).toBe(1);
  });

  it('turns KITTI odometry camera poses into LiDAR poses with calib.txt, and reads times.txt', async () => {
    const root = tmpDir();
    fs.mkdirSync(path.join(root, 'velodyne'));
    for (let i = 0; i < 3; i++)
      fs.writeFileSync(
        path.join(root, 'velodyne', `${String(i).padStart(6, '0')}.bin`),
        kittiBin([[1, 2, 3, 0]]),
      );
    fs.writeFileSync(path.join(root, 'calib.txt'), `P0: ${nums(new Array(12).fill(0))}\nTr: ${nums(TR)}\n`);
    fs.writeFileSync(path.join(root, 'times.txt'), '0.000000e+00\n1.036224e-01\n2.072453e-01\n');
    // Frame 1: 2 m forward (camera +z). Frame 2: turned left by θ (about camera −y) and 1 m to the right.
    const th = 0.3;
    const c = Math.cos(-th);
    const s = Math.sin(-th);
    const posesFile = path.join(root, 'poses.txt');
    fs.writeFileSync(
      posesFile,
      [
        [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
        [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2],
        [c, 0, s, 1, 0, 1, 0, 0, -s, 0, c, 0],
      ]
        .map(nums)
        .join('\n'),
    );
    const seq = await openKitti(root, { posesPath: posesFile });
    const frames = [...(seq.frames() as Iterable<{ pose: Float64Array; timestampNs: bigint }>)];
    expect(frames.map((f) => f.timestampNs)).toEqual([0n, 103622400n, 207245300n]);
    // Frame 0 is the world: identity. Frame 1: 2 m along LiDAR +x, no rotation.
    expect(Array.from(frames[0].pose)).toEqual(Array.from(poseFrom3x4([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0])));
    expect(frames[1].pose[3]).toBeCloseTo(2, 9);
    expect(frames[1].pose[7]).toBeCloseTo(0, 9);
    // Frame 2: yaw +θ (a left turn is counter-clockwise about +z). Translation by hand:
    // Tr⁻¹·P·Tr has t = Cᵀ(R·t_Tr + p − t_Tr) with R = Ry(−θ), p = (1, 0, 0), t_Tr = (0, −0.08, −0.27)
    // → camera (1 − 0.27 s, 0, 0.27 − 0.27 c) → LiDAR (0.27 (1 − c), −(1 − 0.27 s), 0).
    expect(yawOfPose(frames[2].pose)).toBeCloseTo(th, 6);
    expect(frames[2].pose[3]).toBeCloseTo(0.27 * (1 - c), 6);
    expect(frames[2].pose[7]).toBeCloseTo(-(1 - 0.27 * s), 6);
    expect(frames[2].pose[11]).toBeCloseTo(0, 6);
    expect(seq.extra?.poses).toMatch(/with the calibration/);

    const asVehicle = await openKitti(root, { posesPath: posesFile, posesFrame: 'vehicle' });
    const f1 = [...(asVehicle.frames() as Iterable<{ pose: Float64Array }>)][1];
    expect(f1.pose[11]).toBe(2); // taken as given: 2 m along z
  });

  it('reads the raw-data layout: velodyne_points/data/*.bin with date-time timestamps.txt', async () => {
    const root = path.join(tmpDir(), 'velodyne_points');
    fs.mkdirSync(path.join(root, 'data'), { recursive: true });
    for (let i = 0; i < 2; i++)
      fs.writeFileSync(
        path.join(root, 'data', `${String(i).padStart(10, '0')}.bin`),
        kittiBin([[i, 0, 0, 0]]),
      );
    fs.writeFileSync(
      path.join(root, 'timestamps.txt'),
      '2011-09-26 13:02:25.964389445\n2011-09-26 13:02:26.066575352\n',
    );
    const seq = await openKitti(root, {});
    const frames = [...(seq.frames() as Iterable<{ timestampNs: bigint }>)];
    const t0 = BigInt(Date.UTC(2011, 8, 26, 13, 2, 25)) * 1_000_000n;
    expect(frames.map((f) => f.timestampNs)).toEqual([t0 + 964389445n, t0 + 1_066575352n]);
  });

  itWithSharedData(
    'imports the real object-benchmark frames: every point, every labelled object holding LiDAR points',
    async () => {
      const src = realData('kitti-object');
      const out = path.join(tmpDir(), 'log');
      const meta = await importLog(src, 'kitti', out, {});
      const bins = fs.readdirSync(path.join(src, 'velodyne')).sort();
      expect(meta.frameCount).toBe(bins.length);
      expect(meta.pointsPerFrame).toEqual(
        bins.map((f) => fs.statSync(path.join(src, 'velodyne', f)).size / 16),
      );
      const objects = bins.flatMap((f) =>
        fs
          .readFileSync(path.join(src, 'label_2', f.replace('.bin', '.txt')), 'utf8')
          .split('\n')
          .filter((l) => l.trim() && !l.startsWith('DontCare')),
      );
      const log = await LogReader.open(out);
      const b = log.readBoxes('labels')!;
      expect(b.label).toEqual(objects.map((l) => l.split(' ')[0]));
      for (let i = 0; i < b.cx.length; i++) {
        expect(b.numPoints[i], `${b.label[i]} in frame ${b.frameIndex[i]}`).toBeGreaterThan(0);
        // The stored count is what the frame's points give.
        const f = await log.readFrame(b.frameIndex[i]);
        const box = {
          cx: b.cx[i],
          cy: b.cy[i],
          cz: b.cz[i],
          length: b.length[i],
          width: b.width[i],
          height: b.height[i],
          yaw: b.yaw[i],
        };
        expect(countPointsInBox(box, f.points.x, f.points.y, f.points.z)).toBe(b.numPoints[i]);
        // A wrong frame conversion would not fit the object: the same box a metre up or turned by 90°
        // (for elongated objects) holds fewer points.
        const up = countPointsInBox({ ...box, cz: box.cz + 1 }, f.points.x, f.points.y, f.points.z);
        expect(up).toBeLessThan(b.numPoints[i]);
        if (b.label[i] === 'Car' || b.label[i] === 'Truck') {
          const turned = countPointsInBox(
            { ...box, yaw: box.yaw + Math.PI / 2 },
            f.points.x,
            f.points.y,
            f.points.z,
          );
          expect(turned).toBeLessThan(b.numPoints[i]);
        }
      }
      await log.close();
    },
  );
});
