// Replacing a log's poses with estimated ones (odometry): poses.arrow rewritten atomically, the source's
// own poses kept once as poses.source.arrow, meta.json's trajectory extent and provenance updated.
import fs from 'node:fs';
import path from 'node:path';
import { readFixedList, readTimestampNs } from '../core/arrow/columns.ts';
import { readArrowFile } from '../core/arrow/ipc.ts';
import { validateSchema } from '../core/arrow/validate.ts';
import { InputError } from '../core/errors.ts';
import { commitLogFiles, type LogFile } from './logCommit.ts';
import { posesBytes } from './logFiles.ts';
import { LOG_GROUP } from './logManifest.ts';
import type { LogMeta } from './logstore.ts';

export const SOURCE_POSES_FILE = 'poses.source.arrow';

/** The poses of a poses.arrow-shaped file (16 numbers per frame) and their timestamps. */
export function readPosesArrow(file: string): { poses: Float64Array; timestampsNs: BigInt64Array } {
  const { schema, batches } = readArrowFile(file);
  try {
    validateSchema(schema, 'poses', file);
  } catch (e) {
    throw new InputError(file, (e as Error).message.replace(`${file}: `, ''));
  }
  if (!batches.length) return { poses: new Float64Array(0), timestampsNs: new BigInt64Array(0) };
  return {
    poses: readFixedList<Float64Array>(batches[0], 'pose'),
    timestampsNs: readTimestampNs(batches[0], 'timestamp_ns'),
  };
}

/** True when every pose is the identity: the log was imported without poses. */
export function isIdentityTrajectory(poses: Float64Array): boolean {
  for (let i = 0; i < poses.length; i++) {
    const want = i % 16 === 0 || i % 16 === 5 || i % 16 === 10 || i % 16 === 15 ? 1 : 0;
    if (Math.abs(poses[i] - want) > 1e-12) return false;
  }
  return true;
}

/** The source's poses of a log: poses.source.arrow when odometry replaced them, else poses.arrow; null if none. */
export function sourcePosesOf(dir: string): Float64Array | null {
  const kept = path.join(dir, SOURCE_POSES_FILE);
  if (fs.existsSync(kept)) return readPosesArrow(kept).poses;
  // poses.arrow written by odometry earlier (the source had none) is an estimate, not a reference.
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) as LogMeta;
  if ((meta.extra?.posesEstimatedBy ?? null) !== null) return null;
  const poses = readPosesArrow(path.join(dir, 'poses.arrow')).poses;
  return isIdentityTrajectory(poses) ? null : poses;
}

/**
 * Write estimated poses into a log. The first replacement moves the source's poses (when it had any, not
 * all identity) to poses.source.arrow; later ones leave that file alone. `provenance` goes to
 * meta.json's extra.poses.
 */
export async function replaceLogPoses(
  dir: string,
  poses: Float64Array,
  timestampsNs: BigInt64Array,
  provenance: Record<string, unknown>,
): Promise<{ sourceKept: string | null }> {
  const posesFile = path.join(dir, 'poses.arrow');
  const metaFile = path.join(dir, 'meta.json');
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as LogMeta;
  if (poses.length !== 16 * meta.frameCount)
    throw new InputError(dir, `${poses.length / 16} poses for ${meta.frameCount} frames`);
  const kept = path.join(dir, SOURCE_POSES_FILE);
  let sourceKept: string | null = fs.existsSync(kept) ? kept : null;
  const replacedBefore = (meta.extra.posesEstimatedBy ?? null) !== null;
  // poses.source.arrow, poses.arrow and meta.json change together, through the log's commit path
  // (docs/reliability.md): a reader sees the old three or the new three, and the manifest keeps matching.
  const files: LogFile[] = [];
  if (!sourceKept && !replacedBefore && !isIdentityTrajectory(readPosesArrow(posesFile).poses)) {
    files.push({ name: SOURCE_POSES_FILE, bytes: fs.readFileSync(posesFile) });
    sourceKept = kept;
  }
  files.push({ name: 'poses.arrow', bytes: posesBytes(poses, timestampsNs) });
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < poses.length; i += 16) {
    for (let k = 0; k < 3; k++) {
      const v = poses[i + 4 * k + 3];
      if (v < min[k]) min[k] = v;
      if (v > max[k]) max[k] = v;
    }
  }
  meta.trajectoryExtent = meta.frameCount ? { min, max } : null;
  // Readers note a log without poses as "none given…" and stages then ignore poses.arrow; the note now
  // says where the poses came from, keeping the source's own note after it.
  const note = typeof meta.extra.poses === 'string' ? meta.extra.poses : '';
  meta.extra = {
    ...meta.extra,
    poses: note.startsWith('estimated by odometry')
      ? note
      : `estimated by odometry (source: ${note || (sourceKept ? SOURCE_POSES_FILE : 'none')})`,
    posesEstimatedBy: provenance,
    sourcePoses: sourceKept ? SOURCE_POSES_FILE : (meta.extra.sourcePoses ?? null),
  };
  files.push({ name: 'meta.json', bytes: Buffer.from(JSON.stringify(meta, null, 1) + '\n') });
  commitLogFiles(dir, LOG_GROUP, files);
  return { sourceKept };
}
