// Scale-out benchmarks (issue 17): `discover` over 32 small synthetic logs as BullMQ jobs on 1, 2 and 4
// worker processes against the plain sequential command, the engine's overhead per job, and BullMQ's
// own throughput on one local Redis (jobs/s, trivial jobs), each with the machine's load average.
import { execFile, type ChildProcess, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Job, Queue, Worker } from 'bullmq';
import { allocatePointCloud } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { DEFAULT_SCALEOUT_CONFIG } from '../scaleout/config.ts';
import { parseRedisUrl, type RedisConnection } from '../scaleout/connection.ts';
import { runCommandInProcess } from '../scaleout/runCommand.ts';
import { submitFlow, waitFlow } from '../scaleout/submit.ts';
import type { Benchmark, Figure } from './benchmark.ts';

const run = promisify(execFile);

/** Settings: 32 logs of 20 sweeps (32 rings × 1024 columns of ground plus three cars): ~1 s of discover each. */
export const SCALEOUT_BENCH = {
  logs: 32,
  frames: 20,
  rings: 32,
  columns: 1024,
  workers: [1, 2, 4],
  /** Trivial jobs for BullMQ's own throughput, and the in-process worker's concurrency. */
  trivialJobs: 5000,
  trivialConcurrency: 50,
  /** `info` jobs (a meta.json read: ~no work) timed through one warm worker for the overhead per job. */
  overheadJobs: 200,
};

const load = () => Number(os.loadavg()[0].toFixed(2));

/** A flat road seen by a 16-ring sensor with three 4.5 × 1.8 × 1.6 m cars ahead, the ego at 5 m/s. */
async function writeLog(dir: string, seed: number): Promise<void> {
  const { frames, rings, columns } = SCALEOUT_BENCH;
  const w = LogWriter.create(dir, { source: 'bench' });
  const cars = [
    [12 + (seed % 5), 4],
    [20, -4],
    [30 - (seed % 7), 3.5],
  ];
  for (let f = 0; f < frames; f++) {
    const xs: number[] = [];
    const ys: number[] = [];
    const zs: number[] = [];
    for (let r = 0; r < rings; r++) {
      const range = 4 + r * r * 0.06;
      for (let c = 0; c < columns; c++) {
        const a = (2 * Math.PI * c) / columns;
        xs.push(range * Math.cos(a));
        ys.push(range * Math.sin(a));
        zs.push(-1.8 + 0.01 * Math.sin(c * 12.9898 + r * 78.233 + seed));
      }
    }
    for (const [cx, cy] of cars) {
      const x0 = cx + f * 0.3; // each car gains 0.3 m a sweep on the ego (8 m/s against 5 m/s)
      for (let i = 0; i < 400; i++) {
        const u = (i % 20) / 19;
        const v = Math.floor(i / 20) / 19;
        xs.push(x0 - 2.25 + 4.5 * u * (i % 2));
        ys.push(cy - 0.9 + 1.8 * u * ((i + 1) % 2));
        zs.push(-1.7 + 1.5 * v);
      }
    }
    const p = allocatePointCloud(xs.length);
    p.x.set(xs);
    p.y.set(ys);
    p.z.set(zs);
    w.appendFrame({
      timestampNs: BigInt(f) * 100_000_000n,
      pose: poseFromTranslationYaw(0.5 * f, 0, 1.8, 0),
      points: p,
    });
  }
  await w.close();
}

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

async function until(ok: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** redis-server on loopback with the append-only file on (its default fsync: every second). */
async function startRedis(dir: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--appendonly', 'yes', '--save', ''],
    { stdio: 'ignore' },
  );
  await until(
    () =>
      run('redis-cli', ['-p', String(port), 'ping']).then(
        (r) => r.stdout.trim() === 'PONG',
        () => false,
      ),
    'redis-server',
  );
  return { url: `redis://127.0.0.1:${port}`, proc };
}

function startWorkers(url: string, n: number, rootDir: string): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const p = spawn(
        process.execPath,
        [path.join(REPO_ROOT, 'bin', 'drivekit.js'), 'worker', '--redis', url, '--root', rootDir],
        { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let err = '';
      p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      await until(() => err.includes('worker ready'), 'worker');
      return p;
    }),
  );
}

async function stopWorkers(ps: ChildProcess[]): Promise<void> {
  await Promise.all(
    ps.map(
      (p) =>
        new Promise((r) => {
          p.once('exit', r);
          p.kill('SIGTERM');
        }),
    ),
  );
}

const clearMarkers = (logs: string[]) =>
  logs.forEach((l) => fs.rmSync(path.join(l, '.drivekit-job-discover.json'), { force: true }));

/**
 * CPU seconds used so far by the processes `pids` and all their descendants (Linux /proc: utime + stime, plus
 * cutime + cstime, which hold the job processes that have already exited and been reaped). With another
 * engineer's load on the machine, this says how much CPU the workers actually got.
 */
export function treeCpuS(pids: number[]): number {
  const tick = 100; // USER_HZ on Linux
  const parent = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name (which may hold spaces) in parentheses.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(name), Number(f[1]));
    cpu.set(Number(name), (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / tick);
  }
  const roots = new Set(pids);
  let total = 0;
  for (const [pid, c] of cpu) {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) {
      if (roots.has(p)) {
        total += c;
        break;
      }
    }
  }
  return total;
}

/** Wall seconds of one flow, and its parallelism: the jobs' summed run times over the wall time. */
async function flowRun(
  conn: RedisConnection,
  logs: string[],
  command = 'discover',
): Promise<{ seconds: number; parallelism: number }> {
  clearMarkers(logs);
  const t0 = Date.now();
  const h = await submitFlow(conn, DEFAULT_SCALEOUT_CONFIG, command, logs, {});
  const s = await waitFlow(conn, DEFAULT_SCALEOUT_CONFIG, h, () => {}, t0);
  if (s.completed !== logs.length) throw new Error(`flow: ${s.failed} failed (${s.failures[0]?.error})`);
  const seconds = (Date.now() - t0) / 1000;
  const queue = new Queue(DEFAULT_SCALEOUT_CONFIG.queue, { connection: conn });
  let busyMs = 0;
  try {
    for (const id of h.childIds) {
      const j = await Job.fromId(queue, id);
      busyMs += (j?.finishedOn ?? 0) - (j?.processedOn ?? 0);
    }
  } finally {
    await queue.close();
  }
  return { seconds, parallelism: Number((busyMs / 1000 / seconds).toFixed(2)) };
}

/**
 * The machine's own ceiling: the same discover calls in `n` plain processes (no queue, no Redis, no worker),
 * each given every n-th log after a warm-up, all started at once. Wall seconds from 'go' until the last is
 * done, and the CPU seconds they used: 2 such processes vs 1 is the most 2 workers can reach on these cores.
 */
async function plainProcesses(logs: string[], n: number): Promise<{ seconds: number; cpuS: number }> {
  const children = Array.from({ length: n }, () =>
    fork(path.join(REPO_ROOT, 'tools', 'bench', 'discoverLoopChild.ts'), [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  try {
    await Promise.all(
      children.map(
        (c, i) =>
          new Promise<void>((resolve, reject) => {
            c.once('message', () => resolve());
            c.once('exit', (code) => reject(new Error(`discover loop child exited (${code}) before ready`)));
            c.send({ logs: logs.filter((_, k) => k % n === i), warmupLog: logs[i] });
          }),
      ),
    );
    const t0 = performance.now();
    const done = children.map(
      (c) => new Promise<{ seconds: number; cpuS: number }>((resolve) => c.once('message', resolve)),
    );
    for (const c of children) c.send('go');
    const results = await Promise.all(done);
    return {
      seconds: (performance.now() - t0) / 1000,
      cpuS: results.reduce((s, r) => s + r.cpuS, 0),
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}

const flowSeconds = async (conn: RedisConnection, logs: string[], command = 'discover') =>
  (await flowRun(conn, logs, command)).seconds;

/** CPU seconds the Redis server has used so far (main thread and background threads). */
async function redisCpuS(port: number): Promise<number> {
  const info = (await run('redis-cli', ['-p', String(port), 'INFO', 'cpu'])).stdout;
  const field = (k: string) => Number(new RegExp(`^${k}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/**
 * BullMQ alone: trivial jobs added in bulk and processed in this process, jobs/s through one Redis, and
 * the share of one core Redis spent on them (its saturation point is about jobs/s ÷ that share).
 */
async function bullmqThroughput(conn: RedisConnection): Promise<{ jobsPerS: number; redisCpuShare: number }> {
  const { trivialJobs, trivialConcurrency } = SCALEOUT_BENCH;
  const queue = new Queue('bench-trivial', { connection: conn });
  let done = 0;
  const worker = new Worker('bench-trivial', async (job) => (job.data as { i: number }).i, {
    connection: conn,
    concurrency: trivialConcurrency,
    autorun: false,
    removeOnComplete: { count: 0 },
  });
  worker.on('completed', () => done++);
  for (let i = 0; i < trivialJobs; i += 500)
    await queue.addBulk(Array.from({ length: 500 }, (_, k) => ({ name: 't', data: { i: i + k } })));
  const cpu0 = await redisCpuS(conn.port);
  const t0 = Date.now();
  void worker.run();
  await until(() => done >= trivialJobs, 'trivial jobs', 300_000);
  const s = (Date.now() - t0) / 1000;
  const cpu = (await redisCpuS(conn.port)) - cpu0;
  await worker.close();
  await queue.close();
  return { jobsPerS: trivialJobs / s, redisCpuShare: cpu / s };
}

/** Logs and a Redis server in a temp dir for one benchmark, removed afterwards. */
async function withCluster(
  logCount: number,
  fn: (logs: string[], url: string, root: string) => Promise<void>,
): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dk-bench-scaleout-')));
  let redis: ChildProcess | null = null;
  try {
    const logs = Array.from({ length: logCount }, (_, i) =>
      path.join(root, `log${String(i).padStart(2, '0')}`),
    );
    for (const [i, l] of logs.entries()) await writeLog(l, i);
    fs.mkdirSync(path.join(root, 'redis'));
    const r = await startRedis(path.join(root, 'redis'));
    redis = r.proc;
    await fn(logs, r.url, root);
  } finally {
    redis?.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export const benchmarks: Benchmark[] = [
  {
    names: ['scaleout_discover'],
    run: (emit: (f: Figure) => void) =>
      withCluster(SCALEOUT_BENCH.logs, async (logs, url, root) => {
        const n = logs.length;
        // The plain command, one process per log, as a shell loop would run it.
        let t0 = Date.now();
        for (const l of logs)
          await run(process.execPath, [
            path.join(REPO_ROOT, 'bin', 'drivekit.js'),
            'discover',
            '--log',
            l,
            '--json',
          ]);
        const seqCli = (Date.now() - t0) / 1000;
        emit({ name: 'scaleout_discover_sequential_cli', logs: n, seconds: seqCli, load1: load() });
        // The same work in one process: what the jobs cost without any engine or process start.
        await runCommandInProcess('discover', ['--log', logs[0]]);
        t0 = Date.now();
        for (const l of logs) await runCommandInProcess('discover', ['--log', l]);
        const seqIn = (Date.now() - t0) / 1000;
        emit({ name: 'scaleout_discover_sequential_inprocess', logs: n, seconds: seqIn, load1: load() });
        // The ceiling on these cores, measured beside the workers: 2 plain processes vs 1, same calls.
        const plain1 = await plainProcesses(logs, 1);
        const plain2 = await plainProcesses(logs, 2);
        const ceiling = plain1.seconds / plain2.seconds;
        emit({
          name: 'scaleout_discover_plain_processes',
          logs: n,
          seconds_1: Number(plain1.seconds.toFixed(2)),
          seconds_2: Number(plain2.seconds.toFixed(2)),
          speedup_2_vs_1: Number(ceiling.toFixed(2)),
          cpu_vs_1: Number((plain2.cpuS / plain1.cpuS).toFixed(2)),
          cores_obtained_2: Number((plain2.cpuS / plain2.seconds).toFixed(2)),
          load1: load(),
        });
        const conn = parseRedisUrl(url);
        let one = NaN;
        let oneCpuS = NaN;
        for (const w of SCALEOUT_BENCH.workers) {
          const ps = await startWorkers(url, w, root);
          try {
            const cold = await flowSeconds(conn, logs); // includes starting each worker's job process
            const pids = ps.map((p) => p.pid!);
            const cpu0 = treeCpuS(pids);
            const { seconds: warm, parallelism } = await flowRun(conn, logs);
            const cpuS = treeCpuS(pids) - cpu0;
            if (w === 1) {
              one = warm;
              oneCpuS = cpuS;
            }
            emit({
              name: 'scaleout_discover_workers',
              workers: w,
              logs: n,
              seconds_cold: cold,
              seconds: warm,
              speedup_vs_1_worker: Number((one / warm).toFixed(2)),
              // speedup / workers: 1 when w workers finish w times as fast.
              parallel_efficiency: Number((one / warm / w).toFixed(2)),
              // CPU the workers and their job processes got: cores they had on average, and CPU per job (the
              // same for every w when no work is added by running side by side).
              worker_cpu_s: Number(cpuS.toFixed(2)),
              cores_obtained: Number((cpuS / warm).toFixed(2)),
              cpu_ms_per_job: Math.round((cpuS * 1000) / n),
              cpu_vs_1_worker: Number((cpuS / oneCpuS).toFixed(2)),
              // ≈ workers when the engine runs them all at once; the speedup falls short of it when
              // the processes do not get a core each.
              parallelism,
              // 1 when the workers scale as well as plain processes doing the same calls on these cores.
              speedup_vs_plain_ceiling: w === 2 ? Number((one / warm / ceiling).toFixed(2)) : null,
              speedup_vs_sequential_cli: Number((seqCli / warm).toFixed(2)),
              speedup_vs_sequential_inprocess: Number((seqIn / warm).toFixed(2)),
              cores: os.cpus().length,
              load1: load(),
            });
          } finally {
            await stopWorkers(ps);
          }
        }
      }),
  },
  {
    names: ['scaleout_overhead_ms_per_job'],
    run: (emit: (f: Figure) => void) =>
      withCluster(1, async (logs, url, root) => {
        const inputs = Array.from({ length: SCALEOUT_BENCH.overheadJobs }, () => logs[0]);
        await runCommandInProcess('info', [logs[0]]);
        const t0 = Date.now();
        for (const l of inputs) await runCommandInProcess('info', [l]);
        const inProcessMs = (Date.now() - t0) / inputs.length;
        const ps = await startWorkers(url, 1, root);
        try {
          await flowSeconds(parseRedisUrl(url), inputs.slice(0, 4), 'info'); // start the job process
          const s = await flowSeconds(parseRedisUrl(url), inputs, 'info');
          emit({
            name: 'scaleout_overhead_ms_per_job',
            ms: Number(((s * 1000) / inputs.length - inProcessMs).toFixed(2)),
            job_ms: Number(((s * 1000) / inputs.length).toFixed(2)),
            in_process_ms: Number(inProcessMs.toFixed(2)),
            jobs: inputs.length,
            load1: load(),
          });
        } finally {
          await stopWorkers(ps);
        }
      }),
  },
  {
    names: ['scaleout_bullmq_jobs_per_s'],
    run: (emit: (f: Figure) => void) =>
      withCluster(0, async (_logs, url) => {
        const t = await bullmqThroughput(parseRedisUrl(url));
        emit({
          name: 'scaleout_bullmq_jobs_per_s',
          jobs_per_s: Math.round(t.jobsPerS),
          redis_cpu_us_per_job: Number(((t.redisCpuShare / t.jobsPerS) * 1e6).toFixed(1)),
          jobs_per_s_at_redis_saturation: Math.round(t.jobsPerS / t.redisCpuShare),
          jobs: SCALEOUT_BENCH.trivialJobs,
          concurrency: SCALEOUT_BENCH.trivialConcurrency,
          load1: load(),
        });
      }),
  },
];
