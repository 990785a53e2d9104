// An exclusive lock file (O_EXCL create, holding "<pid> <host>"), so that two processes updating the same
// manifest do not lose each other's entries; a lock left by a dead process on this host is taken over.
import fs from 'node:fs';
import { isStaleTemp, THIS_HOST } from './atomic.ts';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Run `fn` holding `lockFile`; waits up to `timeoutMs` for another live holder. */
export function withFileLock<T>(lockFile: string, fn: () => T, timeoutMs = 30_000): T {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = fs.openSync(lockFile, 'wx');
      fs.writeSync(fd, `${process.pid} ${THIS_HOST}\n`);
      fs.closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readHolder(lockFile);
    if (holder && isStaleTemp({ target: '', kind: 'tmp', pid: holder.pid, host: holder.host })) {
      fs.rmSync(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${lockFile}: held by ${holder ? `pid ${holder.pid}` : 'another process'} for too long`,
      );
    }
    Atomics.wait(sleeper, 0, 0, 50);
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

function readHolder(lockFile: string): { pid: number; host: string } | null {
  try {
    const [pid, host] = fs.readFileSync(lockFile, 'utf8').trim().split(' ');
    return Number.isInteger(Number(pid)) && host ? { pid: Number(pid), host } : null;
  } catch {
    return null;
  }
}
