// Atomic output: write to a temporary sibling (file or directory), fsync, then rename over the target, so a
// killed job leaves either the old output or the new one, never half of one; stale temporaries are cleaned.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Crc32c } from './crc32c.ts';
import { makeDirs } from './dirs.ts';
import { withErrnoPath } from './errors.ts';

// Temporaries are named `.<target>.tmp-<pid>-<ms>-<seq>-<host>` (`.old-` for a directory moved aside while
// it is replaced): the pid and host let a later run tell a dead writer's leftovers from a live writer's work.
/** This machine's name as it appears in temporaries' names. */
export const THIS_HOST =
  os
    .hostname()
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 32) || 'host';
let seq = 0;
const TEMP_RE = /^\.(.+)\.(tmp|old)-(\d+)-(\d+)(?:-(\d+))?(?:-([A-Za-z0-9]+))?$/;

function siblingName(target: string, kind: 'tmp' | 'old'): string {
  const base = path.basename(path.resolve(target));
  return path.join(
    path.dirname(target),
    `.${base}.${kind}-${process.pid}-${Date.now()}-${seq++}-${THIS_HOST}`,
  );
}

export function tempPathFor(target: string): string {
  return siblingName(target, 'tmp');
}

export interface TempName {
  /** Base name of the file or directory it stands in for. */
  target: string;
  kind: 'tmp' | 'old';
  pid: number;
  host: string;
}

/** The parts of a temporary's name, or null when `name` is not one. */
export function parseTempName(name: string): TempName | null {
  const m = TEMP_RE.exec(name);
  if (!m) return null;
  return { target: m[1], kind: m[2] as 'tmp' | 'old', pid: Number(m[3]), host: m[6] ?? THIS_HOST };
}

/**
 * Whether the process that made a temporary is gone: only decidable on this host (another host's
 * temporaries on shared storage are never touched). A pid reused by an unrelated process keeps the
 * leftover alive, which errs on the safe side.
 */
export function isStaleTemp(t: TempName): boolean {
  if (t.host !== THIS_HOST || t.pid === process.pid) return false;
  try {
    process.kill(t.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Remove the temporaries in `dir` (files or directories) left by dead writers; returns their names. */
export function cleanStaleTemps(dir: string, only?: (t: TempName) => boolean): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const t = parseTempName(name);
    if (!t || !isStaleTemp(t) || (only && !only(t))) continue;
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Finish or undo a directory replacement a killed writer left half-done, and remove its leftovers:
 * when `target` is missing but a dead writer had moved the previous version aside, that version is put
 * back (the new one was never committed); every other stale sibling temporary of `target` is removed.
 */
export function recoverDir(target: string): { restored: boolean; removed: string[] } {
  const dir = path.dirname(path.resolve(target));
  const base = path.basename(path.resolve(target));
  let restored = false;
  if (!fs.existsSync(target)) {
    const old = safeReaddir(dir)
      .map((name) => ({ name, t: parseTempName(name) }))
      .filter(({ t }) => t && t.kind === 'old' && t.target === base && isStaleTemp(t))
      .sort((a, b) => (a.name < b.name ? 1 : -1))[0];
    if (old) {
      fs.renameSync(path.join(dir, old.name), target);
      restored = true;
    }
  }
  const removed = cleanStaleTemps(dir, (t) => t.target === base);
  return { restored, removed };
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** fsync a directory, so the renames in it survive a crash (best effort where the OS refuses). */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems cannot fsync a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export async function writeFileAtomic(target: string, data: Uint8Array | string): Promise<void> {
  const tmp = tempPathFor(target);
  try {
    const fh = await fs.promises.open(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, target);
  } catch (e) {
    // A full disk or a kill between open and rename must not leave the temporary behind.
    await fs.promises.rm(tmp, { force: true });
    throw withErrnoPath(e, target);
  }
}

export function writeFileAtomicSync(target: string, data: Uint8Array | string): void {
  const tmp = tempPathFor(target);
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw withErrnoPath(e, target);
  }
}

/** Stream writer that becomes visible at `target` only when `commit()` is called. */
export class AtomicFileStream {
  /** Where the bytes go until commit. */
  readonly tempPath: string;
  private readonly fd: number;
  private position = 0;
  private done = false;

  constructor(readonly target: string) {
    this.tempPath = tempPathFor(target);
    try {
      this.fd = fs.openSync(this.tempPath, 'w');
    } catch (e) {
      throw withErrnoPath(e, target);
    }
  }

  write(chunk: Uint8Array): void {
    let off = 0;
    try {
      while (off < chunk.length) {
        off += fs.writeSync(this.fd, chunk, off, chunk.length - off, this.position + off);
      }
    } catch (e) {
      throw withErrnoPath(e, this.target);
    }
    this.position += chunk.length;
  }

  get bytesWritten(): number {
    return this.position;
  }

  commit(): void {
    if (this.done) return;
    this.done = true;
    try {
      try {
        fs.fsyncSync(this.fd);
      } finally {
        fs.closeSync(this.fd);
      }
      fs.renameSync(this.tempPath, this.target);
    } catch (e) {
      fs.rmSync(this.tempPath, { force: true });
      throw withErrnoPath(e, this.target);
    }
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    fs.closeSync(this.fd);
    fs.rmSync(this.tempPath, { force: true });
  }
}

/**
 * A directory built at a temporary sibling and renamed into place by `commit()`; a previous directory at
 * the target is moved aside first and removed after (recoverDir undoes a commit killed in between).
 */
export class AtomicDir {
  private done = false;

  private constructor(
    readonly target: string,
    /** Where to write the contents until commit. */
    readonly path: string,
  ) {}

  static begin(target: string): AtomicDir {
    makeDirs(path.dirname(path.resolve(target)));
    const tmp = tempPathFor(target);
    fs.mkdirSync(tmp);
    return new AtomicDir(target, tmp);
  }

  commit(): void {
    if (this.done) throw new Error(`${this.target}: already committed or aborted`);
    this.done = true;
    syncDir(this.path);
    const old = fs.existsSync(this.target) ? siblingName(this.target, 'old') : null;
    try {
      if (old) fs.renameSync(this.target, old);
      fs.renameSync(this.path, this.target);
    } catch (e) {
      if (old && !fs.existsSync(this.target)) fs.renameSync(old, this.target);
      fs.rmSync(this.path, { recursive: true, force: true });
      throw e;
    }
    syncDir(path.dirname(path.resolve(this.target)));
    if (old) fs.rmSync(old, { recursive: true, force: true });
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    fs.rmSync(this.path, { recursive: true, force: true });
  }
}

/** CRC32C and size of a file, read in 8 MiB pieces (memory stays flat for large frame files). */
export function fileCrc32c(file: string): { bytes: number; crc: number } {
  const crc = new Crc32c();
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(8 << 20);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      crc.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return { bytes: crc.bytes, crc: crc.value };
}
