// nuScenes LiDAR sweeps (`*.pcd.bin`: little-endian float32 x y z intensity ring per point, LIDAR_TOP
// sensor frame with x right, y forward, z up) → the drivekit vehicle axes (x forward, y left, z up).
import path from 'node:path';
import { allocatePointCloud, type PointCloud } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { fileSequence } from './fileSequence.ts';
import { frameFiles, inputFileSize, readInputFile } from './inputFiles.ts';
import { loadPoses } from './posesFile.ts';
import type { SourceOpener } from './source.ts';
import { checkSensorPoints } from './plausibility.ts';

const FLOATS_PER_POINT = 5;
const BYTES_PER_POINT = 4 * FLOATS_PER_POINT;
/** Laser indices above this are no sensor's (nuScenes' HDL-32E has 32; 128-beam units the most made). */
const MAX_RING = 128;

/**
 * Decode one `.pcd.bin`. The axes are turned −90° about z (x_vehicle = y_sensor, y_vehicle = −x_sensor),
 * the rotation of LIDAR_TOP's calibrated_sensor; its lever arm (~0.94 m forward, 1.84 m up) is not in
 * the file and is not applied, so points stay centred on the sensor.
 */
function checkBinSize(size: number, file: string): void {
  if (size % BYTES_PER_POINT !== 0)
    throw new InputError(
      file,
      `size ${size} bytes is not a multiple of ${BYTES_PER_POINT} (float32 x y z intensity ring per point)${size % 16 === 0 ? '; a multiple of 16, as a KITTI .bin (--format kitti)?' : ''}`,
    );
}

export function decodeNuscenesBin(bytes: Uint8Array, file: string): PointCloud {
  checkBinSize(bytes.byteLength, file);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const f = new Float32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
  const n = f.length / FLOATS_PER_POINT;
  const p = allocatePointCloud(n);
  for (let i = 0, k = 0; i < n; i++, k += FLOATS_PER_POINT) {
    p.x[i] = f[k + 1];
    p.y[i] = 0 - f[k]; // not −f[k]: that turns 0 into −0
    p.z[i] = f[k + 2];
    p.intensity[i] = f[k + 3];
    const ring = f[k + 4];
    // The fifth float is a laser index (0–31 on the HDL-32E): anything else means the file is not
    // nuScenes' 5-float layout (a KITTI .bin has 4 floats per point, so its columns slide).
    if (!(Number.isInteger(ring) && ring >= 0 && ring < MAX_RING))
      throw new InputError(
        file,
        `point ${i}: ring column holds ${ring}, not a laser index 0–${MAX_RING - 1}; not a nuScenes .pcd.bin (x y z intensity ring float32)? A KITTI .bin has 4 floats per point`,
      );
    p.ring[i] = ring;
  }
  return p;
}

/** nuScenes file names end with the sweep's timestamp in microseconds: `…__LIDAR_TOP__1532402927647951.pcd.bin`. */
function timestampFromName(file: string): bigint | null {
  const m = /__(\d{16})\.pcd\.bin$/i.exec(path.basename(file));
  return m ? BigInt(m[1]) * 1000n : null;
}

export const open: SourceOpener = async (input, opts) => {
  const files = frameFiles(input, ['.pcd.bin'], 'nuScenes .pcd.bin');
  for (const f of files) checkBinSize(inputFileSize(f), f); // before anything is written
  const poses = loadPoses(opts, files.length, 'vehicle');
  const stamps = files.map(timestampFromName);
  const haveStamps = stamps.every((t) => t !== null);
  const rateHz = opts.rateHz ?? 20;
  const extra: Record<string, unknown> = {};
  let dropped = 0;
  return fileSequence({
    source: 'nuscenes',
    sensor: 'HDL-32E',
    rateHz,
    files,
    poses: poses.poses,
    timestampsNs: haveStamps ? (stamps as bigint[]) : undefined,
    decode: (file) => {
      const checked = checkSensorPoints(decodeNuscenesBin(readInputFile(file), file), file, opts);
      dropped += checked.dropped;
      if (dropped) extra.droppedImplausiblePoints = dropped;
      return checked.points;
    },
    extra: Object.assign(extra, {
      poses: poses.note,
      timestamps: haveStamps ? 'from file names (µs)' : `frame index / ${rateHz} Hz`,
      axes: 'LIDAR_TOP sensor axes turned to vehicle axes (x forward, y left); lever arm not applied',
    }),
  });
};
