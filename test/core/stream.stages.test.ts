// `drivekit stage replay/record/relay` as real processes over real ZeroMQ sockets: the recorded log
// equals the source frame by frame; bad messages are skipped; SIGTERM commits what was received;
// PUB/SUB (with CURVE) fans out to two subscribers.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Pull, Push } from 'zeromq';
import {
  batchToSensorFrame,
  boxesToBatch,
  pointCloudToBatch,
  sensorFrameToBatch,
} from '../../core/arrow/codec.ts';
import { allocatePointCloud, boxesFromRows, type SensorFrame } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { generateKeyPair, writeKeyFile } from '../../core/stream/curve.ts';
import { batchMessage, eosMessage, parseMessage } from '../../core/stream/message.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stages-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: string | null }>;
  /** Resolves when stderr matches. */
  waitFor: (re: RegExp) => Promise<RegExpMatchArray>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  // A failed test must not leave stages behind.
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function drivekit(args: string[]): Proc {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/drivekit.js'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => {
    err += d;
    for (const w of waiters.splice(0)) {
      const m = err.match(w.re);
      if (m) w.resolve(m);
      else waiters.push(w);
    }
  });
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const m = err.match(re);
        if (m) return resolve(m);
        waiters.push({ re, resolve });
        exit.then(() => reject(new Error(`process exited before stderr matched ${re}:\n${err}`)));
      }),
  };
}

async function finished(p: Proc): Promise<Record<string, unknown>> {
  const { code, signal } = await p.exit;
  expect({ code, signal, stderr: code === 0 ? '' : p.stderr() }).toEqual({
    code: 0,
    signal: null,
    stderr: '',
  });
  return JSON.parse(p.stdout().trim().split('\n').pop()!) as Record<string, unknown>;
}

/** A tcp port nobody listens on right now (so every process can start at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A source log of random sweeps of varying size (the dataset readers are not needed here). */
async function makeLog(dir: string, frames: number, points: number): Promise<void> {
  const w = LogWriter.create(dir, { source: 'test', rateHz: 10 });
  for (let i = 0; i < frames; i++) {
    const n = points + 37 * i;
    const p = allocatePointCloud(n);
    for (let k = 0; k < n; k++) {
      p.x[k] = Math.random() * 100 - 50;
      p.y[k] = Math.random() * 100 - 50;
      p.z[k] = Math.random() * 5 - 2;
      p.intensity[k] = Math.random();
      p.ring[k] = (k * 7) % 64;
      p.tOffset[k] = Math.random() * 0.1;
    }
    w.appendFrame({
      timestampNs: 1_600_000_000_123_456_789n + BigInt(i) * 100_000_000n,
      pose: poseFromTranslationYaw(3 * i + 0.25, -i, 0.1, 0.05 * i),
      points: p,
    });
  }
  await w.close();
}

/** The recorded log's frames equal the source's frames `from, from+1, …`: points, poses, timestamps. */
async function expectSameFrames(recorded: string, source: string, from = 0): Promise<number> {
  const a = await LogReader.open(recorded);
  const b = await LogReader.open(source);
  try {
    expect(a.frameCount).toBeGreaterThan(0);
    for (let i = 0; i < a.frameCount; i++) {
      const fa = await a.readFrame(i);
      const fb = await b.readFrame(from + i);
      for (const key of ['x', 'y', 'z', 'intensity', 'ring', 'tOffset'] as const) {
        expect(fa.points[key], `frame ${i} ${key}`).toEqual(fb.points[key]);
      }
      // The pose travels as JSON metadata, which writes −0 as 0: compare as numbers (+0 folds −0).
      expect(Array.from(fa.pose, (v) => v + 0)).toEqual(Array.from(fb.pose, (v) => v + 0));
      expect(fa.timestampNs).toBe(fb.timestampNs);
    }
    expect((a.meta.extra.sourceFrameIndex as number[])[0]).toBe(from);
    expect(a.meta.extra.sourceLogId).toBe(b.meta.logId);
    return a.frameCount;
  } finally {
    await a.close();
    await b.close();
  }
}

const source = path.join(tmp, 'source');
/** The source log id, fixed by the command (a log's id is its directory name). */
const src = ['--source-log-id', 'source'];
const sock = (name: string) => `ipc://${tmp}/${name}.sock`;
beforeAll(() => makeLog(source, 8, 3000));

describe('drivekit stage (processes)', () => {
  it('replay → record over ipc:// reproduces the log frame by frame', async () => {
    const url = sock('pipe');
    const record = drivekit([
      'stage',
      'record',
      '--in',
      url,
      '--out',
      path.join(tmp, 'rec'),
      ...src,
      '--json',
    ]);
    const replay = drivekit(['stage', 'replay', '--log', source, '--out', url, '--rate', '0', '--json']);
    const sent = await finished(replay);
    const got = await finished(record);
    expect(sent).toMatchObject({ frames: 8, eos_sent: true, stopped_by: 'source-end' });
    expect(got).toMatchObject({ frames: 8, gaps: 0, sent: 8, stopped_by: 'eos' });
    expect(await expectSameFrames(path.join(tmp, 'rec'), source)).toBe(8);
  });

  it('counts and skips malformed messages from a raw socket and keeps recording', async () => {
    const url = sock('bad');
    const out = path.join(tmp, 'rec-bad');
    // The recorder binds; a raw PUSH connects and sends junk between good frames.
    const record = drivekit(['stage', 'record', '--in', `bind:${url}`, '--out', out, ...src, '--json']);
    await record.waitFor(/record: input/);
    const push = new Push({ linger: 2000 });
    push.connect(url);
    const log = await LogReader.open(source);
    const good = async (i: number) =>
      push.send(batchMessage('frames', sensorFrameToBatch(await log.readFrame(i))));
    const boxes = boxesToBatch(
      boxesFromRows([{ frameIndex: 0, cx: 1, cy: 1, cz: 0, length: 4, width: 2, height: 1, yaw: 0 }]),
    );
    await good(0);
    await push.send([Buffer.from('one frame only')]);
    await push.send(['frames', 'these bytes are not Arrow']);
    await push.send(['frames', Buffer.alloc(5000, 0xff)]);
    await good(1);
    await push.send(batchMessage('frames', boxes)); // Arrow, wrong schema
    await push.send(batchMessage('frames', pointCloudToBatch(allocatePointCloud(5)))); // no frame metadata
    await good(2);
    await push.send(eosMessage('frames', 3));
    const got = await finished(record);
    push.close();
    await log.close();
    expect(got).toMatchObject({
      frames: 3,
      malformed: { 'frame-count': 1, 'not-arrow': 2, 'wrong-schema': 2, 'transform-failed': 0 },
      stopped_by: 'eos',
    });
    const err = record.stderr();
    expect(err.match(/skipped a message \(not-arrow/g)).toHaveLength(1);
    expect(err.match(/skipped a message \(wrong-schema/g)).toHaveLength(1);
    expect(await expectSameFrames(out, source)).toBe(3);
  });

  it('SIGTERM mid-stream leaves a valid log with the frames received so far; both stages exit 0', async () => {
    const url = sock('term');
    const out = path.join(tmp, 'rec-term');
    const record = drivekit([
      'stage',
      'record',
      '--in',
      url,
      '--out',
      out,
      ...src,
      '--report-every',
      '2',
      '--json',
    ]);
    // 8 frames at 2 Hz: 4 s of stream, so the signal (after 2 frames) lands mid-way.
    const replay = drivekit([
      'stage',
      'replay',
      '--log',
      source,
      '--out',
      url,
      '--rate',
      '2',
      '--drain-ms',
      '300',
    ]);
    await record.waitFor(/record: 2 frames/);
    record.child.kill('SIGTERM');
    const got = await finished(record);
    expect(got.stopped_by).toBe('signal');
    const frames = got.frames as number;
    expect(frames).toBeGreaterThanOrEqual(2);
    expect(frames).toBeLessThan(8);
    expect(await expectSameFrames(out, source)).toBe(frames);
    // The replay, now without a peer, stops on SIGTERM within its drain time.
    replay.child.kill('SIGTERM');
    expect(await replay.exit).toEqual({ code: 0, signal: null });
    expect(replay.stderr()).toMatch(/SIGTERM: stopping/);
  });

  it('PUB/SUB over CURVE-encrypted tcp fans out to two subscribers (a recorder and a relay)', async () => {
    const keys = path.join(tmp, 'server.json');
    const pair = generateKeyPair();
    writeKeyFile(keys, pair);
    const address = `tcp://127.0.0.1:${await freePort()}`;
    const relayUrl = sock('relay');
    const direct = path.join(tmp, 'rec-sub');
    // The recorder connects to the replay's CURVE server: its $bos names the source (no --source-log-id).
    const curveClient = ['--curve-server-key', pair.publicKey];
    const replay = drivekit(
      ['stage', 'replay', '--log', source, '--out', address, '--pattern', 'pub', '--subscribers', '2'].concat(
        ['--rate', '0', '--curve-keys', keys, '--json'],
      ),
    );
    const record = drivekit(
      ['stage', 'record', '--in', `sub:${address}`, '--out', direct, '--topic', 'frames'].concat([
        ...curveClient,
        '--json',
      ]),
    );
    // The relay takes the server key from the key file (its publicKey field).
    const relay = drivekit(
      ['stage', 'relay', '--in', `sub:${address}`, '--out', relayUrl, '--in-topic', 'frames'].concat([
        '--curve-server-key',
        keys,
        '--json',
      ]),
    );
    // The relay's output, read here with a raw PULL socket.
    const pull = new Pull({ linger: 0 });
    pull.connect(relayUrl);
    const relayed: SensorFrame[] = [];
    for (;;) {
      const m = parseMessage(await pull.receive(), 'sensorFrame');
      if (m.type === 'eos') break;
      if (m.type === 'batch') relayed.push(batchToSensorFrame(m.batch));
    }
    pull.close();
    expect(await finished(replay)).toMatchObject({ frames: 8, eos_sent: true });
    expect(await finished(record)).toMatchObject({ frames: 8, gaps: 0, stopped_by: 'eos' });
    expect(await finished(relay)).toMatchObject({ in: 8, out: 8, eos_sent: true });
    expect(await expectSameFrames(direct, source)).toBe(8);
    const log = await LogReader.open(source);
    expect(relayed.map((f) => f.frameIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const f of relayed) {
      const want = await log.readFrame(f.frameIndex);
      expect(f.points.x).toEqual(want.points.x);
      expect(f.points.ring).toEqual(want.points.ring);
      expect(f.timestampNs).toBe(want.timestampNs);
    }
    await log.close();
  });
});
