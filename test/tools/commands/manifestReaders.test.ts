// Every reader of a log checks it against its manifest, not only `verify`: an edited manifest (a file's
// checksum changed by hand) is refused by info, discover, odometry, export and view; `info` exits 1 on a
// frame batch that fails its checksum.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import { readManifest } from '../../../datasets/logManifest.ts';
import { tmpDir } from '../../datasets/tmp.ts';
import { drivekit } from './castLog.ts';

async function makeLog(dir: string, frames: number): Promise<void> {
  const w = LogWriter.create(dir, { source: 'test' });
  for (let i = 0; i < frames; i++) {
    const p = allocatePointCloud(2000);
    for (let k = 0; k < 2000; k++) {
      p.x[k] = 5 + (k % 40);
      p.y[k] = (k % 13) - 6;
      p.z[k] = -1.5 + (k % 7) * 0.1;
      p.intensity[k] = 0.5;
    }
    w.appendFrame({
      timestampNs: BigInt(i) * 100_000_000n,
      pose: poseFromTranslationYaw(i, 0, 0, 0),
      points: p,
    });
  }
  await w.close();
}

/** `drivekit <args>` must exit 1 with its last stderr line (after any progress lines) matching `msg`. */
async function expectFailure(args: string[], msg: RegExp): Promise<void> {
  const e = (await drivekit(...args).then(
    () => null,
    (err: unknown) => err,
  )) as { code: number; stderr: string } | null;
  expect(e, `drivekit ${args.join(' ')} succeeded`).not.toBeNull();
  expect(e!.code, args.join(' ')).toBe(1);
  expect(e!.stderr.trim().split('\n').pop(), args.join(' ')).toMatch(msg);
}

/** `drivekit view` must exit 1 before serving (it would otherwise run until killed). */
async function expectViewRefuses(log: string, msg: RegExp): Promise<void> {
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin/drivekit.js'), 'view', log, '--port', '0'],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  expect(code).toBe(1);
  expect(err.trim().split('\n').pop()).toMatch(msg);
}

describe('every reader checks the manifest', () => {
  it('an edited manifest is refused by info, discover, odometry, export and view', async () => {
    const root = tmpDir();
    const log = path.join(root, 'log');
    await makeLog(log, 3);
    const file = path.join(log, 'manifest.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as { files: Record<string, { crc32c: string }> };
    expect(readManifest(log)).not.toBeNull();
    // Another checksum for frames.arrow, written back as the tool writes it (only `verify` read it fully).
    m.files['frames.arrow'].crc32c = m.files['frames.arrow'].crc32c === '00000000' ? '00000001' : '00000000';
    fs.writeFileSync(file, JSON.stringify(m, null, 1) + '\n');
    const refused = /manifest\.json: has CRC32C [0-9a-f]{8}, its own crc32c field says [0-9a-f]{8}: edited/;
    // Independent reads of the same log: run side by side.
    await Promise.all([
      expectFailure(['info', log], refused),
      expectFailure(['discover', '--log', log], refused),
      expectFailure(['odometry', '--log', log], refused),
      expectFailure(['export', '--log', log, '--format', 'parquet', '--out', path.join(root, 'pq')], refused),
      expectViewRefuses(log, refused),
      expectFailure(['verify', log], refused),
    ]);
    expect(fs.readdirSync(root)).toEqual(['log']);
  }, 120_000);

  it('info exits 1 on a frame batch that fails its checksum, naming the batch', async () => {
    const log = path.join(tmpDir(), 'log');
    await makeLog(log, 3);
    await drivekit('info', log);
    const frames = path.join(log, 'frames.arrow');
    const bytes = fs.readFileSync(frames);
    bytes[Math.floor(bytes.length / 2)] ^= 0x40;
    fs.writeFileSync(frames, bytes);
    await expectFailure(
      ['info', log],
      /frames\.arrow: has CRC32C [0-9a-f]{8}, manifest\.json says [0-9a-f]{8}: batch 1 differs/,
    );
    await expectFailure(['info', '--json', log], /frames\.arrow: .*batch 1 differs/);
  }, 60_000);
});
