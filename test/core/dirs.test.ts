// Output directories and error texts (issue 21, case 6): makeDirs ends with a one-line error where Node's
// recursive mkdir spins forever (/proc), errno errors read as "<path>: cannot <op>: <meaning> (<code>)".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirs } from '../../core/dirs.ts';
import { describeError, InputError } from '../../core/errors.ts';
import { drivekit } from '../tools/commands/castLog.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-dirs-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const haveProc = fs.existsSync('/proc/self');

describe('makeDirs', () => {
  it('creates missing parents and accepts an existing directory', () => {
    const d = path.join(tmp, 'a', 'b', 'c');
    makeDirs(d);
    makeDirs(d);
    expect(fs.statSync(d).isDirectory()).toBe(true);
  });

  it('names a file in the way', () => {
    fs.writeFileSync(path.join(tmp, 'file'), 'x');
    expect(() => makeDirs(path.join(tmp, 'file', 'sub'))).toThrow(
      new InputError(path.join(tmp, 'file'), 'cannot create a directory here: it is a file'),
    );
  });

  it.skipIf(!haveProc)('fails at once under /proc, where recursive mkdir loops forever', () => {
    expect(() => makeDirs('/proc/x/y')).toThrow(
      /^\/proc\/x: cannot create directory: \/proc does not accept new entries$/,
    );
  });

  it.skipIf(!haveProc)(
    'drivekit longtail --out /proc/x exits 1 with one line instead of spinning',
    async () => {
      const e = (await drivekit('longtail', '--kind', 'cut-in', '--count', '1', '--out', '/proc/x').then(
        () => null,
        (err: unknown) => err,
      )) as { code: number; stderr: string } | null;
      expect(e?.code).toBe(1);
      expect(e!.stderr.trim()).toBe(
        'drivekit longtail: /proc/x: cannot create directory: /proc does not accept new entries',
      );
    },
    20_000,
  );
});

describe('describeError', () => {
  it('turns errno errors into the path, the operation and what the code means', () => {
    const err = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      throw new Error('no error');
    };
    const missing = path.join(tmp, 'nope', 'x');
    expect(describeError(err(() => fs.mkdirSync(missing)))).toBe(
      `${missing}: cannot mkdir: no such file or directory (ENOENT)`,
    );
    expect(describeError(err(() => fs.mkdirSync(tmp)))).toBe(`${tmp}: cannot mkdir: already exists (EEXIST)`);
    // readFileSync of a directory throws EISDIR without a path: the meaning is still said.
    expect(describeError(err(() => fs.readFileSync(tmp)))).toBe(
      'cannot read: is a directory, expected a file (EISDIR)',
    );
    expect(describeError(new InputError('a.pcd', 'bad'))).toBe('a.pcd: bad');
  });
});
