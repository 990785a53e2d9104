// Pipeline benchmark (pipeline_3stage): frames/s through replay → discover → record as three processes
// (`drivekit pipeline`, ZeroMQ/Arrow over ipc://) vs the same three stages as calls in one process.
//
// Input: the real KITTI 0048 sweeps (22 × ~120k points, ../shared/data), played `passes` times as one
// longer log. Steady state: frames after the first over the time from the first frame recorded to the
// last (process start-up and the recorder's final tracking left out, on both sides); `total` includes them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Boxes, concatBoxes } from '../../core/arrow/records.ts';
import { realData } from '../../core/paths.ts';
import { median } from '../../core/stats.ts';
import { writeBoxesFile } from '../../datasets/logFiles.ts';
import { importLog } from '../../datasets/import.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { discoverSweep, resolveDiscoverConfig, sweepBuffers } from '../../perception/discover.ts';
import { fork } from 'node:child_process';
import { runPipeline } from '../commands/pipeline.ts';
import { resolvePipelineConfig } from '../pipeline/config.ts';
import { STAGE_NODE_FLAGS } from '../pipeline/supervisor.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import type { Benchmark } from './benchmark.ts';
import type { InProcessChildStart } from './pipelineInProcessChild.ts';

/** Settings: passes over the 22 KITTI sweeps (frames = 22 × passes) and alternating repetitions. */
export const PIPELINE_BENCH = { passes: 3, reps: 3, hwm: 4 };

/** The KITTI sweeps `passes` times over, as one log (frame indices and times continue). */
export async function benchLog(dir: string, passes: number): Promise<string> {
  const src = realData('kitti-0048');
  if (!fs.existsSync(src)) throw new Error(`${src} not found: the benchmark needs ../shared/data`);
  const once = path.join(dir, 'once');
  await importLog(src, 'pcd', once, { rateHz: 10, overwrite: true });
  const reader = await LogReader.open(once);
  const out = path.join(dir, 'log');
  const w = LogWriter.create(out, { source: 'bench', rateHz: 10, overwrite: true });
  let k = 0;
  for (let p = 0; p < passes; p++)
    for await (const f of reader.iterFrames()) {
      w.appendFrame({ timestampNs: BigInt(k++) * 100_000_000n, pose: f.pose, points: f.points });
    }
  await w.close();
  await reader.close();
  return out;
}

/** The same three stages as calls: read a frame, discover its boxes, record them; then write the file. */
export async function inProcess(
  logDir: string,
  outFile: string,
): Promise<{ steadyFps: number; totalFps: number; readMs: number; discoverMs: number }> {
  const t0 = performance.now();
  const cfg = resolveDiscoverConfig();
  const log = await LogReader.open(logDir);
  const parts: Boxes[] = [];
  let first = 0;
  let last = 0;
  let readMs = 0;
  let discoverMs = 0;
  let t = performance.now();
  const buffers = sweepBuffers();
  for await (const frame of log.iterFrames()) {
    const tRead = performance.now();
    parts.push(discoverSweep(frame.points, cfg, frame.frameIndex, buffers).boxes);
    last = performance.now();
    // After the first frame, as the steady rate (its JIT warm-up left out).
    if (parts.length === 1) first = last;
    else {
      readMs += tRead - t;
      discoverMs += last - tRead;
    }
    t = last;
  }
  await writeBoxesFile(outFile, concatBoxes(parts));
  const n = log.frameCount;
  await log.close();
  return {
    steadyFps: ((n - 1) * 1000) / (last - first),
    totalFps: (n * 1000) / (performance.now() - t0),
    readMs: readMs / (n - 1),
    discoverMs: discoverMs / (n - 1),
  };
}

/**
 * `inProcess` in a fresh process started with the stages' Node flags: the offline reference with the
 * same JIT state as each stage process (cold), where the bench's own process is warm after its first run.
 */
export function inFreshProcess(
  logDir: string,
  outFile: string,
): Promise<Awaited<ReturnType<typeof inProcess>> & { cpuS: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(REPO_ROOT, 'tools', 'bench', 'pipelineInProcessChild.ts'), [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx', ...STAGE_NODE_FLAGS],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let result: (Awaited<ReturnType<typeof inProcess>> & { cpuS: number }) | null = null;
    child.once('message', (m) => (result = m as typeof result));
    child.once('error', reject);
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`in-process reference child exited with ${code}`)),
    );
    child.send({ logDir, outFile } satisfies InProcessChildStart);
  });
}

export const benchmarks: Benchmark[] = [
  {
    names: ['pipeline_3stage'],
    async run(emit) {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-bench-pipe-'));
      try {
        const logDir = await benchLog(tmp, PIPELINE_BENCH.passes);
        const frames = (
          await LogReader.open(logDir).then(async (l) => [l.frameCount, await l.close()])
        )[0] as number;
        const inproc: number[] = [];
        const fresh: number[] = [];
        const inprocTotal: number[] = [];
        const piped: number[] = [];
        const pipedTotal: number[] = [];
        const rss: Record<string, number> = {};
        const readMs: number[] = [];
        const discoverMs: number[] = [];
        // Per stage process, per frame (ms): working, waiting for input, waiting on a full output, CPU.
        const prof: Record<
          string,
          { workMs: number[]; recvWaitMs: number[]; sendWaitMs: number[]; cpuMs: number[] }
        > = {};
        const load: number[] = [];
        for (let rep = 0; rep < PIPELINE_BENCH.reps; rep++) {
          load.push(os.loadavg()[0]);
          const a = await inProcess(logDir, path.join(tmp, `inproc-${rep}.arrow`));
          inproc.push(a.steadyFps);
          inprocTotal.push(a.totalFps);
          readMs.push(a.readMs);
          discoverMs.push(a.discoverMs);
          const out = path.join(tmp, `piped-${rep}`);
          const cfg = resolvePipelineConfig({
            log: logDir,
            out,
            stages: ['discover'],
            hwm: PIPELINE_BENCH.hwm,
          });
          const r = await runPipeline(cfg, new AbortController().signal, true);
          const b = r.branches[0];
          if (!b.complete) throw new Error(`pipeline run ${rep} lost frames: ${JSON.stringify(b.missing)}`);
          piped.push((frames - 1) / (b.last_frame_s! - b.first_frame_s!));
          fresh.push((await inFreshProcess(logDir, path.join(tmp, `fresh-${rep}.arrow`))).steadyFps);
          pipedTotal.push(r.frames_per_s);
          for (const p of r.processes) {
            rss[p.id] = Math.max(rss[p.id] ?? 0, p.peak_rss_mb ?? 0);
            const sp = p.summary?.profile as
              { work_s: number; receive_wait_s: number; send_wait_s: number; cpu_s: number } | undefined;
            if (!sp) continue;
            const q = (prof[p.id.split('/')[1]] ??= {
              workMs: [],
              recvWaitMs: [],
              sendWaitMs: [],
              cpuMs: [],
            });
            q.workMs.push((sp.work_s * 1000) / frames);
            q.recvWaitMs.push((sp.receive_wait_s * 1000) / frames);
            q.sendWaitMs.push((sp.send_wait_s * 1000) / frames);
            q.cpuMs.push((sp.cpu_s * 1000) / frames);
          }
        }
        const round = (x: number) => Number(x.toFixed(2));
        emit({
          name: 'pipeline_3stage',
          frames,
          processes_fps_steady: round(median(piped)),
          in_process_fps_steady: round(median(inproc)),
          ratio: round(median(piped) / median(inproc)),
          target_ratio: 0.95,
          processes_fps_total: round(median(pipedTotal)),
          in_process_fps_total: round(median(inprocTotal)),
          runs_processes_fps: piped.map(round),
          runs_in_process_fps: inproc.map(round),
          // Each pair ran back to back, so its ratio shares the load of its moment.
          runs_ratio: piped.map((p, i) => round(p / inproc[i])),
          // The same calls in a fresh process per run, cold like the stage processes (the bench's own
          // process has run discovery before from its second run on).
          in_fresh_process_fps_steady: round(median(fresh)),
          ratio_to_fresh_process: round(median(piped) / median(fresh)),
          runs_in_fresh_process_fps: fresh.map(round),
          runs_ratio_to_fresh_process: piped.map((p, i) => round(p / fresh[i])),
          // Per frame, medians over the runs (ms): where each side spends its time.
          in_process_read_ms: round(median(readMs)),
          in_process_discover_ms: round(median(discoverMs)),
          ...Object.fromEntries(
            Object.entries(prof).flatMap(([id, q]) => {
              const k = id.replace('-', '_');
              return [
                [`${k}_work_ms`, round(median(q.workMs))],
                [`${k}_wait_in_ms`, round(median(q.recvWaitMs))],
                [`${k}_wait_out_ms`, round(median(q.sendWaitMs))],
                [`${k}_cpu_ms`, round(median(q.cpuMs))],
              ];
            }),
          ),
          peak_rss_mb_replay: rss['discover/replay'] ?? null,
          peak_rss_mb_discover: rss['discover/discover'] ?? null,
          peak_rss_mb_record: rss['discover/record-boxes'] ?? null,
          load_avg_1m: load.map(round),
          cores: os.cpus().length,
        });
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    },
  },
];
