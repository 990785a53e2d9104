// Pose files in the KITTI odometry format: one pose per line, 12 numbers = the top 3×4 of a
// row-major 4×4 transform. Parsing, and the camera→LiDAR frame change KITTI odometry poses need.
import { InputError } from '../core/errors.ts';
import { composePoses, invertPose, poseFrom3x4, type Pose } from '../core/geometry/pose.ts';
import { readInputText } from './inputFiles.ts';
import type { ReaderOptions } from './source.ts';

/** All poses of the file, 16 numbers each (row-major 4×4). */
export function readPosesFile(file: string): Pose[] {
  const lines = readInputText(file).split(/\r?\n/);
  const poses: Pose[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    const nums = line.split(/\s+/).map(Number);
    if (nums.length !== 12 || !nums.every(Number.isFinite)) {
      throw new InputError(
        file,
        `line ${i + 1}: expected 12 finite numbers (a 3×4 pose), got '${line.slice(0, 60)}'`,
      );
    }
    poses.push(poseFrom3x4(nums));
  }
  if (poses.length === 0) throw new InputError(file, 'no poses in the file');
  return poses;
}

/** Check a pose list covers every frame (extra poses are an error too: they mean a mismatch). */
export function requirePoseCount(file: string, poses: readonly Pose[], frames: number): void {
  if (poses.length !== frames) throw new InputError(file, `has ${poses.length} poses for ${frames} frames`);
}

/**
 * KITTI odometry poses are `cam0_first_from_cam0_t` in the (rectified) camera frame. With
 * `camFromVelo` (Tr / R0_rect·Tr_velo_to_cam) they become `velo_first_from_velo_t`:
 * world_from_vehicle_t = camFromVelo⁻¹ · P_t · camFromVelo, the world being the first LiDAR frame.
 */
export function cameraPosesToLidar(poses: readonly Pose[], camFromVelo: Pose): Pose[] {
  const veloFromCam = invertPose(camFromVelo);
  return poses.map((p) => composePoses(composePoses(veloFromCam, p), camFromVelo));
}

/**
 * The nominal KITTI camera→LiDAR axes (camera x right, y down, z forward; LiDAR x forward, y left,
 * z up) without the lever arm: used when no calibration file is found.
 */
export function nominalCamFromVelo(): Pose {
  // cam.x = −velo.y, cam.y = −velo.z, cam.z = velo.x
  return Float64Array.of(0, -1, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0, 1);
}

export interface LoadedPoses {
  /** world_from_vehicle per frame, or null when no poses file was given. */
  poses: Pose[] | null;
  /** How the poses were obtained, kept in meta.json. */
  note: string;
}

/**
 * The poses of `--poses` for a sequence of `frames` frames, in the vehicle frame. Camera-frame poses
 * (KITTI odometry) are converted with `camFromVelo` when the reader found a calibration, else with
 * the nominal KITTI axes (said in the note).
 */
export function loadPoses(
  opts: ReaderOptions,
  frames: number,
  defaultFrame: 'camera' | 'vehicle',
  camFromVelo: Pose | null = null,
): LoadedPoses {
  if (!opts.posesPath) return { poses: null, note: 'none given: identity for every frame' };
  const raw = readPosesFile(opts.posesPath);
  requirePoseCount(opts.posesPath, raw, frames);
  const frame = opts.posesFrame ?? defaultFrame;
  if (frame === 'vehicle') return { poses: raw, note: `${opts.posesPath}: world_from_vehicle as given` };
  if (camFromVelo)
    return {
      poses: cameraPosesToLidar(raw, camFromVelo),
      note: `${opts.posesPath}: KITTI camera-frame poses converted to the LiDAR frame with the calibration`,
    };
  return {
    poses: cameraPosesToLidar(raw, nominalCamFromVelo()),
    note: `${opts.posesPath}: KITTI camera-frame poses converted with the nominal camera→LiDAR axes (no calibration found; lever arm ignored)`,
  };
}
