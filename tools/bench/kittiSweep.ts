// The real sweep the perception benchmarks time: KITTI 0048 frame 0 (about 120k points), from ../shared/data.
import fs from 'node:fs';
import { realData } from '../../core/paths.ts';
import { decodePcd } from '../../datasets/pcd.ts';

/** The real KITTI sweep 0048/0000000000 (about 120k points). */
export function kittiSweep(): ReturnType<typeof decodePcd>['points'] {
  const file = realData('kitti-0048', '0000000000.pcd');
  if (!fs.existsSync(file)) throw new Error(`${file} not found: the benchmark needs ../shared/data`);
  return decodePcd(fs.readFileSync(file), file).points;
}
