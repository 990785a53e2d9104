// KITTI calibration files: the object benchmark's calib/<frame>.txt (P0–P3, R0_rect, Tr_velo_to_cam)
// and the odometry benchmark's calib.txt (P0–P3, Tr). Gives the rectified-camera-from-LiDAR transform.
import { InputError } from '../core/errors.ts';
import { composePoses, identityPose, poseFrom3x4, type Pose } from '../core/geometry/pose.ts';
import { readInputText } from './inputFiles.ts';

export interface KittiCalib {
  file: string;
  /** Rectified cam0 from LiDAR: R0_rect · Tr_velo_to_cam (object), or Tr (odometry). */
  rectCamFromVelo: Pose;
}

/** Parse `key: numbers…` lines. */
function parseKeyValues(file: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const lines = readInputText(file).split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon < 0)
      throw new InputError(file, `line ${i + 1}: expected 'key: values', got '${line.slice(0, 40)}'`);
    const nums = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    out.set(line.slice(0, colon).trim(), nums);
  }
  return out;
}

function matrix(file: string, kv: Map<string, number[]>, key: string, size: number): number[] {
  const v = kv.get(key)!;
  if (v.length !== size || !v.every(Number.isFinite))
    throw new InputError(file, `${key} must have ${size} finite numbers, has ${v.length}`);
  return v;
}

export function readKittiCalib(file: string): KittiCalib {
  const kv = parseKeyValues(file);
  if (kv.has('Tr_velo_to_cam')) {
    const tr = poseFrom3x4(matrix(file, kv, 'Tr_velo_to_cam', 12));
    // Without R0_rect the reference camera is used as is (it differs from rectified by < 1°).
    const rect = identityPose();
    if (kv.has('R0_rect')) {
      const r = matrix(file, kv, 'R0_rect', 9);
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) rect[i * 4 + j] = r[i * 3 + j];
    }
    return { file, rectCamFromVelo: composePoses(rect, tr) };
  }
  if (kv.has('Tr')) return { file, rectCamFromVelo: poseFrom3x4(matrix(file, kv, 'Tr', 12)) };
  throw new InputError(file, 'no Tr_velo_to_cam or Tr entry (not a KITTI calibration file?)');
}
