// `drivekit pipeline` beyond the box stages, as real processes: the chain replay → tokenize → forecast →
// record-tokens writes `drivekit tokenize`'s tokens.arrow; the viewer feed carries frames and box sets.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchToTokens } from '../../../core/arrow/codec.ts';
import { parseArrowFile } from '../../../core/arrow/ipc.ts';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { TUNED_MALLOC_ENV } from '../../../core/mallocEnv.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import type { PipelineRun } from '../../../tools/commands/pipeline.ts';
import { openLiveSource } from '../../../tools/viewer/liveSource.ts';
import type { LiveEvent } from '../../../tools/viewer/viewerSource.ts';
import { readForecastFile } from '../../../worldmodel/forecastFile.ts';
import { castSequence } from '../../perception/scene.ts';
import { drivekit } from '../commands/castLog.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-pipeline-wm-'));
const logDir = path.join(tmp, 'log');
const offline = path.join(tmp, 'offline');
const FRAMES = 9;
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A short log: a moving car, the ego at 5 m/s, a 32-beam sensor out to 30 m, 10 Hz. */
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
    objects: [{ cx: 12, cy: 4, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 0, vx: 6, vy: 0 }],
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

const readTokensFile = (file: string) => {
  const { schema, batches } = parseArrowFile(fs.readFileSync(file), file);
  return { meta: Object.fromEntries(schema.metadata), grids: batches.flatMap((b) => batchToTokens(b)) };
};

const readRun = (out: string) =>
  JSON.parse(fs.readFileSync(path.join(out, 'pipeline.json'), 'utf8')) as PipelineRun;

beforeAll(async () => {
  await writeLog(logDir);
  fs.cpSync(logDir, offline, { recursive: true });
  await drivekit('tokenize', '--log', offline, '--json');
}, 300_000);

describe('drivekit pipeline: the world-model chain and the viewer feed', () => {
  it('replay → tokenize → forecast → record-tokens writes drivekit tokenize’s tokens and one forecast per frame with enough past', async () => {
    const out = path.join(tmp, 'wm');
    // The config form; one denoising step keeps the forecast cheap.
    const config = path.join(tmp, 'wm.json');
    fs.writeFileSync(
      config,
      JSON.stringify({ log: logDir, stages: ['forecast'], out, stageArgs: { forecast: ['--steps', '1'] } }),
    );
    await drivekit('pipeline', '--config', config, '--json');
    const run = readRun(out);
    expect(run.branches.map((b) => [b.stage, b.complete, b.frames_recorded])).toEqual([
      ['tokenize,forecast', true, FRAMES],
    ]);
    // Four processes in the chain, each started once.
    const exits = JSON.stringify(run.processes.map((p) => [p.id, p.exits]));
    expect(
      run.processes.map((p) => [p.id, p.starts]),
      exits,
    ).toEqual([
      ['tokenize,forecast/replay', 1],
      ['tokenize,forecast/tokenize', 1],
      ['tokenize,forecast/forecast', 1],
      ['tokenize,forecast/record-tokens', 1],
    ]);
    const piped = readTokensFile(path.join(out, 'tokens.arrow'));
    const ref = readTokensFile(path.join(offline, 'tokens.arrow'));
    expect(piped.meta).toEqual(ref.meta);
    expect(piped.grids.map((g) => g.frameIndex)).toEqual(ref.grids.map((g) => g.frameIndex));
    piped.grids.forEach((g, i) => {
      expect(Array.from(g.pose)).toEqual(Array.from(ref.grids[i].pose));
      expect(Array.from(g.tokens)).toEqual(Array.from(ref.grids[i].tokens));
    });
    // The shipped world model: 3 past frames 0.2 s apart, so at 10 Hz frames 4… have a forecast, 0.6 s ahead.
    const fc = readForecastFile(path.join(out, 'forecast.arrow'));
    expect(fc.records.map((r) => [r.startFrame, r.targetFrame])).toEqual(
      Array.from({ length: FRAMES - 4 }, (_, k) => [k + 4, k + 10]),
    );
    for (const r of fc.records) expect(r.points.x.length).toBeGreaterThan(1000);
    expect(fc.meta.log).toBe(path.resolve(logDir));
  }, 300_000);

  it('SIGKILL of the forecast stage mid-run: every frame once and in order, or the run names the missing frames within the watchdog time', async () => {
    const out = path.join(tmp, 'wm-killed');
    const config = path.join(tmp, 'wm-killed.json');
    // One message per hop and a slow stage, so the chain is mid-stream at the kill; a short watchdog and one
    // resend round bound the run if the chain stalls.
    const stallTimeoutS = 10;
    fs.writeFileSync(
      config,
      JSON.stringify({
        log: logDir,
        stages: ['forecast'],
        out,
        hwm: 1,
        stageDelayMs: 300,
        stallTimeoutS,
        maxRepairRounds: 1,
        stageArgs: { forecast: ['--steps', '1'] },
      }),
    );
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin/drivekit.js'), 'pipeline', '--config', config],
      { cwd: REPO_ROOT, env: { ...process.env, ...TUNED_MALLOC_ENV }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    let killed = false;
    let lastProgressMs = performance.now();
    let longestQuietS = 0;
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const now = performance.now();
      longestQuietS = Math.max(longestQuietS, (now - lastProgressMs) / 1000);
      lastProgressMs = now;
      if (killed || !/pipeline: \d+\/\d+ \((2[5-9]|[3-9]\d|100)%\)/.test(err)) return;
      const pid = /forecast\/forecast started \(pid (\d+)/.exec(err);
      process.kill(Number(pid![1]), 'SIGKILL');
      killed = true;
    });
    const code = await new Promise<number | string>((r) => child.on('exit', (c, sig) => r(sig ?? c ?? -1)));
    expect(killed, err).toBe(true);
    // Never silent: the supervisor says something (a frame, a restart, a resend) at least every watchdog period.
    expect(longestQuietS, err).toBeLessThan(stallTimeoutS + 20);
    const run = readRun(out);
    const b = run.branches[0];
    const fcProc = run.processes.find((p) => p.id === 'tokenize,forecast/forecast')!;
    expect(fcProc.exits).toContain('SIGKILL');
    if (code === 0) {
      expect(b).toMatchObject({ complete: true, frames_recorded: FRAMES, missing: [] });
      const piped = readTokensFile(path.join(out, 'tokens.arrow'));
      const ref = readTokensFile(path.join(offline, 'tokens.arrow'));
      expect(piped.grids.map((g) => g.frameIndex)).toEqual(ref.grids.map((g) => g.frameIndex));
      piped.grids.forEach((g, i) => expect(Array.from(g.tokens)).toEqual(Array.from(ref.grids[i].tokens)));
    } else {
      // The chain could not recover: exit 1 with the missing frames named, and why, in the summary.
      expect(code, err).toBe(1);
      expect(b.complete).toBe(false);
      expect(b.missing.length).toBeGreaterThan(0);
      expect(b.frames_recorded).toBe(FRAMES - b.missing.reduce((n, [a, z]) => n + z - a + 1, 0));
      expect(b.lost_because).toMatch(/still missing after 1 resend round/);
      expect(err).toMatch(/no progress for 10 s \(frames .+ not recorded\)/);
    }
  }, 400_000);

  it('the viewer feed carries the frames and each stage’s boxes (the viewer’s live mode receives both)', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const endpoint = `tcp://127.0.0.1:${port}`;
    const live = await openLiveSource(endpoint);
    const events: LiveEvent[] = [];
    live.subscribe!((e) => events.push(e));
    const out = path.join(tmp, 'viewer');
    try {
      // A slow replay (5 frames/s), so the subscription is in place before the frames go by.
      await drivekit(
        'pipeline',
        ...['--log', logDir, '--stages', 'discover', '--out', out, '--json'],
        ...['--viewer-endpoint', endpoint, '--rate', '5'],
      );
    } finally {
      await live.close();
    }
    const frames = events.filter((e) => e.type === 'frame');
    const boxes = events.filter((e) => e.type === 'boxes');
    expect(frames.length).toBeGreaterThan(0);
    expect(boxes.length).toBeGreaterThan(0);
    expect(new Set(boxes.map((e) => (e as { set: string }).set))).toEqual(new Set(['discover']));
    expect(readRun(out).branches[0].complete).toBe(true);
  }, 300_000);
});
