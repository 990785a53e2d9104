// Shared by the scale-out tests: a real redis-server on a free loopback port (its own temp dir, AOF on)
// and real `drivekit worker` processes, plus small cast logs to run jobs on.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { allocatePointCloud, boxesFromRows } from '../../../core/arrow/records.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import { castSequence } from '../../perception/scene.ts';

const run = promisify(execFile);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(
  what: string,
  ok: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** Kill (SIGKILL: no chance to flush anything) and start again on the same port and data dir. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** redis-server bound to 127.0.0.1 on a free port, data in `dir`, append-only file fsynced per write. */
export async function startRedis(dir: string): Promise<RedisServer> {
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const ping = async () =>
    run('redis-cli', ['-p', String(port), 'ping']).then(
      (r) => r.stdout.trim() === 'PONG',
      () => false,
    );
  const start = async () => {
    proc = spawn(
      'redis-server',
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--protected-mode',
        'yes',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    await waitFor('redis-server', ping);
  };
  const kill = async () => {
    const p = proc;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    restart: async () => {
      await kill();
      await start();
    },
    stop: kill,
  };
}

export interface WorkerProcess {
  proc: ChildProcess;
  stderr: () => string;
  /** SIGKILL the worker process only: its job processes must notice and stop by themselves. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** `drivekit worker` as its own process (no malloc re-exec, so the pid is the worker itself). */
export async function startWorkerProcess(url: string, args: string[]): Promise<WorkerProcess> {
  const proc = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'drivekit.js'), 'worker', '--redis', url, ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, DRIVEKIT_NO_REEXEC: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor('worker ready', () => {
    if (proc.exitCode !== null) throw new Error(`worker exited: ${err}`);
    return err.includes('worker ready');
  });
  const ended = new Promise((r) => proc.once('exit', r));
  return {
    proc,
    stderr: () => err,
    kill: async () => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      await ended;
    },
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await ended;
    },
  };
}

/** `drivekit <args>` in the repository; resolves with the exit code and both outputs. */
export async function drivekitRun(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), ...args], {
    cwd: REPO_ROOT,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
}

export { waitFor };

/** A labelled log of two cars seen by a 32-beam sensor (the scene of test/tools/commands/castLog.ts). */
export async function writeSmallLog(dir: string, frames: number, azimuthSteps = 720): Promise<void> {
  const seq = castSequence({
    sensorZ: 1.8,
    rings: 32,
    azimuthSteps,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM: 60,
    frames,
    rateHz: 10,
    egoSpeed: 5,
    terrain: () => 0,
    noiseM: 0.02,
    objects: [
      { cx: 15, cy: 4, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 0, vx: 6, vy: 0 },
      { cx: 12, cy: -5, cz: 0.8, length: 4.4, width: 1.8, height: 1.6, yaw: 0.1, vx: 0, vy: 0 },
    ],
  });
  const w = LogWriter.create(dir, { source: 'test' });
  seq.sweeps.forEach((s, f) => {
    const p = allocatePointCloud(s.x.length);
    p.x.set(s.x);
    p.y.set(s.y);
    p.z.set(s.z);
    w.appendFrame({
      timestampNs: BigInt(f) * 100_000_000n,
      pose: seq.poses.subarray(16 * f, 16 * f + 16),
      points: p,
    });
  });
  w.setLabels(
    boxesFromRows(
      seq.gt.map((g) => ({ ...g.box, frameIndex: g.frame, trackId: g.track, numPoints: g.points })),
    ),
  );
  await w.close();
  fs.accessSync(path.join(dir, 'frames.arrow'));
}
