// `drivekit pipeline` as real processes over real ZeroMQ sockets: the same files as the offline commands,
// garbage skipped and counted, no frame lost when any one process is SIGKILLed, back-pressure, SIGINT.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Push } from 'zeromq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxesToBatch, pointCloudToBatch } from '../../../core/arrow/codec.ts';
import { allocateBoxes, allocatePointCloud, type Boxes } from '../../../core/arrow/records.ts';
import { TUNED_MALLOC_ENV } from '../../../core/mallocEnv.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { batchMessage } from '../../../core/stream/message.ts';
import { readBoxesFile } from '../../../datasets/logFiles.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import type { PipelineRun } from '../../../tools/commands/pipeline.ts';
import { castSequence } from '../../perception/scene.ts';
import { drivekit } from '../commands/castLog.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-pipeline-test-'));
const logDir = path.join(tmp, 'log');
const offline = path.join(tmp, 'offline');
const FRAMES = 20;
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A 20-frame log: a moving and a parked car, the ego at 5 m/s, a 32-beam sensor out to 30 m. */
async function writeLog(dir: string): Promise<void> {
  const seq = castSequence({
    sensorZ: 1.8,
    rings: 32,
    azimuthSteps: 720,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM: 30,
    frames: FRAMES,
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
  await w.close();
}

interface Running {
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name). */
  exit: Promise<number | string>;
  /** Calls `fn` on every stderr line, now and for the lines already seen. */
  onLine: (fn: (line: string) => void) => void;
  lines: string[];
}

/** `drivekit pipeline <args>` as a child (tuned malloc set, so the pid is the real process). */
function startPipeline(args: string[]): Running {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/drivekit.js'), 'pipeline', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...TUNED_MALLOC_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  let rest = '';
  child.stderr!.on('data', (d: Buffer) => {
    rest += d.toString();
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const l of parts) {
      lines.push(l);
      for (const fn of listeners) fn(l);
    }
  });
  child.stdout!.resume();
  const exit = new Promise<number | string>((resolve) =>
    child.on('exit', (code, sig) => resolve(sig ?? code ?? -1)),
  );
  return {
    child,
    exit,
    lines,
    onLine: (fn) => {
      lines.forEach(fn);
      listeners.push(fn);
    },
  };
}

const lastPid = (lines: string[], id: string): number | null => {
  const re = new RegExp(`${id} started \\(pid (\\d+)`);
  const m = lines.map((l) => re.exec(l)).filter((x) => x !== null);
  return m.length ? Number(m[m.length - 1]![1]) : null;
};

const readRun = (out: string) =>
  JSON.parse(fs.readFileSync(path.join(out, 'pipeline.json'), 'utf8')) as PipelineRun;

/**
 * The two Boxes files hold the same values, column by column, in the same order. (Values, not bytes: a file
 * inside a log may carry facts the log adds, such as each box's frame time from its poses.)
 */
function sameBoxes(piped: string, offline: string): void {
  const a = readBoxesFile(piped);
  const b = readBoxesFile(offline);
  expect(a.cx.length).toBeGreaterThan(0);
  const values = (x: Boxes, k: keyof Boxes) => Array.from(x[k] as ArrayLike<number | string>);
  for (const k of Object.keys(b) as (keyof Boxes)[]) expect(values(a, k), k).toEqual(values(b, k));
}

beforeAll(async () => {
  await writeLog(logDir);
  fs.cpSync(logDir, offline, { recursive: true });
  await drivekit('discover', '--log', offline, '--json');
  await drivekit('detect', '--log', offline, '--json', '--threads', '1');
}, 300_000);

describe('drivekit pipeline', () => {
  it('writes the same detections, tracks and detector boxes as drivekit discover / detect; garbage is skipped and counted', async () => {
    const out = path.join(tmp, 'same');
    // The config file form, with an option handed to one stage's processes.
    const config = path.join(tmp, 'same.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        log: logDir,
        stages: ['discover', 'detect'],
        out,
        stageArgs: { detect: ['--threads', '1'] },
      }),
    );
    const run = startPipeline(['--config', config]);
    const push = new Push({ linger: 60_000 });
    run.onLine((line) => {
      const m = /^pipeline: discover: stage listens on (\S+),/.exec(line);
      if (!m) return;
      // Messages no stage should take: bytes that are not Arrow, three frames, and Boxes where SensorFrames go.
      push.connect(m[1]);
      void (async () => {
        await push.send(['frames', Buffer.from('not an arrow stream at all')]);
        await push.send(['frames', Buffer.from('a'), Buffer.from('b')]);
        await push.send(batchMessage('frames', boxesToBatch(allocateBoxes(0))));
        await push.send(batchMessage('frames', pointCloudToBatch(allocatePointCloud(5))));
      })();
    });
    expect(await run.exit).toBe(0);
    push.close();
    const r = readRun(out);
    const [disc, det] = r.branches;
    expect(disc).toMatchObject({ stage: 'discover', complete: true, frames_recorded: FRAMES, missing: [] });
    expect(det).toMatchObject({ stage: 'detect', complete: true, frames_recorded: FRAMES, missing: [] });
    sameBoxes(path.join(out, 'detections.arrow'), path.join(offline, 'detections.arrow'));
    sameBoxes(path.join(out, 'tracks.arrow'), path.join(offline, 'tracks.arrow'));
    sameBoxes(path.join(out, 'detector.arrow'), path.join(offline, 'detector.arrow'));
    expect(disc.skipped).toMatchObject({ 'not-arrow': 1, 'frame-count': 1, 'wrong-schema': 2 });
    for (const p of r.processes) expect(p.peak_rss_mb).toBeGreaterThan(10);
  }, 400_000);

  it('loses no frame when the replay, the stage and the recorder are each SIGKILLed mid-run', async () => {
    const out = path.join(tmp, 'killed');
    // One frame per hop (hwm 1) and a 300 ms stage: the replay is still sending when the first kill comes.
    const args = [
      '--log',
      logDir,
      '--stages',
      'discover',
      '--out',
      out,
      '--hwm',
      '1',
      '--stage-delay-ms',
      '300',
    ];
    const run = startPipeline(args);
    const killed: string[] = [];
    // Kill one process at each of the first three quarters of the frames recorded: progress lines
    // (`pipeline: 3/12 (25%), …`) come at most once a second, so the first line at or past the quarter.
    const plan = ['discover/replay', 'discover/discover', 'discover/record-boxes'];
    run.onLine((line) => {
      const m = /^pipeline: (\d+)\/(\d+) \(/.exec(line);
      if (!m || killed.length >= plan.length) return;
      if (Number(m[1]) * 4 < Number(m[2]) * (killed.length + 1)) return;
      const id = plan[killed.length];
      const pid = lastPid(run.lines, id);
      try {
        process.kill(pid!, 'SIGKILL');
        killed.push(id);
      } catch {
        killed.push(`${id} (already gone)`);
      }
    });
    expect(await run.exit).toBe(0);
    expect(killed).toEqual(plan);
    const r = readRun(out);
    expect(r.branches[0]).toMatchObject({ complete: true, frames_recorded: FRAMES, missing: [] });
    for (const id of plan) {
      const p = r.processes.find((q) => q.id === id)!;
      expect(p.exits).toContain('SIGKILL');
      expect(p.starts).toBeGreaterThanOrEqual(2);
    }
    // Every frame once and in order: the offline command's boxes, value for value.
    sameBoxes(path.join(out, 'detections.arrow'), path.join(offline, 'detections.arrow'));
    sameBoxes(path.join(out, 'tracks.arrow'), path.join(offline, 'tracks.arrow'));
  }, 400_000);

  it('a slow stage holds the replay back (high-water marks, blocking sends) instead of queueing every frame', async () => {
    const out = path.join(tmp, 'slow');
    const delayS = 0.25;
    const run = startPipeline([
      ...['--log', logDir, '--stages', 'discover', '--out', out, '--hwm', '1'],
      ...['--stage-delay-ms', String(delayS * 1000)],
    ]);
    expect(await run.exit).toBe(0);
    const r = readRun(out);
    const replay = r.processes.find((p) => p.id === 'discover/replay')!;
    const first = r.branches[0].first_frame_s!;
    // Frames that can sit between the replay and the stage's work: a send and a receive queue of one, the
    // kernel's socket buffer, the frame in hand and the end marker — 8 is generous. Without back-pressure
    // the replay would be done before the first frame is recorded; with it, it ends only once the stage
    // has worked through all but those.
    expect(replay.ended_at_s! - first).toBeGreaterThanOrEqual((FRAMES - 8 - 1) * delayS);
    for (const p of r.processes) expect(p.peak_rss_mb).toBeGreaterThan(10);
  }, 400_000);

  it('SIGINT stops every stage process, removes its sockets and exits 130', async () => {
    const out = path.join(tmp, 'interrupted');
    const run = startPipeline([
      '--log',
      logDir,
      '--stages',
      'discover',
      '--out',
      out,
      '--stage-delay-ms',
      '500',
    ]);
    const started = new Promise<void>((resolve) =>
      run.onLine((l) => {
        if (/discover\/replay started/.test(l)) resolve();
      }),
    );
    await started;
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(130);
    const sockets = /stage listens on ipc:\/\/(\S+)\/discover-in\.sock/.exec(run.lines.join('\n'))![1];
    expect(fs.existsSync(sockets)).toBe(false);
    for (const id of ['discover/replay', 'discover/discover', 'discover/record-boxes']) {
      const pid = lastPid(run.lines, id)!;
      expect(() => process.kill(pid, 0)).toThrow();
    }
    expect(fs.existsSync(path.join(out, 'detections.arrow'))).toBe(false);
  }, 120_000);
});
