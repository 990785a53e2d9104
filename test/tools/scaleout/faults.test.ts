// Scale-out against a real redis-server and real `drivekit worker` processes: a flow over logs and its
// rerun (a no-op), bad input failing once, a worker SIGKILLed mid-job, and Redis killed and restarted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBoxSource } from '../../../perception/eval/boxSources.ts';
import { evaluateSets } from '../../../perception/eval/evaluate.ts';
import { saveScenario } from '../../../simulation/scenarioIo.ts';
import { fillGtPointCounts } from '../../../tools/commands/eval.ts';
import { DEFAULT_SCALEOUT_CONFIG } from '../../../tools/scaleout/config.ts';
import { parseRedisUrl } from '../../../tools/scaleout/connection.ts';
import { waitFlow } from '../../../tools/scaleout/submit.ts';
import {
  drivekitRun,
  type RedisServer,
  startRedis,
  startWorkerProcess,
  waitFor,
  type WorkerProcess,
  writeSmallLog,
} from './cluster.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

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
let logs: string[];
let bigLog: string;
const workers: WorkerProcess[] = [];

async function worker(queue: string, ...extra: string[]): Promise<WorkerProcess> {
  const w = await startWorkerProcess(redis.url, ['--queue', queue, '--root', root, ...extra]);
  workers.push(w);
  return w;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!haveRedis && !process.env.CI)('scale-out on BullMQ + Redis', () => {
  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dk-scaleout-')));
    fs.mkdirSync(path.join(root, 'redis'));
    redis = await startRedis(path.join(root, 'redis'));
    logs = ['a', 'b', 'c', 'd'].map((n) => path.join(root, n));
    bigLog = path.join(root, 'big');
    await Promise.all([...logs.map((l) => writeSmallLog(l, 8, 360)), writeSmallLog(bigLog, 30)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await redis?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('runs one job per log with an aggregating parent, and a rerun is a no-op', async () => {
    await Promise.all([worker('flow'), worker('flow')]);
    const args = [
      'submit',
      '--redis',
      redis.url,
      '--queue',
      'flow',
      'discover',
      ...logs.slice(0, 3),
      '--wait',
      '--json',
    ];
    const first = await drivekitRun(...args);
    expect(first.code).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s).toMatchObject({ jobs: 3, completed: 3, failed: 0, retried: 0 });
    expect(s.result.totals.frames).toBe(24);
    const mtimes = logs.slice(0, 3).map((l) => fs.statSync(path.join(l, 'tracks.arrow')).mtimeMs);
    const again = JSON.parse((await drivekitRun(...args)).stdout);
    expect(again).toMatchObject({ jobs: 3, completed: 3, failed: 0 });
    expect(again.result.skipped).toBe(3);
    expect(again.result.totals.detections).toBe(s.result.totals.detections);
    expect(logs.slice(0, 3).map((l) => fs.statSync(path.join(l, 'tracks.arrow')).mtimeMs)).toEqual(mtimes);
  });

  it('aggregates: one pooled eval over all logs, one metrics table over all sim rollouts', async () => {
    const ev = await drivekitRun(
      'submit',
      '--redis',
      redis.url,
      '--queue',
      'flow',
      'eval',
      ...logs.slice(0, 3),
      '--wait',
      '--json',
    );
    expect(ev.code).toBe(0);
    const pooled = JSON.parse(ev.stdout).result.pooled;
    const sets = [];
    for (const l of logs.slice(0, 3).sort()) {
      const pred = await readBoxSource(l, ['tracks', 'detections']);
      const truth = await readBoxSource(l, ['labels']);
      sets.push({
        pred: pred.boxes,
        gt: await fillGtPointCounts(truth.boxes, l),
        ego: truth.ego ?? pred.ego,
      });
    }
    expect(pooled).toEqual(
      JSON.parse(JSON.stringify(evaluateSets(sets, { ap: { halfFovDeg: null }, dtcScoreThreshold: null }))),
    );
    expect(pooled.counts.frames).toBe(24);

    const scen = path.join(root, 'scenarios');
    const a = straightRoadScenario({ numAgents: 3, numSteps: 21 });
    const b = straightRoadScenario({ numAgents: 2, numSteps: 21, speedMps: 6 });
    b.id = 'second';
    saveScenario(a, path.join(scen, 'a.json'));
    saveScenario(b, path.join(scen, 'b.json'));
    const out = path.join(root, 'sim');
    const sim = await drivekitRun(
      'submit',
      '--redis',
      redis.url,
      '--queue',
      'flow',
      'sim',
      path.join(scen, 'a.json'),
      path.join(scen, 'b.json'),
      '--agents',
      'idm',
      '--rollouts',
      '2',
      '--out',
      out,
      '--wait',
      '--json',
    );
    expect(sim.code).toBe(0);
    expect(JSON.parse(sim.stdout).result.pooled.scenarios).toBe(2);
    const table = JSON.parse(fs.readFileSync(path.join(out, 'metrics.json'), 'utf8'));
    expect(
      table.rows.map((r: { scenario: string; source: string }) => [r.scenario, path.basename(r.source)]),
    ).toEqual([
      ['straight-road', 'a.json'],
      ['second', 'b.json'],
    ]);
    for (const d of ['a', 'b']) expect(fs.existsSync(path.join(out, d, 'rollouts.arrow'))).toBe(true);
  });

  it('fails a bad-input job once with its error recorded, and rejects payloads outside the allow-list', async () => {
    await worker('bad');
    const notALog = path.join(root, 'redis');
    const r = await drivekitRun(
      'submit',
      '--redis',
      redis.url,
      '--queue',
      'bad',
      'discover',
      notALog,
      '--wait',
      '--json',
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ jobs: 1, completed: 0, failed: 1, retried: 0 });
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    // A payload written straight into Redis: a command outside the table, a path outside the roots.
    const queue = new Queue('bad', { connection: parseRedisUrl(redis.url) });
    try {
      const rogue = await queue.add('x', { v: 1, command: 'rm', input: root, options: {} }, { attempts: 3 });
      const escape = await queue.add(
        'x',
        { v: 1, command: 'info', input: '/etc', options: {} },
        { attempts: 3 },
      );
      await waitFor('rogue jobs to fail', async () => (await queue.getFailedCount()) === 3);
      const [a, b] = await Promise.all([Job.fromId(queue, rogue.id!), Job.fromId(queue, escape.id!)]);
      expect(a!.failedReason).toMatch(/command 'rm' is not a scale-out command/);
      expect(b!.failedReason).toMatch(/outside the worker's roots/);
      expect([a!.attemptsMade, b!.attemptsMade]).toEqual([1, 1]);
    } finally {
      await queue.close();
    }
    // No Redis there: one line naming it and --redis, not a hang; a runtime error (exit 1), not a usage one.
    const down = await drivekitRun('jobs', '--redis', 'redis://127.0.0.1:1');
    expect([down.code, down.stderr.trim()]).toEqual([
      1,
      'drivekit jobs: redis://127.0.0.1:1: cannot use this Redis (--redis): connect ECONNREFUSED 127.0.0.1:1',
    ]);
    const list = await drivekitRun('jobs', '--redis', redis.url, '--queue', 'bad');
    expect(list.stdout).toMatch(/^bad: .*failed 3/m);
    expect(list.stdout).toContain(`${notALog}: not a drivekit log`);
  });

  it('hands the job of a SIGKILLed worker to another after the stall timeout, nothing lost or duplicated', async () => {
    const stall = ['--lock-ms', '1500', '--stalled-ms', '500'];
    const a = await worker('kill', ...stall);
    const sub = JSON.parse(
      (await drivekitRun('submit', '--redis', redis.url, '--queue', 'kill', 'discover', bigLog, '--json'))
        .stdout,
    );
    const connection = parseRedisUrl(redis.url);
    const queue = new Queue('kill', { connection });
    let jobPid = 0;
    try {
      await waitFor('the job to start', async () => (await queue.getActiveCount()) === 1);
      // The job's own process (a child of the worker) is running the command now.
      jobPid = Number(
        execFileSync('pgrep', ['-P', String(a.proc.pid)])
          .toString()
          .trim()
          .split('\n')[0],
      );
      await a.kill();
      await waitFor('the orphaned job process to stop', () => !alive(jobPid), 5000);
      expect(fs.existsSync(path.join(bigLog, 'tracks.arrow'))).toBe(false);
      const b = await worker('kill', ...stall);
      const summary = await waitFlow(
        connection,
        { ...DEFAULT_SCALEOUT_CONFIG, queue: 'kill' },
        { parentId: sub.parent, childIds: sub.ids },
        () => {},
      );
      expect(summary).toMatchObject({ jobs: 1, completed: 1, failed: 0, retried: 1 });
      const job = await Job.fromId(queue, sub.ids[0]);
      expect(job!.returnvalue.skipped).toBe(false);
      expect(b.stderr().match(new RegExp(`done +${sub.ids[0]}`, 'g'))).toHaveLength(1);
      expect(a.stderr()).not.toContain(`done    ${sub.ids[0]}`);
      expect(job!.returnvalue.result.frames).toBe(30);
      expect(fs.existsSync(path.join(bigLog, 'tracks.arrow'))).toBe(true);
    } finally {
      await queue.close();
    }
  });

  it('loses no finished job when Redis is killed and restarted mid-run (append-only file on)', async () => {
    await worker('restart', '--lock-ms', '3000', '--stalled-ms', '1000');
    const sub = JSON.parse(
      (
        await drivekitRun(
          'submit',
          '--redis',
          redis.url,
          '--queue',
          'restart',
          'discover',
          ...logs,
          '--min-track',
          '3',
          '--json',
        )
      ).stdout,
    );
    const connection = parseRedisUrl(redis.url);
    let queue = new Queue('restart', { connection });
    const finished = async () => (await queue.getCompleted()).map((j) => String(j.id));
    await waitFor('a finished job', async () => (await finished()).length >= 1, 60_000);
    const before = await finished();
    await queue.close();
    await redis.restart();
    queue = new Queue('restart', { connection });
    try {
      for (const id of before) expect(await (await Job.fromId(queue, id))!.getState()).toBe('completed');
      const summary = await waitFlow(
        connection,
        { ...DEFAULT_SCALEOUT_CONFIG, queue: 'restart' },
        { parentId: sub.parent, childIds: sub.ids },
        () => {},
      );
      expect(summary).toMatchObject({ jobs: 4, completed: 4, failed: 0 });
      expect((summary.result as { totals: { frames: number } }).totals.frames).toBe(32);
      for (const l of logs) expect(fs.existsSync(path.join(l, '.drivekit-job-discover.json'))).toBe(true);
    } finally {
      await queue.close();
    }
  });
});
