// Well-known locations: the repository root and the shared sample data beside it
// (`../shared/data`, overridable with DRIVEKIT_SHARED_DATA).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root, whether this module runs from source (core/) or compiled (dist/core/). */
export const REPO_ROOT = ((here: string) => (path.basename(here) === 'dist' ? path.dirname(here) : here))(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
);

export function sharedDataDir(): string {
  return process.env.DRIVEKIT_SHARED_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'data');
}

/** A path under the shared real-data folder, e.g. realData('kitti-0048'). */
export function realData(...parts: string[]): string {
  return path.join(sharedDataDir(), 'real', ...parts);
}
