// `drivekit verify`'s check of a whole log (docs/reliability.md): every file against manifest.json (size and
// full CRC32C, damaged frame batches named), unlisted files, the log's structure; sealing a pre-manifest log.
import fs from 'node:fs';
import path from 'node:path';
import { fileCrc32c, recoverDir } from '../core/atomic.ts';
import { cleanStaleTemps } from '../core/atomic.ts';
import { fileBlockChecksums } from '../core/arrow/ipc.ts';
import { crcHex } from '../core/crc32c.ts';
import { describeError, InputError } from '../core/errors.ts';
import { withFileLock } from '../core/fileLock.ts';
import { LOCK_FILE } from './logCommit.ts';
import {
  blockChecksums,
  entryOfFile,
  listLogFiles,
  LOG_GROUP,
  type LogManifest,
  MANIFEST_FORMAT,
  readManifest,
  writeManifest,
} from './logManifest.ts';
import { LogReader } from './logstore.ts';

export interface FileCheck {
  name: string;
  bytes: number;
  group: string | null;
  /** null when the file is as listed. */
  problem: string | null;
}

export interface VerifyReport {
  log: string;
  /** False for a log written before manifests (only its structure could be checked). */
  manifest: boolean;
  files: FileCheck[];
  /** Every problem, one line each, naming the file. */
  problems: string[];
  /** Leftovers of killed writers removed on the way (and whether a log moved aside was put back). */
  cleaned: string[];
  restored: boolean;
  /** True when a manifest was written (--seal on a log without one). */
  sealed: boolean;
  frames: number | null;
}

/** Files of a pre-manifest log that belong to the log itself; others are a stage's outputs. */
const LOG_FILES =
  /^(meta\.json|frames\.arrow|poses\.arrow|poses\.source\.arrow|labels\.arrow|scenario\.json|scenario\/.*)$/;

export async function verifyLog(dir: string, opts: { seal?: boolean } = {}): Promise<VerifyReport> {
  let cleaned: string[] = [];
  let restored = false;
  try {
    const r = recoverDir(dir);
    restored = r.restored;
    cleaned = [...r.removed, ...cleanStaleTemps(dir)];
  } catch {
    // A read-only copy: checked as it is.
  }
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new InputError(dir, 'no such log directory');
  const report: VerifyReport = {
    log: dir,
    manifest: false,
    files: [],
    problems: [],
    cleaned,
    restored,
    sealed: false,
    frames: null,
  };
  let m: LogManifest | null = null;
  try {
    m = readManifest(dir);
  } catch (e) {
    report.problems.push(describeError(e));
  }
  report.manifest = m !== null;
  const onDisk = listLogFiles(dir);
  if (m) {
    for (const [name, e] of Object.entries(m.files)) {
      const problem = checkListedFile(dir, name, e);
      report.files.push({ name, bytes: e.bytes, group: e.group, problem });
      if (problem) report.problems.push(`${path.join(dir, name)}: ${problem}`);
    }
    for (const name of onDisk.filter((n) => !(n in m.files))) {
      const problem = 'is not listed in manifest.json (an interrupted write, or not written by drivekit)';
      report.files.push({ name, bytes: fs.statSync(path.join(dir, name)).size, group: null, problem });
      report.problems.push(`${path.join(dir, name)}: ${problem}`);
    }
  } else if (report.problems.length === 0) {
    report.problems.push(
      `${dir}: has no manifest.json (written before manifests): its structure is checked, its contents cannot be` +
        ' (`drivekit verify --seal` adds one after the structure checks pass)',
    );
  }
  // Structure: counts, schemas, every frame decoded (a log without a manifest has no other check).
  try {
    const log = await LogReader.open(dir);
    try {
      report.frames = log.frameCount;
      if (!m) for (let i = 0; i < log.frameCount; i++) await log.readFrame(i);
    } finally {
      await log.close();
    }
  } catch (e) {
    if (!report.problems.some((p) => p.startsWith(describeError(e).split(':')[0]))) {
      report.problems.push(describeError(e));
    }
  }
  if (!m && opts.seal) {
    if (report.problems.length > 1) throw new InputError(dir, `not sealed: ${report.problems[1]}`);
    seal(dir, onDisk);
    report.sealed = true;
    report.manifest = true;
    report.problems = [];
    report.files = onDisk.map((name) => ({
      name,
      bytes: fs.statSync(path.join(dir, name)).size,
      group: groupOf(name),
      problem: null,
    }));
  }
  return report;
}

/** Why a listed file does not match its entry (size, full CRC32C, the damaged batches named); null if it does. */
export function checkListedFile(dir: string, name: string, e: LogManifest['files'][string]): string | null {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) return 'is missing';
  const { bytes, crc } = fileCrc32c(file);
  if (bytes !== e.bytes) return `is ${bytes} bytes, manifest.json says ${e.bytes}`;
  if (crcHex(crc) === e.crc32c) return null;
  const want = blockChecksums(e);
  if (want) {
    try {
      const got = fileBlockChecksums(file);
      const bad = want.batches.map((c, i) => (got.batches[i] === c ? -1 : i)).filter((i) => i >= 0);
      const where = [
        got.head !== want.head ? 'header' : '',
        bad.length
          ? `batch${bad.length > 1 ? 'es' : ''} ${bad.slice(0, 10).join(', ')}${bad.length > 10 ? ', …' : ''}`
          : '',
        got.tail !== want.tail ? 'footer' : '',
      ].filter(Boolean);
      const verb = where.length === 1 && bad.length <= 1 ? 'differs' : 'differ';
      if (where.length)
        return `has CRC32C ${crcHex(crc)}, manifest.json says ${e.crc32c}: ${where.join(' and ')} ${verb} (corrupt)`;
    } catch {
      // The footer itself is unreadable: the whole-file mismatch below says enough.
    }
  }
  return `has CRC32C ${crcHex(crc)}, manifest.json says ${e.crc32c} (corrupt)`;
}

/**
 * Every file the manifest of the log at `dir` lists, checked in full (size and CRC32C): an InputError naming
 * the first that does not match. A log without a manifest passes (there is nothing to check against).
 */
export function checkLogContents(dir: string): void {
  const m = readManifest(dir);
  if (!m) return;
  for (const [name, e] of Object.entries(m.files)) {
    const problem = checkListedFile(dir, name, e);
    if (problem) throw new InputError(path.join(dir, name), problem);
  }
}

const groupOf = (name: string): string => (LOG_FILES.test(name) ? LOG_GROUP : name.replace(/\.[^.]*$/, ''));

/** Write a manifest for a pre-manifest log whose structure was just checked. */
function seal(dir: string, names: readonly string[]): void {
  withFileLock(path.join(dir, LOCK_FILE), () => {
    const files: LogManifest['files'] = {};
    for (const name of names) {
      const e = entryOfFile(path.join(dir, name), groupOf(name));
      if (name.endsWith('.arrow')) {
        try {
          const sums = fileBlockChecksums(path.join(dir, name));
          // Pieces that cover the file exactly (no gaps) give the same whole-file checksum.
          if (crcHex(sums.file) === e.crc32c) {
            e.blocks = {
              head: crcHex(sums.head),
              batches: sums.batches.map(crcHex),
              tail: crcHex(sums.tail),
            };
          }
        } catch {
          // Not an Arrow file with a footer (stream format): the whole-file checksum alone.
        }
      }
      files[name] = e;
    }
    writeManifest(dir, { format: MANIFEST_FORMAT, files });
  });
}
