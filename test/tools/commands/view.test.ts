// `drivekit view` as a process: prints where it serves (--json), answers over HTTP, stops cleanly on
// SIGINT; a target that is not a log, rollout, scenario or endpoint is one line and exit 1, a bad option exit 2.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import { drivekit, expectOneLineFailure } from './castLog.ts';

let tmp: string;
let log: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-view-cmd-'));
  log = path.join(tmp, 'log');
  const w = LogWriter.create(log, { source: 'test' });
  for (let f = 0; f < 2; f++) {
    const p = allocatePointCloud(5);
    p.x.fill(f + 1);
    w.appendFrame({
      timestampNs: BigInt(f) * 100_000_000n,
      pose: poseFromTranslationYaw(f, 0, 0, 0),
      points: p,
    });
  }
  await w.close();
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit view (process)', () => {
  it('serves a log on a free port, prints {url, kind, frames}, and exits 0 on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'drivekit.js'), 'view', log, '--port', '0', '--json'],
      {
        cwd: REPO_ROOT,
      },
    );
    let out = '';
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before serving`)));
    });
    const j = JSON.parse(line) as { url: string; kind: string; frames: number };
    expect(j).toMatchObject({ kind: 'log', frames: 2 });
    expect(j.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const info = (await (await fetch(new URL('/api/info', j.url))).json()) as { frame_count: number };
    expect(info.frame_count).toBe(2);
    expect((await fetch(j.url)).headers.get('content-type')).toMatch(/text\/html/);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // bin/drivekit.js forwards the signal to its re-executed child (core/mallocEnv.ts).
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  }, 60_000);

  it('refuses a target that is none of its kinds (exit 1, one line) and a bad --port (exit 2)', async () => {
    await expectOneLineFailure(
      ['view', path.join(tmp, 'nothing')],
      /nothing: no such log, rollout directory/,
    );
    const e = (await drivekit('view', log, '--port', 'x').catch((err: unknown) => err)) as {
      code: number;
      stderr: string;
    };
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/--port/);
  }, 60_000);
});
