// Errors that name the input and what is wrong with it, printed by the CLI as one line.
// Anything thrown for bad user input should be an InputError.

export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/** What each common errno means for a user, without Node's "ENOENT: …, open '…'" phrasing. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'already exists',
  EISDIR: 'is a directory, expected a file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EMFILE: 'too many open files',
  ENOTEMPTY: 'directory is not empty',
  EXDEV: 'cannot move across file systems',
  EBUSY: 'resource busy',
  EIO: 'input/output error',
  ENAMETOOLONG: 'file name too long',
  EADDRINUSE: 'address already in use',
};

type ErrnoLike = Error & { code?: string; syscall?: string; path?: string; dest?: string };

const isErrno = (e: unknown): e is ErrnoLike =>
  e instanceof Error && typeof (e as ErrnoLike).code === 'string' && /^E[A-Z]+$/.test((e as ErrnoLike).code!);

/** "no such file or directory (ENOENT)" for an errno error; its message otherwise. */
export function describeErrno(e: unknown): string {
  if (!isErrno(e)) return e instanceof Error ? e.message : String(e);
  const text = ERRNO_TEXT[e.code!];
  return text ? `${text} (${e.code})` : e.message.split('\n')[0];
}

/**
 * A one-line description of any thrown value. Node's errno errors become "<path>: cannot <syscall>:
 * <meaning> (<code>)"; the path is named whenever Node gave one.
 */
export function describeError(e: unknown): string {
  if (isErrno(e) && ERRNO_TEXT[e.code!]) {
    const where = e.path ? (e.dest ? `${e.path} → ${e.dest}` : e.path) : null;
    const op = e.syscall ? `cannot ${e.syscall}: ` : '';
    return `${where ? `${where}: ` : ''}${op}${describeErrno(e)}`;
  }
  if (e instanceof Error) return e.message.split('\n')[0];
  return String(e);
}

/**
 * Give an errno error the path it concerns when Node left it out (writes through a file descriptor say only
 * "cannot write"), so that describeError names the file; returns `e` for rethrowing.
 */
export function withErrnoPath(e: unknown, file: string): unknown {
  if (isErrno(e) && !e.path) e.path = file;
  return e;
}
