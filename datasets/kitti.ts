// KITTI velodyne reader: `.bin` sweeps (float32 x y z reflectance, LiDAR frame) as a sequence, the
// object benchmark layout (velodyne/ label_2/ calib/) with labels in the LiDAR frame, odometry poses.
import fs from 'node:fs';
import path from 'node:path';
import { allocateBoxes, allocatePointCloud, type Boxes, type PointCloud } from '../core/arrow/records.ts';
import { countPointsInBox } from '../core/geometry/box.ts';
import { InputError } from '../core/errors.ts';
import type { Pose } from '../core/geometry/pose.ts';
import { fileSequence } from './fileSequence.ts';
import { frameFiles, inputFileSize, isDirectory, readInputFile, readInputText } from './inputFiles.ts';
import { readKittiCalib, type KittiCalib } from './kittiCalib.ts';
import { readKittiLabels, type KittiLabel } from './kittiLabels.ts';
import { loadPoses } from './posesFile.ts';
import type { SourceOpener } from './source.ts';
import { checkSensorPoints } from './plausibility.ts';

const BYTES_PER_POINT = 16;

/** De-interleave a KITTI `.bin` (little-endian float32 ×4 per point) into a point cloud. */
function checkBinSize(size: number, file: string): void {
  if (size % BYTES_PER_POINT !== 0)
    throw new InputError(
      file,
      `size ${size} bytes is not a multiple of ${BYTES_PER_POINT} (float32 x y z reflectance per point)`,
    );
}

export function decodeKittiBin(bytes: Uint8Array, file: string): PointCloud {
  checkBinSize(bytes.byteLength, file);
  // A Float32Array view needs 4-byte alignment; small Buffers may sit at any offset of Node's pool.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const f = new Float32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
  const n = f.length / 4;
  const p = allocatePointCloud(n);
  const { x, y, z, intensity } = p;
  for (let i = 0, k = 0; i < n; i++, k += 4) {
    x[i] = f[k];
    y[i] = f[k + 1];
    z[i] = f[k + 2];
    intensity[i] = f[k + 3];
  }
  return p;
}

interface KittiLayout {
  files: string[];
  /** Folder holding velodyne/, label_2/, calib/, calib.txt, times.txt when present. */
  root: string;
  labelDir: string | null;
  calibDir: string | null;
  sequenceCalib: string | null;
  /** times.txt (odometry, seconds) or timestamps.txt (raw, date-times), one line per frame number. */
  timesFile: string | null;
}

function findLayout(input: string): KittiLayout {
  let veloDir: string;
  let files: string[];
  if (isDirectory(input)) {
    veloDir = input;
    if (isDirectory(path.join(input, 'velodyne'))) veloDir = path.join(input, 'velodyne');
    else if (isDirectory(path.join(input, 'data'))) veloDir = path.join(input, 'data'); // raw: velodyne_points/data
    files = frameFiles(veloDir, ['.bin'], 'KITTI velodyne .bin');
  } else {
    veloDir = path.dirname(input);
    files = [input];
  }
  const root = path.basename(veloDir) === 'velodyne' ? path.dirname(veloDir) : veloDir;
  const dirOr = (p: string) => (isDirectory(p) ? p : null);
  const fileOr = (p: string) => (fs.existsSync(p) && !isDirectory(p) ? p : null);
  return {
    files,
    root,
    labelDir: dirOr(path.join(root, 'label_2')),
    calibDir: dirOr(path.join(root, 'calib')),
    sequenceCalib: fileOr(path.join(root, 'calib.txt')),
    timesFile:
      files.length > 1
        ? (fileOr(path.join(root, 'times.txt')) ?? fileOr(path.join(path.dirname(veloDir), 'timestamps.txt')))
        : null,
  };
}

/** Timestamps by frame number: seconds (odometry times.txt) or 'YYYY-MM-DD hh:mm:ss.fffffffff' (raw). */
function readTimes(file: string): bigint[] {
  const out: bigint[] = [];
  for (const raw of readInputText(file).split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const dt = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?$/.exec(line);
    if (dt) {
      const ms = Date.parse(`${dt[1]}T${dt[2]}Z`);
      if (!Number.isFinite(ms)) throw new InputError(file, `bad date-time '${line}'`);
      out.push(BigInt(ms) * 1_000_000n + BigInt((dt[3] ?? '0').padEnd(9, '0')));
    } else {
      const s = Number(line);
      if (!Number.isFinite(s)) throw new InputError(file, `bad timestamp '${line}'`);
      out.push(BigInt(Math.round(s * 1e9)));
    }
  }
  return out;
}

const stemOf = (file: string) => path.basename(file).replace(/\.bin$/i, '');

export const open: SourceOpener = async (input, opts) => {
  const layout = findLayout(input);
  const { files } = layout;
  // Sizes first (a stat each): a bad file fails before anything is written.
  for (const f of files) checkBinSize(inputFileSize(f), f);
  const calibCache = new Map<string, KittiCalib>();
  const calibFor = (stem: string): KittiCalib | null => {
    const file = layout.calibDir ? path.join(layout.calibDir, `${stem}.txt`) : null;
    const chosen = file && fs.existsSync(file) ? file : layout.sequenceCalib;
    if (!chosen) return null;
    let c = calibCache.get(chosen);
    if (!c) calibCache.set(chosen, (c = readKittiCalib(chosen)));
    return c;
  };

  // Labels are parsed up front so a bad label file fails before anything is written.
  const labelsPerFrame: KittiLabel[][] = files.map(() => []);
  if (layout.labelDir) {
    files.forEach((f, i) => {
      const labelFile = path.join(layout.labelDir!, `${stemOf(f)}.txt`);
      // A label_2/ folder labels every frame (an empty file = no objects): a missing file is a broken
      // layout, and reading it as "no objects" would score every detection there as a false positive.
      if (!fs.existsSync(labelFile))
        throw new InputError(
          labelFile,
          `missing: ${layout.labelDir} has no label file for ${path.basename(f)} (an empty file means no objects)`,
        );
      const calib = calibFor(stemOf(f));
      if (!calib)
        throw new InputError(
          labelFile,
          'labels need a calibration (calib/<frame>.txt) to reach the LiDAR frame',
        );
      labelsPerFrame[i] = readKittiLabels(labelFile, calib.rectCamFromVelo);
    });
  }
  const boxCount = labelsPerFrame.reduce((s, l) => s + l.length, 0);
  const boxes: Boxes | null = layout.labelDir ? allocateBoxes(boxCount) : null;
  const firstRow: number[] = [];
  if (boxes) {
    let k = 0;
    labelsPerFrame.forEach((labels, i) => {
      firstRow.push(k);
      for (const b of labels) {
        boxes.frameIndex[k] = i;
        boxes.label[k] = b.label;
        boxes.score[k] = b.score;
        boxes.cx[k] = b.cx;
        boxes.cy[k] = b.cy;
        boxes.cz[k] = b.cz;
        boxes.length[k] = b.length;
        boxes.width[k] = b.width;
        boxes.height[k] = b.height;
        boxes.yaw[k] = b.yaw;
        k++;
      }
    });
  }
  const counted = new Uint8Array(files.length);
  const countLabelPoints = (i: number, p: PointCloud) => {
    labelsPerFrame[i].forEach((b, j) => {
      boxes!.numPoints[firstRow[i] + j] = countPointsInBox(b, p.x, p.y, p.z);
    });
    counted[i] = 1;
  };
  const extra: Record<string, unknown> = {};
  const decode = (file: string, i: number) => {
    const checked = checkSensorPoints(decodeKittiBin(readInputFile(file), file), file, opts);
    const p = checked.points;
    if (checked.dropped)
      extra.droppedImplausiblePoints = Number(extra.droppedImplausiblePoints ?? 0) + checked.dropped;
    if (boxes && !counted[i]) countLabelPoints(i, p);
    return p;
  };

  // Poses of a sequence share one calibration: calib.txt (odometry), else the first frame's.
  const seqCalib = calibFor(stemOf(files[0]));
  const poses = loadPoses(opts, files.length, 'camera', seqCalib?.rectCamFromVelo ?? null);
  let timestampsNs: bigint[] | undefined;
  if (layout.timesFile) {
    const times = readTimes(layout.timesFile);
    const byStem = files.map((f) => times[Number(stemOf(f))]);
    if (byStem.every((t) => t !== undefined)) timestampsNs = byStem;
  }
  return fileSequence({
    source: 'kitti',
    sensor: 'HDL-64E',
    rateHz: opts.rateHz ?? 10,
    files,
    decode,
    poses: poses.poses as Pose[] | null,
    timestampsNs,
    labels: () => {
      if (!boxes) return null;
      files.forEach((f, i) => {
        if (!counted[i] && labelsPerFrame[i].length) decode(f, i);
      });
      return boxes;
    },
    extra: Object.assign(extra, {
      poses: poses.note,
      timestamps: timestampsNs ? layout.timesFile : `frame index / ${opts.rateHz ?? 10} Hz`,
      labels: layout.labelDir
        ? `${layout.labelDir}: camera → LiDAR with ${layout.calibDir ?? layout.sequenceCalib}, DontCare skipped`
        : null,
    }),
  });
};
