// Creating output directories without Node's recursive mkdir, which loops forever (100% CPU) when a
// parent exists but refuses new entries (mkdir under /proc answers ENOENT, and Node retries the parent).
import fs from 'node:fs';
import path from 'node:path';
import { describeErrno, InputError } from './errors.ts';

/**
 * `mkdir -p`: creates `dir` and its missing parents, one mkdir each (no retries, so it always ends).
 * Throws an InputError naming the directory that could not be made (a file in the way, read-only or
 * pseudo file systems, permissions).
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let p = path.resolve(dir); ;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOTDIR: a file further up; walking on finds it and names it.
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw new InputError(p, `cannot create directory (${describeErrno(e)})`);
    }
    if (st) {
      if (!st.isDirectory()) throw new InputError(p, 'cannot create a directory here: it is a file');
      break;
    }
    missing.push(p);
    const up = path.dirname(p);
    if (up === p) break;
    p = up;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && fs.statSync(d).isDirectory()) continue; // made meanwhile by another job
      throw new InputError(
        d,
        code === 'ENOENT'
          ? `cannot create directory: ${path.dirname(d)} does not accept new entries`
          : `cannot create directory (${describeErrno(e)})`,
      );
    }
  }
}
