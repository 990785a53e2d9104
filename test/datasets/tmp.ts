// Temporary folders for dataset tests, removed after each test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { allocatePointCloud, type PointCloud } from '../../core/arrow/records.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

export function tmpDir(prefix = 'dk-ds-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A cloud from rows [x, y, z, intensity, ring?]. */
export function cloudOf(rows: readonly number[][]): PointCloud {
  const p = allocatePointCloud(rows.length);
  rows.forEach((r, i) => {
    p.x[i] = r[0];
    p.y[i] = r[1];
    p.z[i] = r[2];
    p.intensity[i] = r[3] ?? 0;
    p.ring[i] = r[4] ?? 0;
  });
  return p;
}

/** KITTI-style packed float32 ×4 bytes of rows [x, y, z, reflectance]. */
export function kittiBin(rows: readonly number[][]): Uint8Array {
  const f = new Float32Array(rows.length * 4);
  rows.forEach((r, i) => f.set([r[0], r[1], r[2], r[3] ?? 0], 4 * i));
  return new Uint8Array(f.buffer);
}
