// Process hygiene of the `drivekit` wrapper (core/mallocEnv.ts re-runs the command with tuned malloc):
// SIGKILL of the wrapper takes the real process with it (port freed), SIGTERM reaches it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { identityPose } from '../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { LogWriter } from '../../datasets/logstore.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-hygiene-'));
const started: number[] = [];
afterAll(() => {
  // A failing run must not leave its worker behind holding a port.
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function smallLog(): Promise<string> {
  const dir = path.join(tmp, 'log');
  const w = LogWriter.create(dir, { source: 'test', rateHz: 1 });
  for (let f = 0; f < 30; f++) {
    const p = allocatePointCloud(100);
    for (let i = 0; i < 100; i++) p.x[i] = 5 + i * 0.1;
    w.appendFrame({ timestampNs: BigInt(f) * 1_000_000_000n, pose: identityPose(), points: p });
  }
  await w.close();
  return dir;
}

/** A loopback port free right now. */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Whether a pid is a live (not zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

const childrenOf = (pid: number): number[] => {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

const canBind = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/**
 * `drivekit stage replay` bound to a loopback port, pushing with no consumer (so it blocks, holding the
 * port), started as a user would: without tuned malloc settings, so the wrapper re-runs it as a child.
 */
async function startReplay(
  log: string,
  port: number,
  extra: string[] = [],
): Promise<{ wrapper: ChildProcess; worker: number }> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('MALLOC_') || k.startsWith('DRIVEKIT_')) delete env[k];
  const args = ['stage', 'replay', '--log', log, '--out', `tcp://127.0.0.1:${port}`, ...extra];
  const wrapper = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  wrapper.stderr!.resume();
  const pid = wrapper.pid!;
  expect(await waitFor(() => childrenOf(pid).length > 0, 10_000)).toBe(true);
  const worker = childrenOf(pid)[0];
  started.push(pid, worker);
  expect(await waitFor(async () => !(await canBind(port)), 20_000)).toBe(true);
  return { wrapper, worker };
}

// The wrapper re-runs the command only on Linux (glibc); /proc is read to find its child.
describe.skipIf(process.platform !== 'linux')('drivekit wrapper process', () => {
  it('SIGKILL of the wrapper ends the worker and frees its port', async () => {
    const log = await smallLog();
    const port = await freePort();
    const { wrapper, worker } = await startReplay(log, port);
    expect(worker).not.toBe(wrapper.pid);
    process.kill(wrapper.pid!, 'SIGKILL');
    expect(await waitFor(() => !alive(worker), 10_000)).toBe(true);
    expect(await waitFor(() => canBind(port), 5_000)).toBe(true);
    expect(alive(wrapper.pid!)).toBe(false);
  }, 60_000);

  it('SIGTERM to the wrapper reaches the worker, which stops and exits', async () => {
    const port = await freePort();
    const { wrapper, worker } = await startReplay(path.join(tmp, 'log'), port, ['--drain-ms', '200']);
    const exited = new Promise((r) => wrapper.on('exit', r));
    process.kill(wrapper.pid!, 'SIGTERM');
    await exited;
    expect(await waitFor(() => !alive(worker), 10_000)).toBe(true);
    expect(await waitFor(() => canBind(port), 5_000)).toBe(true);
  }, 60_000);
});
