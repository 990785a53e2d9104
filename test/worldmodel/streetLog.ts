// A synthetic street log for the ray-depth tests: ground and house fronts sampled anew each sweep, exact poses.
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { composePoses, invertPose, poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { Rng } from '../../core/rng.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { transformed } from '../../worldmodel/forecastProtocol.ts';

/**
 * A street: the ground, house fronts along both sides with gaps; the car drives `speedM` a frame. Each sweep
 * samples the surfaces anew (as a LiDAR's returns never repeat), unless `samePoints`.
 */
export async function streetLog(
  dir: string,
  speedM: number,
  frames: number,
  samePoints = false,
  source = 'test',
): Promise<void> {
  const sample = (rng: Rng) => {
    const xs: number[] = [];
    const ys: number[] = [];
    const zs: number[] = [];
    for (let i = 0; i < 40000; i++) {
      xs.push(rng.uniform(-30, 80));
      ys.push(rng.uniform(-12, 12));
      zs.push(-1.7);
    }
    for (let i = 0; i < 30000; i++) {
      const x = rng.uniform(-30, 80);
      if (Math.floor(x / 6) % 3 === 0) continue; // gaps between houses
      xs.push(x);
      ys.push(rng.uniform() < 0.5 ? -12 : 12);
      zs.push(rng.uniform(-1.7, 1.5));
    }
    return { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) };
  };
  const rng = new Rng(5);
  const fixed = sample(rng);
  // The poses are exact even when the car stands still.
  const w = LogWriter.create(dir, { source, rateHz: 10, extra: { posesKnown: true } });
  const step = poseFromTranslationYaw(speedM, 0, 0, 0);
  let pose = poseFromTranslationYaw(0, 0, 0, 0);
  for (let f = 0; f < frames; f++) {
    if (f > 0) pose = composePoses(pose, step);
    const local = transformed(samePoints ? fixed : sample(rng), invertPose(pose));
    const pc = allocatePointCloud(local.x.length);
    pc.x.set(local.x);
    pc.y.set(local.y);
    pc.z.set(local.z);
    w.appendFrame({ timestampNs: BigInt(f) * 100_000_000n, pose, points: pc });
  }
  await w.close();
}
