// A recorder trusts no peer (real processes, real ZeroMQ sockets): a fake $eos with a count that does not
// match ends nothing, a foreign log_id sent first cannot take over the source, a recorder that gets nothing
// valid fails after --timeout-s, the source must be named, and a frame over the size bound is never taken.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Push } from 'zeromq';
import { sensorFrameToBatch } from '../../../core/arrow/codec.ts';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { batchMessage, eosMessage } from '../../../core/stream/message.ts';
import { MAX_MESSAGE_BYTES } from '../../../core/stream/sockets.ts';
import { LogReader, LogWriter } from '../../../datasets/logstore.ts';

const BIN = path.join(REPO_ROOT, 'bin/drivekit.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-rec-trust-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Proc {
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
  waitFor: (re: RegExp) => Promise<void>;
}
const running: ChildProcess[] = [];
const sockets: Push[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of sockets.splice(0)) s.close();
});

function drivekit(args: string[]): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (re: RegExp) => {
    for (let waited = 0; !re.test(err); waited += 50) {
      if (child.exitCode !== null || waited > 60_000) throw new Error(`stderr never matched ${re}:\n${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { stdout: () => out, stderr: () => err, exit, waitFor };
}

const summary = (p: Proc) => JSON.parse(p.stdout().trim().split('\n').pop()!) as Record<string, unknown>;
const source = path.join(tmp, 'source');
const sock = (name: string) => `ipc://${tmp}/${name}.sock`;

beforeAll(async () => {
  const w = LogWriter.create(source, { source: 'test', rateHz: 10 });
  for (let i = 0; i < 4; i++) {
    const p = allocatePointCloud(500);
    for (let k = 0; k < 500; k++) p.x[k] = k * 0.1 + i;
    w.appendFrame({
      timestampNs: BigInt(i) * 100_000_000n,
      pose: poseFromTranslationYaw(i, 0, 0, 0),
      points: p,
    });
  }
  await w.close();
});

/** A recorder bound at `url` for source 'source', and a raw PUSH connected to it. */
async function recorderWithPeer(name: string, more: string[] = []) {
  const url = sock(name);
  const out = path.join(tmp, name);
  const record = drivekit(['stage', 'record', '--in', `bind:${url}`, '--out', out, '--json'].concat(more));
  await record.waitFor(/record: input/);
  const push = new Push({ linger: 2000 });
  sockets.push(push);
  push.connect(url);
  const log = await LogReader.open(source);
  const frame = async (i: number, logId = log.meta.logId) =>
    push.send(batchMessage('frames', sensorFrameToBatch({ ...(await log.readFrame(i)), logId })));
  return { record, out, push, frame, url, close: () => log.close() };
}

describe('drivekit stage record trusts no peer', () => {
  it('fake $eos: a marker of 0 messages ends neither an empty recording nor one that received frames', async () => {
    // Nothing received: the fake end is ignored, and the recorder fails at its deadline, writing nothing.
    const a = await recorderWithPeer('fake-eos-empty', ['--source-log-id', 'source', '--timeout-s', '3']);
    await a.push.send(eosMessage('frames', 0, { logId: 'source', start: 0, end: 0 }));
    expect(await a.record.exit).toBe(1);
    expect(a.record.stderr()).toMatch(/ignored an end-of-stream .*no frame of the source has come/);
    expect(a.record.stderr()).toMatch(/no frame of source source within 3 s/);
    expect(fs.existsSync(a.out)).toBe(false);
    await a.close();

    // Two frames received: a marker claiming 0 (or 1) is no end; the sender's true marker (3) is.
    const b = await recorderWithPeer('fake-eos-count', ['--source-log-id', 'source']);
    await b.frame(0);
    await b.frame(1);
    await b.push.send(eosMessage('frames', 0, { logId: 'source' }));
    await b.push.send(eosMessage('frames', 1, { logId: 'source' }));
    await b.frame(2);
    await b.push.send(eosMessage('frames', 3, { logId: 'source', start: 0, end: 3 }));
    expect(await b.record.exit).toBe(0);
    expect(b.record.stderr()).toMatch(/it says 0 message\(s\), 2 of the source arrived/);
    expect(summary(b.record)).toMatchObject({ frames: 3, missing: [], complete: true, eos_received: 3 });
    await b.close();
  });

  it('foreign-first: a frame of another log sent first does not take over the source', async () => {
    const r = await recorderWithPeer('foreign-first', ['--source-log-id', 'source']);
    await r.frame(0, 'intruder');
    await r.push.send(eosMessage('frames', 1, { logId: 'intruder' }));
    for (let i = 0; i < 4; i++) await r.frame(i);
    await r.push.send(eosMessage('frames', 4, { logId: 'source', start: 0, end: 4 }));
    expect(await r.record.exit).toBe(0);
    expect(summary(r.record)).toMatchObject({ frames: 4, refused: 1, source_log_id: 'source', missing: [] });
    const rec = await LogReader.open(r.out);
    expect(rec.frameCount).toBe(4);
    await rec.close();
    await r.close();
  });

  it('a recorder that gets only foreign frames fails after --timeout-s with exit 1, nothing written', async () => {
    const r = await recorderWithPeer('only-foreign', ['--source-log-id', 'source', '--timeout-s', '3']);
    await r.frame(0, 'intruder');
    await r.frame(1, 'intruder');
    expect(await r.record.exit).toBe(1);
    expect(r.record.stderr()).toMatch(
      /^drivekit stage: no frame of source source within 3 s \(--timeout-s\)/m,
    );
    expect(fs.existsSync(r.out)).toBe(false);
    await r.close();
  });

  it('the source is fixed by the command: without --source-log-id (and no CURVE server) it is a usage error', () => {
    for (const stage of ['record', 'record-boxes', 'record-tokens']) {
      const out = path.join(tmp, `no-source-${stage}${stage === 'record' ? '' : '.arrow'}`);
      const r = spawnSync(process.execPath, [BIN, 'stage', stage, '--in', sock('unused'), '--out', out], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, stage).toBe(2);
      expect(r.stderr).toMatch(/--source-log-id: is required/);
    }
  });

  it(`a frame over ${MAX_MESSAGE_BYTES} bytes is refused by the socket, never buffered or decoded`, async () => {
    const r = await recorderWithPeer('oversize', ['--source-log-id', 'source']);
    // The attacker's own connection: ZeroMQ drops it at the frame header, so its messages go nowhere.
    const attacker = new Push({ linger: 0, sendTimeout: 5000 });
    sockets.push(attacker);
    attacker.connect(r.url);
    await attacker.send(['frames', Buffer.alloc(MAX_MESSAGE_BYTES + 1, 1)]);
    // Time for the frame to cross (well under a second over ipc) before the real stream ends.
    await new Promise((r) => setTimeout(r, 2000));
    for (let i = 0; i < 2; i++) await r.frame(i);
    await r.push.send(eosMessage('frames', 2, { logId: 'source', start: 0, end: 2 }));
    expect(await r.record.exit).toBe(0);
    const s = summary(r.record);
    // Decoded, the 105 MiB frame would be counted as not-arrow; it never reached the recorder.
    expect(s).toMatchObject({ frames: 2, malformed: { 'not-arrow': 0, 'frame-count': 0 } });
    await r.close();
  }, 60_000);
});
