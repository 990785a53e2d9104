// Adding a stage's outputs (detections + tracks, tokens, …) to an existing log through one commit path:
// temporaries written and synced, renamed into place, then the manifest rewritten atomically under a lock.
import fs from 'node:fs';
import path from 'node:path';
import { cleanStaleTemps, syncDir, tempPathFor, writeFileAtomicSync } from '../core/atomic.ts';
import { InputError, withErrnoPath } from '../core/errors.ts';
import { withFileLock } from '../core/fileLock.ts';
import { entryOfBytes, LOG_GROUP, MANIFEST_FILE, readManifest, writeManifest } from './logManifest.ts';

export const LOCK_FILE = '.manifest.lock';

export interface LogFile {
  /** Path inside the log ('detections.arrow'). */
  name: string;
  bytes: Uint8Array;
}

/** Whether `dir` is a drivekit log (its meta.json or manifest.json is there). */
export function isLogDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'meta.json')) || fs.existsSync(path.join(dir, MANIFEST_FILE));
}

/**
 * Write `files` into the log at `dir` as one group. A stage's group is replaced as a whole (its files not
 * written again are removed); in the log's own group ('log': e.g. poses.arrow and meta.json rewritten by
 * odometry) only the given files change. A kill at any point leaves the old group (listed, matching) or
 * files that do not match the manifest, which readers refuse as a group, never a silent mix. A log written
 * before manifests gets plain atomic writes, as before.
 */
export function commitLogFiles(dir: string, group: string, files: readonly LogFile[]): void {
  if (!readManifest(dir)) {
    for (const f of files) writeFileAtomicSync(path.join(dir, f.name), f.bytes);
    return;
  }
  withFileLock(path.join(dir, LOCK_FILE), () => {
    cleanStaleTemps(dir);
    const m = readManifest(dir)!;
    for (const f of files) {
      const owner = m.files[f.name]?.group;
      if (owner === LOG_GROUP && group !== LOG_GROUP) {
        throw new InputError(path.join(dir, f.name), `belongs to the log itself, not to '${group}'`);
      }
    }
    const temps: string[] = [];
    let current = '';
    try {
      for (const f of files) {
        current = path.join(dir, f.name);
        const tmp = tempPathFor(current);
        temps.push(tmp);
        const fd = fs.openSync(tmp, 'w');
        try {
          fs.writeFileSync(fd, f.bytes);
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
      }
      files.forEach((f, i) => fs.renameSync(temps[i], path.join(dir, f.name)));
    } catch (e) {
      for (const t of temps) fs.rmSync(t, { force: true });
      // Name the log's file, not the temporary (writes through a descriptor name none).
      throw withErrnoPath(e, current);
    }
    syncDir(dir);
    const written = new Set(files.map((f) => f.name));
    const dropped = Object.entries(m.files)
      .filter(([name, e]) => group !== LOG_GROUP && e.group === group && !written.has(name))
      .map(([name]) => name);
    for (const name of dropped) delete m.files[name];
    for (const f of files) m.files[f.name] = entryOfBytes(f.bytes, group);
    writeManifest(dir, m);
    for (const name of dropped) fs.rmSync(path.join(dir, name), { force: true });
  });
}
