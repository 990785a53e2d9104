// An exclusive lock file (O_EXCL create, holding "<pid> <host>"), so that two processes updating the same
// manifest do not lose each other's entries; a lock left by a dead process on this host is taken over.
import fs from 'node:fs';
import { isStaleTemp, THIS_HOST } from './atomic.ts';
import { withErrnoPath } from './errors.ts';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * How long a lock file may stay empty or unreadable before it is judged ownerless. A live holder writes its
 * pid within microseconds of creating the file; an empty one is left by a holder killed in between, a full
 * disk, or a crash that lost the file's data.
 */
export const OWNERLESS_LOCK_GRACE_MS = 2_000;

/** Run `fn` holding `lockFile`; waits up to `timeoutMs` for another live holder. */
export function withFileLock<T>(lockFile: string, fn: () => T, timeoutMs = 30_000): T {
  const deadline = Date.now() + timeoutMs;
  while (!tryCreate(lockFile)) {
    const holder = readHolder(lockFile);
    if (holder === 'gone') continue;
    const stale =
      holder === 'ownerless'
        ? ageMs(lockFile) > OWNERLESS_LOCK_GRACE_MS
        : isStaleTemp({ target: '', kind: 'tmp', pid: holder.pid, host: holder.host });
    if (stale) {
      fs.rmSync(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      const who = holder === 'ownerless' ? 'another process' : `pid ${holder.pid} on ${holder.host}`;
      throw new Error(`${lockFile}: held by ${who} for too long`);
    }
    Atomics.wait(sleeper, 0, 0, 50);
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

/** Create the lock holding this process's name; false when it exists. Never leaves an empty lock behind. */
function tryCreate(lockFile: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lockFile, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw withErrnoPath(e, lockFile);
  }
  try {
    fs.writeSync(fd, `${process.pid} ${THIS_HOST}\n`);
  } catch (e) {
    // A full disk: the file exists but says nothing; remove it rather than lock the log for everyone.
    fs.closeSync(fd);
    fs.rmSync(lockFile, { force: true });
    throw withErrnoPath(e, lockFile);
  }
  fs.closeSync(fd);
  return true;
}

function readHolder(lockFile: string): { pid: number; host: string } | 'ownerless' | 'gone' {
  let text: string;
  try {
    text = fs.readFileSync(lockFile, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    return 'ownerless';
  }
  const [pid, host] = text.trim().split(' ');
  return /^\d+$/.test(pid ?? '') && host ? { pid: Number(pid), host } : 'ownerless';
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}
