// The mark a running pipeline leaves in its output folder and in its socket folder's name (its pid), so
// that a run killed with SIGKILL, which cleans nothing, does not block the next one: its leftovers are
// recognised by the dead pid and replaced, its socket folder in TMPDIR removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isStaleTemp, THIS_HOST } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';

/** In the output folder while a run writes there: `{ "pid": …, "host": … }`. */
export const RUN_MARKER = '.pipeline-run.json';
/** Socket folders are `<TMPDIR>/dk-pipe-<pid>-XXXXXX` (short: ipc paths must stay under 107 bytes). */
const SOCKET_DIR_RE = /^dk-pipe-(\d+)-[A-Za-z0-9]{6}$/;

const isDead = (pid: number, host: string) => isStaleTemp({ target: '', kind: 'tmp', pid, host });

/** Make this run's socket folder, named with its pid. */
export function makeSocketDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `dk-pipe-${process.pid}-`));
}

/** Remove the socket folders of pipelines that are gone (killed runs); returns their paths. */
export function cleanStaleSocketDirs(tmpDir = os.tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(tmpDir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = SOCKET_DIR_RE.exec(name);
    if (!m || !isDead(Number(m[1]), THIS_HOST)) continue;
    fs.rmSync(path.join(tmpDir, name), { recursive: true, force: true });
    removed.push(path.join(tmpDir, name));
  }
  return removed;
}

/**
 * Claim `out` for this run. A folder holding outputs is refused without `force`, unless it was claimed by
 * a run that is dead now (killed: its logs/ and partial outputs are replaced, as --force would); one
 * claimed by a live run is refused. Returns the pid of the dead run whose leftovers are replaced.
 */
export function claimOutFolder(out: string, force: boolean | undefined): { killedRun: number | null } {
  const marker = path.join(out, RUN_MARKER);
  let killedRun: number | null = null;
  let owner: { pid?: unknown; host?: unknown } | null = null;
  try {
    owner = JSON.parse(fs.readFileSync(marker, 'utf8')) as typeof owner;
  } catch {
    owner = fs.existsSync(marker) ? {} : null;
  }
  if (owner) {
    const pid = Number(owner.pid);
    const host = typeof owner.host === 'string' ? owner.host : '';
    if (Number.isInteger(pid) && pid > 0 && host && !isDead(pid, host) && !force)
      throw new InputError(out, `is being written by a running pipeline (pid ${pid} on ${host})`);
    // Dead (or unreadable, which only a killed write leaves): its run never finished.
    killedRun = Number.isInteger(pid) ? pid : 0;
    fs.rmSync(path.join(out, 'logs'), { recursive: true, force: true });
  }
  if (!force && killedRun === null && fs.existsSync(out) && fs.readdirSync(out).length > 0)
    throw new InputError(out, 'exists and is not empty (pass --force to replace its outputs)');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(marker, JSON.stringify({ pid: process.pid, host: THIS_HOST }) + '\n');
  return { killedRun };
}

/** The run is over (finished, failed or interrupted): its outputs are what they are. */
export function releaseOutFolder(out: string): void {
  fs.rmSync(path.join(out, RUN_MARKER), { force: true });
}
