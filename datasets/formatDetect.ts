// Which import format a path holds, from its layout and file names (no decoding): what `drivekit import`
// uses when --format is omitted, and what it suggests when a given --format does not fit.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.ts';

export interface DetectedFormat {
  /** A key of READERS (datasets/import.ts). */
  format: string;
  /** What gave it away, for the user: "22 .pcd files", "sensors/lidar/ with .feather sweeps". */
  evidence: string;
  /** The path to give the reader when it is not the one detected on (a KITTI raw drive's velodyne_points/). */
  input?: string;
}

/** File-name endings per format, most specific first (a nuScenes `.pcd.bin` also ends in `.bin`). */
const SUFFIXES: readonly (readonly [string, string])[] = [
  ['.pcd.bin', 'nuscenes'],
  ['.pcd', 'pcd'],
  ['.bin', 'kitti'],
  ['.las', 'las'],
  ['.laz', 'las'],
  ['.ply', 'ply'],
];

const formatOfName = (name: string): [string, string] | null => {
  const lower = name.toLowerCase();
  const hit = SUFFIXES.find(([s]) => lower.endsWith(s));
  return hit ? [hit[0], hit[1]] : null;
};

const isDir = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** The format whose frame files are the most numerous in `dir`, or null when it has none. */
function byFileNames(dir: string): DetectedFormat | null {
  const counts = new Map<string, { suffix: string; n: number }>();
  for (const name of fs.readdirSync(dir)) {
    const hit = formatOfName(name);
    if (!hit || !fs.statSync(path.join(dir, name)).isFile()) continue;
    const c = counts.get(hit[1]) ?? { suffix: hit[0], n: 0 };
    c.n++;
    counts.set(hit[1], c);
  }
  let best: DetectedFormat | null = null;
  let most = 0;
  for (const [format, { suffix, n }] of counts) {
    if (n > most) {
      most = n;
      best = { format, evidence: `${n} ${suffix} file${n === 1 ? '' : 's'}` };
    }
  }
  return best;
}

/** The format of `input`, or null when nothing in its name or layout says. */
export function detectFormat(input: string): DetectedFormat | null {
  if (!fs.existsSync(input)) throw new InputError(input, 'no such file or directory');
  if (!isDir(input)) {
    const hit = formatOfName(path.basename(input));
    return hit ? { format: hit[1], evidence: `a ${hit[0]} file` } : null;
  }
  if (isDir(path.join(input, 'sensors', 'lidar')))
    return { format: 'av2', evidence: 'an Argoverse 2 log (sensors/lidar/)' };
  for (const sub of ['velodyne', 'data']) {
    const d = path.join(input, sub);
    if (isDir(d) && byFileNames(d)?.format === 'kitti')
      return { format: 'kitti', evidence: `KITTI .bin sweeps in ${sub}/` };
  }
  // A KITTI raw drive folder: its sweeps are in velodyne_points/data/, which the reader takes from velodyne_points/.
  const raw = path.join(input, 'velodyne_points');
  if (isDir(path.join(raw, 'data')) && byFileNames(path.join(raw, 'data'))?.format === 'kitti')
    return { format: 'kitti', evidence: 'KITTI raw sweeps in velodyne_points/data/', input: raw };
  return byFileNames(input);
}

/** " (it looks like --format pcd: 22 .pcd files)" when `input` looks like another format than `given`; '' otherwise. */
export function formatHint(input: string, given: string): string {
  let found: DetectedFormat | null;
  try {
    found = detectFormat(input);
  } catch {
    return '';
  }
  return found && found.format !== given
    ? ` (it looks like --format ${found.format}: ${found.evidence})`
    : '';
}
