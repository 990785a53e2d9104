// A poses file lying beside a sequence's frames (`poses*.txt`, the KITTI odometry line format), which
// `drivekit import` reads when --poses is not given, so a folder of sweeps with its trajectory imports as is.
import fs from 'node:fs';
import path from 'node:path';

const POSES_NAME = /^poses.*\.txt$/i;

/**
 * The one `poses*.txt` in the folder of frames `input` (or in the root above a KITTI `velodyne/` folder);
 * null when there is none, or several (then the user must choose with --poses), and for a single-file input:
 * a sequence's poses file has a line per frame of the folder, not per file.
 */
export function posesBeside(input: string): string | null {
  const stat = fs.statSync(input, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return null;
  const dir = input;
  const dirs = path.basename(dir) === 'velodyne' ? [dir, path.dirname(dir)] : [dir];
  for (const d of dirs) {
    const found = fs
      .readdirSync(d)
      .filter((n) => POSES_NAME.test(n) && fs.statSync(path.join(d, n)).isFile());
    if (found.length === 1) return path.join(d, found[0]);
    if (found.length > 1) return null;
  }
  return null;
}
