// Finding and reading a reader's input files: one file or a directory of frame files in name order,
// with every failure (missing, empty, not a file) reported as an InputError naming the path.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.ts';

/** Name order with digit runs compared as numbers, so `2.pcd` < `10.pcd` even without zero padding. */
export const byFrameName = (a: string, b: string): number =>
  a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' });

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The frame files of an input: the path itself when it is a file, else the files of the directory
 * whose names end with one of `suffixes` (case-insensitive), in frame-name order.
 */
export function frameFiles(input: string, suffixes: readonly string[], what: string): string[] {
  if (!fs.existsSync(input)) throw new InputError(input, 'no such file or directory');
  if (!isDirectory(input)) return [input];
  const lower = suffixes.map((s) => s.toLowerCase());
  const names = fs
    .readdirSync(input)
    .filter((n) => lower.some((s) => n.toLowerCase().endsWith(s)))
    .sort(byFrameName);
  if (names.length === 0)
    throw new InputError(input, `no ${what} files (${suffixes.join(', ')}) in this directory`);
  return names.map((n) => path.join(input, n));
}

/** The bytes of a file; InputError when it is missing, a directory, or empty. */
export function readInputFile(file: string): Uint8Array {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError(file, 'no such file');
    if (code === 'EISDIR') throw new InputError(file, 'is a directory, expected a file');
    throw new InputError(file, `cannot read (${code ?? (e as Error).message})`);
  }
  if (bytes.length === 0) throw new InputError(file, 'file is empty');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The first `maxBytes` of a file and its size (headers checked before any frame is decoded). */
export function readFileHead(file: string, maxBytes: number): { head: Uint8Array; size: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(
      file,
      code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? (e as Error).message})`,
    );
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) throw new InputError(file, 'file is empty');
    const head = new Uint8Array(Math.min(size, maxBytes));
    const got = fs.readSync(fd, head, 0, head.length, 0);
    return { head: head.subarray(0, got), size };
  } finally {
    fs.closeSync(fd);
  }
}

/** Size of a file in bytes; InputError when missing or empty. */
export function inputFileSize(file: string): number {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new InputError(file, 'no such file');
  }
  if (size === 0) throw new InputError(file, 'file is empty');
  return size;
}

/** A file's text (see readInputFile). */
export function readInputText(file: string): string {
  return Buffer.from(readInputFile(file)).toString('utf8');
}
