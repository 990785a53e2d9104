// The manifest of a log (docs/reliability.md): manifest.json, written last and atomically, lists every file
// of the log with its size and CRC32C (RFC 3720 polynomial); a reader refuses files that do not match it.
import fs from 'node:fs';
import path from 'node:path';
import { fileCrc32c, writeFileAtomicSync } from '../core/atomic.ts';
import type { BlockChecksums } from '../core/arrow/ipc.ts';
import { crc32c, crcHex } from '../core/crc32c.ts';
import { InputError } from '../core/errors.ts';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'drivekit-manifest/1';
/** The group of the files a LogWriter commits together (meta.json, frames, poses, labels, …). */
export const LOG_GROUP = 'log';

export interface ManifestEntry {
  /** Size in bytes. */
  bytes: number;
  /** CRC32C of the whole file, 8 hex digits. */
  crc32c: string;
  /**
   * Files committed together: the log itself ('log') or one stage's outputs ('discover', 'tokens', …).
   * A reader refuses a whole group when any of its files does not match (an interrupted update).
   */
  group: string;
  /** Arrow files written by the log store: the checksums of their pieces (ArrowFileReader checks them). */
  blocks?: { head: string; batches: string[]; tail: string };
}

export interface LogManifest {
  format: typeof MANIFEST_FORMAT;
  /** Relative paths ('/'-separated) → entries. */
  files: Record<string, ManifestEntry>;
  /**
   * CRC32C of the manifest's own content (`JSON.stringify({ format, files })`), so that every reader, not
   * only `verify`, refuses an edited or damaged manifest. Absent in manifests written before it existed.
   */
  crc32c?: string;
}

/** The checksum a manifest carries of itself: over its format and files table, compact JSON. */
function manifestCrc(m: LogManifest): string {
  return crcHex(crc32c(new TextEncoder().encode(JSON.stringify({ format: m.format, files: m.files }))));
}

const HEX = /^[0-9a-f]{8}$/;

/** The manifest of the log at `dir`, or null for a log written before manifests existed. */
export function readManifest(dir: string): LogManifest | null {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InputError(file, `cannot be read (${(e as Error).message})`);
  }
  let m: LogManifest;
  try {
    m = JSON.parse(text) as LogManifest;
  } catch (e) {
    throw new InputError(file, `not valid JSON (${(e as Error).message})`);
  }
  if (m?.format !== MANIFEST_FORMAT) {
    throw new InputError(file, `format is ${String(m?.format)}, expected ${MANIFEST_FORMAT}`);
  }
  if (typeof m.files !== 'object' || m.files === null) throw new InputError(file, 'has no files table');
  for (const [name, e] of Object.entries(m.files)) {
    const ok =
      Number.isSafeInteger(e?.bytes) &&
      e.bytes >= 0 &&
      HEX.test(e.crc32c) &&
      typeof e.group === 'string' &&
      !name.split('/').some((p) => p === '..' || p === '' || p.startsWith('.')) &&
      (e.blocks === undefined ||
        (HEX.test(e.blocks.head) && HEX.test(e.blocks.tail) && e.blocks.batches.every((b) => HEX.test(b))));
    if (!ok) throw new InputError(file, `entry '${name}' is malformed`);
  }
  if (m.crc32c !== undefined) {
    const crc = manifestCrc(m);
    if (crc !== m.crc32c)
      throw new InputError(
        file,
        `has CRC32C ${crc}, its own crc32c field says ${String(m.crc32c)}: edited or damaged (corrupt)`,
      );
  }
  return m;
}

export function writeManifest(dir: string, m: LogManifest): void {
  const files = Object.fromEntries(Object.entries(m.files).sort(([a], [b]) => (a < b ? -1 : 1)));
  const sealed = { format: m.format, files, crc32c: manifestCrc({ format: m.format, files }) };
  writeFileAtomicSync(path.join(dir, MANIFEST_FILE), JSON.stringify(sealed, null, 1) + '\n');
}

export function entryOfBytes(bytes: Uint8Array, group: string): ManifestEntry {
  return { bytes: bytes.length, crc32c: crcHex(crc32c(bytes)), group };
}

export function entryOfFile(file: string, group: string): ManifestEntry {
  const { bytes, crc } = fileCrc32c(file);
  return { bytes, crc32c: crcHex(crc), group };
}

/** An Arrow file written by ArrowFileAppender: whole-file and per-piece checksums, no second read. */
export function entryOfArrow(file: string, sums: BlockChecksums, group: string): ManifestEntry {
  return {
    bytes: fs.statSync(file).size,
    crc32c: crcHex(sums.file),
    group,
    blocks: { head: crcHex(sums.head), batches: sums.batches.map(crcHex), tail: crcHex(sums.tail) },
  };
}

/** The piece checksums of an entry, as ArrowFileReader takes them. */
export function blockChecksums(e: ManifestEntry): BlockChecksums | undefined {
  if (!e.blocks) return undefined;
  const n = (h: string) => parseInt(h, 16);
  return {
    head: n(e.blocks.head),
    batches: e.blocks.batches.map(n),
    tail: n(e.blocks.tail),
    file: n(e.crc32c),
  };
}

/**
 * The files of a log directory as relative '/'-separated paths. Hidden names (temporaries, the lock) are
 * not part of a log, nor is the manifest itself.
 */
export function listLogFiles(dir: string, sub = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
    if (d.name.startsWith('.') || (sub === '' && d.name === MANIFEST_FILE)) continue;
    const rel = sub ? `${sub}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listLogFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/** Why a file's size does not match its entry (null when it does). */
export function sizeProblem(dir: string, name: string, e: ManifestEntry): string | null {
  let size: number;
  try {
    size = fs.statSync(path.join(dir, name)).size;
  } catch {
    return 'is missing';
  }
  return size === e.bytes ? null : `is ${size} bytes, manifest.json says ${e.bytes}`;
}

/** Why bytes read from a file do not match its entry (null when they do). */
export function contentProblem(bytes: Uint8Array, e: ManifestEntry): string | null {
  if (bytes.length !== e.bytes) return `is ${bytes.length} bytes, manifest.json says ${e.bytes}`;
  const crc = crcHex(crc32c(bytes));
  return crc === e.crc32c ? null : `has CRC32C ${crc}, manifest.json says ${e.crc32c} (corrupt)`;
}

/**
 * Refuse a group whose files do not all have their listed sizes (cheap: one stat per file): the sign of
 * an update killed half-way or of a truncated copy.
 */
export function checkGroupSizes(dir: string, m: LogManifest, group: string): void {
  for (const [name, e] of Object.entries(m.files)) {
    if (e.group !== group) continue;
    const problem = sizeProblem(dir, name, e);
    if (problem) {
      throw new InputError(
        path.join(dir, name),
        `${problem}; the '${group}' files of this log are not a complete set (\`drivekit verify\` checks it)`,
      );
    }
  }
}

/** Read a listed file whole and check its size and checksum. */
export function readChecked(dir: string, name: string, e: ManifestEntry): Buffer {
  const file = path.join(dir, name);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    throw new InputError(file, 'is listed in manifest.json but missing');
  }
  const problem = contentProblem(bytes, e);
  if (problem) throw new InputError(file, problem);
  return bytes;
}
