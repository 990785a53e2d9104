// Idempotent jobs: a job's input hash (command, arguments and the size + mtime of everything it reads)
// and a done-marker beside its outputs; a rerun whose hash and outputs still match is a no-op.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import type { ValidJob } from './payload.ts';

type Stamp = [size: number, mtimeMs: number] | null;

/** Size and mtime of each file under `paths` (directories walked, sorted; missing → null). */
export function fingerprint(paths: string[]): Record<string, Stamp> {
  const out: Record<string, Stamp> = {};
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      out[p] = null;
      return;
    }
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) if (!name.startsWith('.')) walk(path.join(p, name));
    } else out[p] = [st.size, st.mtimeMs];
  };
  for (const p of paths) walk(p);
  return out;
}

/** sha256 of what determines the job's outputs. */
export function inputHash(job: ValidJob): string {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify({ command: job.command, argv: job.argv, reads: fingerprint(job.reads) }));
  return h.digest('hex');
}

export function outputPaths(job: ValidJob, options: Record<string, string | true>): string[] {
  if (job.outDir === null) return [];
  const dir = job.outDir;
  return job.spec.writes(options).map((n) => path.join(dir, n));
}

export function markerPath(job: ValidJob): string | null {
  return job.outDir === null ? null : path.join(job.outDir, `.drivekit-job-${job.command}.json`);
}

interface Marker {
  inputHash: string;
  outputs: Record<string, Stamp>;
  result: unknown;
}

/** The recorded result when this exact job already finished and its outputs are untouched; else null. */
export function readDoneMarker(job: ValidJob, hash: string, outputs: string[]): unknown {
  const file = markerPath(job);
  if (file === null || !fs.existsSync(file)) return null;
  try {
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
    if (m.inputHash !== hash) return null;
    const now = fingerprint(outputs);
    if (Object.values(now).some((s) => s === null)) return null;
    return JSON.stringify(now) === JSON.stringify(m.outputs) ? m.result : null;
  } catch {
    return null; // a marker we cannot read is no marker: the job reruns
  }
}

export function writeDoneMarker(job: ValidJob, hash: string, outputs: string[], result: unknown): void {
  const file = markerPath(job);
  if (file === null) return;
  const m: Marker = { inputHash: hash, outputs: fingerprint(outputs), result };
  writeFileAtomicSync(file, JSON.stringify(m) + '\n');
}
