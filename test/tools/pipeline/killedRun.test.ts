// `drivekit pipeline` SIGKILLed mid-run cleans nothing; the next run must not be blocked by what it left:
// its logs/ in --out are recognised by the dead pid and replaced (no --force needed), and its socket
// folder in TMPDIR is removed. A folder a live pipeline is writing is still refused.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { THIS_HOST } from '../../../core/atomic.ts';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { TUNED_MALLOC_ENV } from '../../../core/mallocEnv.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import { RUN_MARKER } from '../../../tools/pipeline/runMarker.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-pipeline-killed-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function writeLog(dir: string, frames: number): Promise<void> {
  const w = LogWriter.create(dir, { source: 'test' });
  for (let i = 0; i < frames; i++) {
    const p = allocatePointCloud(2000);
    for (let k = 0; k < 2000; k++) {
      p.x[k] = 5 + (k % 40);
      p.y[k] = (k % 13) - 6;
      p.z[k] = -1.5 + (k % 7) * 0.1;
    }
    w.appendFrame({
      timestampNs: BigInt(i) * 100_000_000n,
      pose: poseFromTranslationYaw(i, 0, 0, 0),
      points: p,
    });
  }
  await w.close();
}

/** `drivekit pipeline <args>` (tuned malloc set, so the pid is the supervisor itself). */
function pipeline(args: string[]): {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<number | string>;
} {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/drivekit.js'), 'pipeline', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...TUNED_MALLOC_ENV },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | string>((resolve) =>
    child.on('exit', (code, sig) => resolve(sig ?? code ?? -1)),
  );
  return { child, stderr: () => err, exit };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const socketDirsOf = (pid: number) =>
  fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`dk-pipe-${pid}-`));

describe('drivekit pipeline after a SIGKILL', () => {
  it('a rerun replaces what the killed run left in --out and removes its socket folder', async () => {
    const log = path.join(tmp, 'log');
    await writeLog(log, 12);
    const out = path.join(tmp, 'out');
    const args = ['--log', log, '--stages', 'discover', '--out', out, '--stage-delay-ms', '300', '--json'];
    const first = pipeline(args);
    await waitFor('the stages to start', () => /discover\/replay started \(pid \d+/.test(first.stderr()));
    const stagePids = [...first.stderr().matchAll(/started \(pid (\d+)/g)].map((m) => Number(m[1]));
    first.child.kill('SIGKILL');
    await first.exit;
    // The stages notice their supervisor is gone and stop; nothing of the run is cleaned.
    await waitFor('the stages to stop', () => !stagePids.some(alive), 15_000);
    expect(fs.readdirSync(out)).toEqual(expect.arrayContaining(['logs', RUN_MARKER]));
    expect(socketDirsOf(first.child.pid!)).toHaveLength(1);

    // A folder a live pipeline is writing (here: this test process's pid) is refused.
    fs.writeFileSync(path.join(out, RUN_MARKER), JSON.stringify({ pid: process.pid, host: THIS_HOST }));
    const blocked = pipeline(args);
    expect(await blocked.exit).toBe(1);
    expect(blocked.stderr().trim().split('\n').pop()).toMatch(/is being written by a running pipeline/);
    fs.writeFileSync(path.join(out, RUN_MARKER), JSON.stringify({ pid: first.child.pid, host: THIS_HOST }));

    const rerun = pipeline(args);
    expect(await rerun.exit, rerun.stderr()).toBe(0);
    expect(rerun.stderr()).toContain(`replacing what a killed run (pid ${first.child.pid}) left there`);
    expect(socketDirsOf(first.child.pid!)).toEqual([]);
    expect(socketDirsOf(rerun.child.pid!)).toEqual([]);
    expect(fs.readdirSync(out)).not.toContain(RUN_MARKER);
    expect(fs.readdirSync(out)).toContain('pipeline.json');
  }, 120_000);
});
