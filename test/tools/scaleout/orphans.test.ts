// Scale-out faults against a real redis-server and real `drivekit worker` processes: a worker SIGKILLed
// while its job process is still starting leaves no orphan behind, and a job whose stored data is not JSON
// is failed (and listed by `drivekit jobs`) instead of staying active forever.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../core/paths.ts';
import { WORKER_PID_ENV } from '../../../tools/scaleout/config.ts';
import { parseRedisUrl } from '../../../tools/scaleout/connection.ts';
import {
  drivekitRun,
  type RedisServer,
  startRedis,
  startWorkerProcess,
  waitFor,
  type WorkerProcess,
  writeSmallLog,
} from './cluster.ts';

const haveRedis = (() => {
  try {
    execFileSync('redis-server', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

let root: string;
let redis: RedisServer;
let log: string;
const workers: WorkerProcess[] = [];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids of `pid`'s children. */
const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

describe.skipIf(!haveRedis && !process.env.CI)('scale-out worker faults', () => {
  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dk-orphans-')));
    fs.mkdirSync(path.join(root, 'redis'));
    redis = await startRedis(path.join(root, 'redis'));
    log = path.join(root, 'log');
    await Promise.all([writeSmallLog(log, 20), writeSmallLog(`${log}0`, 30), writeSmallLog(`${log}1`, 30)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await redis?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it.each([
    ['late', 'before it loaded the job processor'],
    ['busy', 'while its job keeps the event loop busy'],
  ])(
    'a job process whose worker died (%s: %s) stops by itself',
    async (mode) => {
      // The parent forks the job process and exits at once ('late') or once the processor is loaded
      // ('busy'), as a SIGKILLed worker would.
      const harness = path.join(REPO_ROOT, 'test/tools/scaleout/slowJobProcess.ts');
      const parent = spawnSync(
        process.execPath,
        [
          '-e',
          `const c = require('node:child_process').fork(${JSON.stringify(harness)}, [${JSON.stringify(mode)}], {
          execArgv: ['--import', ${JSON.stringify(import.meta.resolve('tsx'))}],
          env: { ...process.env, ${WORKER_PID_ENV}: String(process.pid) },
          stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
        });
        const done = () => { process.stdout.write(String(c.pid)); process.exit(0); };
        if (${JSON.stringify(mode)} === 'late') done(); else c.on('message', done);`,
        ],
        { encoding: 'utf8', timeout: 20_000 },
      );
      const child = Number(parent.stdout);
      expect(child, parent.stderr).toBeGreaterThan(0);
      const gone = await waitFor('the orphaned job process to stop', () => !alive(child), 8_000).then(
        () => true,
        () => false,
      );
      if (!gone) process.kill(child, 'SIGKILL');
      expect(gone, 'the job process outlived its worker').toBe(true);
    },
    30_000,
  );

  it('a worker SIGKILLed while its job process starts leaves no orphaned job process', async () => {
    // Killed a moment after its job process appears, while that process is still loading the job's code
    // (how it was orphaned, running its job with no parent, in one of two tries).
    const orphans: number[] = [];
    for (const [round, delayMs] of [800, 1500].entries()) {
      const queue = `orphan${round}`;
      const w = await startWorkerProcess(redis.url, ['--queue', queue, '--root', root]);
      workers.push(w);
      const sub = await drivekitRun(
        'submit',
        '--redis',
        redis.url,
        '--queue',
        queue,
        'discover',
        `${log}${round}`,
        '--json',
      );
      expect(sub.code, sub.stderr).toBe(0);
      await waitFor('the job process', () => childrenOf(w.proc.pid!).length > 0, 30_000);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      // Every process the worker forked (BullMQ may have started more than the job's).
      const children = childrenOf(w.proc.pid!);
      await w.kill();
      await waitFor('the job processes to stop', () => !children.some(alive), 8_000).catch(() => {});
      for (const c of children.filter(alive)) {
        orphans.push(c);
        process.kill(c, 'SIGKILL');
      }
    }
    expect(orphans, 'job processes still running after their worker was killed').toEqual([]);
  }, 120_000);

  it('a job whose stored data is not JSON is failed with its reason, and `jobs` lists it', async () => {
    const w = await startWorkerProcess(redis.url, ['--queue', 'rawdata', '--root', root]);
    workers.push(w);
    const connection = parseRedisUrl(redis.url);
    const queue = new Queue('rawdata', { connection });
    const raw = new Redis({ ...connection });
    try {
      // Written as anyone who can reach Redis could: a job whose data field is not JSON.
      await queue.pause();
      const job = await queue.add('x', { v: 1, command: 'info', input: log, options: {} });
      await raw.hset(`bull:rawdata:${job.id}`, 'data', '{not json');
      await queue.resume();
      await waitFor('the job to fail', async () => (await queue.getFailedCount()) === 1, 20_000);
      expect(await queue.getActiveCount()).toBe(0);
      const list = await drivekitRun('jobs', '--redis', redis.url, '--queue', 'rawdata');
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/^rawdata: .*failed 1/m);
      expect(list.stdout).toMatch(new RegExp(`failed ${job.id} x .*: job data is not JSON`));
      // Failed once, not retried or logged over and over.
      expect(w.stderr().match(/not JSON/g)?.length ?? 0).toBeLessThanOrEqual(1);
    } finally {
      raw.disconnect();
      await queue.close();
    }
  }, 60_000);
});
