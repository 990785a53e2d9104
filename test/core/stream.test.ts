// core/stream in one process with real ZeroMQ sockets: endpoints and the bind policy, the message
// codec (zero-copy, misaligned frames, malformed input), the stage runner, shutdown, and CURVE.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecordBatch } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Pull, Push } from 'zeromq';
import {
  batchToSensorFrame,
  boxesToBatch,
  pointCloudToBatch,
  sensorFrameToBatch,
} from '../../core/arrow/codec.ts';
import { allocatePointCloud, boxesFromRows, type SensorFrame } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { generateKeyPair } from '../../core/stream/curve.ts';
import { checkBindPolicy, isLoopbackUrl, parseEndpoint } from '../../core/stream/endpoint.ts';
import {
  EOS_TOPIC,
  encodeBatchBytes,
  eosMessage,
  parseMessage,
  batchMessage,
} from '../../core/stream/message.ts';
import { DEFAULT_SOCKET_CONFIG, openInput, openOutput } from '../../core/stream/sockets.ts';
import { runStage } from '../../core/stream/stageRunner.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stream-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let sockN = 0;
const ipc = () => `ipc://${dir}/s${sockN++}.sock`;

function randomFrame(index: number, n: number): SensorFrame {
  const p = allocatePointCloud(n);
  for (let k = 0; k < n; k++) {
    p.x[k] = Math.random() * 80 - 40;
    p.y[k] = Math.random() * 80 - 40;
    p.z[k] = Math.random() * 4 - 2;
    p.intensity[k] = Math.random();
    p.ring[k] = k % 64;
    p.tOffset[k] = (k / n) * 0.1;
  }
  return {
    logId: 'unit',
    frameIndex: index,
    timestampNs: 1_700_000_000_000_000_000n + BigInt(index) * 100_000_000n,
    pose: poseFromTranslationYaw(index, -index, 0.5, 0.01 * index),
    points: p,
  };
}

const silent = () => {};

describe('stream endpoints', () => {
  it('parses socket type and bind/connect prefixes with side defaults', () => {
    expect(parseEndpoint('ipc:///tmp/a.sock', 'in')).toEqual({
      kind: 'pull',
      mode: 'connect',
      url: 'ipc:///tmp/a.sock',
    });
    expect(parseEndpoint('tcp://127.0.0.1:5555', 'out')).toEqual({
      kind: 'push',
      mode: 'bind',
      url: 'tcp://127.0.0.1:5555',
    });
    expect(parseEndpoint('sub:bind:tcp://127.0.0.1:*', 'in')).toEqual({
      kind: 'sub',
      mode: 'bind',
      url: 'tcp://127.0.0.1:*',
    });
    expect(parseEndpoint('connect:pub:ipc:///x', 'out')).toEqual({
      kind: 'pub',
      mode: 'connect',
      url: 'ipc:///x',
    });
  });

  it('rejects wrong socket types for a side and malformed URLs', () => {
    expect(() => parseEndpoint('push:ipc:///x', 'in')).toThrow(/cannot be an input/);
    expect(() => parseEndpoint('sub:ipc:///x', 'out')).toThrow(/cannot be an output/);
    expect(() => parseEndpoint('http://x', 'in')).toThrow(/not a ZeroMQ URL/);
    expect(() => parseEndpoint('tcp://127.0.0.1', 'in')).toThrow(/host:port/);
    expect(() => parseEndpoint('tcp://127.0.0.1:70000', 'in')).toThrow(/port/);
    expect(() => parseEndpoint(`ipc:///${'a'.repeat(120)}`, 'in')).toThrow(/longer than/);
  });

  it('binds loopback only unless remote binds are allowed', () => {
    for (const url of [
      'tcp://127.0.0.1:1',
      'tcp://127.3.2.1:1',
      'tcp://localhost:1',
      'tcp://[::1]:1',
      'ipc:///x',
    ]) {
      expect(isLoopbackUrl(url)).toBe(true);
    }
    for (const url of ['tcp://0.0.0.0:1', 'tcp://*:1', 'tcp://10.0.0.5:1', 'tcp://eth0:1']) {
      expect(isLoopbackUrl(url)).toBe(false);
    }
    const wide = parseEndpoint('tcp://0.0.0.0:5555', 'out');
    expect(() => checkBindPolicy(wide, false)).toThrow(/non-loopback/);
    expect(() => checkBindPolicy(wide, true)).not.toThrow();
    // Connecting to another machine is not a bind: allowed.
    expect(() => checkBindPolicy(parseEndpoint('tcp://10.0.0.5:5555', 'in'), false)).not.toThrow();
  });

  it('refuses to open a socket on a non-loopback bind', async () => {
    await expect(
      openOutput(parseEndpoint('tcp://0.0.0.0:*', 'out'), { ...DEFAULT_SOCKET_CONFIG }),
    ).rejects.toThrow(/non-loopback/);
  });
});

describe('stream messages', () => {
  it('round-trips a SensorFrame and decodes it as views of the received bytes', () => {
    const frame = randomFrame(4, 500);
    const [topic, bytes] = batchMessage('frames', sensorFrameToBatch(frame));
    const msg = parseMessage([Buffer.from(topic), bytes], 'sensorFrame');
    expect(msg.type).toBe('batch');
    if (msg.type !== 'batch') return;
    expect(msg.topic).toBe('frames');
    const back = batchToSensorFrame(msg.batch);
    expect(back.points.x).toEqual(frame.points.x);
    expect(back.points.ring).toEqual(frame.points.ring);
    expect(back.points.tOffset).toEqual(frame.points.tOffset);
    expect(back.pose).toEqual(frame.pose);
    expect(back.timestampNs).toBe(frame.timestampNs);
    expect(back.frameIndex).toBe(4);
    expect(back.points.x.buffer).toBe(bytes.buffer); // zero-copy decode
  });

  it('decodes a frame delivered at a misaligned address', () => {
    const frame = randomFrame(1, 101);
    const bytes = encodeBatchBytes(sensorFrameToBatch(frame));
    const shifted = Buffer.alloc(bytes.length + 3);
    bytes.copy(shifted, 3);
    const msg = parseMessage([Buffer.from('frames'), shifted.subarray(3)], 'sensorFrame');
    expect(msg.type).toBe('batch');
    if (msg.type === 'batch') expect(batchToSensorFrame(msg.batch).points.y).toEqual(frame.points.y);
  });

  it('classifies malformed messages without throwing', () => {
    const good = encodeBatchBytes(sensorFrameToBatch(randomFrame(0, 10)));
    const boxes = encodeBatchBytes(
      boxesToBatch(
        boxesFromRows([{ frameIndex: 0, cx: 1, cy: 2, cz: 0, length: 4, width: 2, height: 1.5, yaw: 0 }]),
      ),
    );
    const t = Buffer.from('frames');
    const kind = (frames: Buffer[]) => {
      const m = parseMessage(frames, 'sensorFrame');
      return m.type === 'malformed' ? m.kind : m.type;
    };
    expect(kind([good])).toBe('frame-count');
    expect(kind([t, good, good])).toBe('frame-count');
    expect(kind([t, Buffer.from('definitely not arrow')])).toBe('not-arrow');
    expect(kind([t, Buffer.alloc(0)])).toBe('not-arrow');
    expect(kind([t, good.subarray(0, good.length - 100)])).toBe('not-arrow');
    expect(kind([t, Buffer.alloc(4096, 0xff)])).toBe('not-arrow');
    expect(kind([t, boxes])).toBe('wrong-schema');
    expect(kind([t, good])).toBe('batch');
    // Without an expected kind, any Arrow batch passes.
    expect(parseMessage([t, boxes]).type).toBe('batch');
  });

  it('marks end-of-stream with the number of messages sent; a malformed marker is not an end', () => {
    const [topic, body] = eosMessage('frames', 12);
    expect(topic).toBe(EOS_TOPIC);
    const m = parseMessage([Buffer.from(topic), Buffer.from(body)]);
    expect(m).toEqual({ type: 'eos', eos: { topic: 'frames', messages: 12, complete: true } });
    const early = eosMessage('frames', 3, { complete: false, logId: 'a', start: 0, end: 8 });
    expect(parseMessage(early.map((f) => Buffer.from(f)))).toEqual({
      type: 'eos',
      eos: { topic: 'frames', messages: 3, complete: false, logId: 'a', start: 0, end: 8 },
    });
    // A marker from before `complete` existed still ends a stream.
    expect(parseMessage([Buffer.from(EOS_TOPIC), Buffer.from('{"topic":"t","messages":2}')])).toMatchObject({
      type: 'eos',
      eos: { complete: true },
    });
    const bad = (payload: string) => parseMessage([Buffer.from(EOS_TOPIC), Buffer.from(payload)]);
    for (const payload of [
      '?',
      'not json',
      '[]',
      '{"messages":3}',
      '{"topic":"t","messages":-1}',
      '{"topic":"t","messages":1.5}',
      '{"topic":"t","messages":2,"complete":"yes"}',
      '{"topic":"t","messages":2,"start":5,"end":3}',
    ]) {
      expect(bad(payload), payload).toMatchObject({ type: 'malformed', kind: 'bad-eos' });
    }
  });
});

/** Receive every message on a raw PULL until end-of-stream. */
async function drain(pull: Pull): Promise<{ batches: RecordBatch[]; eos: number | null }> {
  const batches: RecordBatch[] = [];
  for (;;) {
    const m = parseMessage(await pull.receive());
    if (m.type === 'eos') return { batches, eos: m.eos.messages };
    if (m.type === 'batch') batches.push(m.batch);
  }
}

describe('stage runner', () => {
  it('transforms, counts and forwards end-of-stream; malformed messages are skipped', async () => {
    const inUrl = ipc();
    const outUrl = ipc();
    const upstream = new Push({ linger: 0 });
    await upstream.bind(inUrl);
    const sink = new Pull({ linger: 0 });
    const logged: string[] = [];
    const stage = runStage({
      name: 'unit',
      input: { endpoint: parseEndpoint(inUrl, 'in'), kind: 'sensorFrame' },
      output: { endpoint: parseEndpoint(outUrl, 'out'), topic: 'cropped' },
      log: (l) => logged.push(l),
      // Keep points with x > 0 and drop every third frame.
      transform: (batch, ctx) => {
        if (ctx.index % 3 === 2) return null;
        const f = batchToSensorFrame(batch);
        const keep: number[] = [];
        for (let i = 0; i < f.points.x.length; i++) if (f.points.x[i] > 0) keep.push(i);
        const p = allocatePointCloud(keep.length);
        keep.forEach((i, k) => (p.x[k] = f.points.x[i]));
        return pointCloudToBatch(p, { frame_index: String(f.frameIndex) });
      },
    });
    sink.connect(outUrl);
    const frames = Array.from({ length: 6 }, (_, i) => randomFrame(i, 200));
    await upstream.send([Buffer.from('garbage')]);
    await upstream.send(['frames', 'not arrow at all']);
    await upstream.send(['frames', 'not arrow either']);
    for (const f of frames) await upstream.send(batchMessage('frames', sensorFrameToBatch(f)));
    await upstream.send(eosMessage('frames', frames.length));
    const { batches, eos } = await drain(sink);
    const result = await stage;

    expect(result.stoppedBy).toBe('eos');
    expect(result.counters.in).toBe(6);
    expect(result.counters.dropped).toBe(2);
    expect(result.counters.out).toBe(4);
    expect(result.counters.malformed['frame-count']).toBe(1);
    expect(result.counters.malformed['not-arrow']).toBe(2);
    expect(result.eosSent).toBe(true);
    expect(eos).toBe(4);
    // Logged once per kind of problem, not once per message.
    expect(logged.filter((l) => l.includes('not-arrow'))).toHaveLength(1);
    const kept = [0, 1, 3, 4];
    expect(batches.map((b) => Number(b.schema.metadata.get('frame_index')))).toEqual(kept);
    batches.forEach((b, k) => {
      const x = b.getChild('x')!.toArray() as Float32Array;
      expect(Array.from(x)).toEqual(Array.from(frames[kept[k]].points.x).filter((v) => v > 0));
    });
    upstream.close();
    sink.close();
  });

  it('forwards a batch passed through unchanged byte for byte', async () => {
    const inUrl = ipc();
    const outUrl = ipc();
    const upstream = new Push({ linger: 0 });
    await upstream.bind(inUrl);
    const sink = new Pull({ linger: 0 });
    const stage = runStage({
      name: 'relay',
      input: { endpoint: parseEndpoint(inUrl, 'in') },
      output: { endpoint: parseEndpoint(outUrl, 'out'), topic: 'frames' },
      log: silent,
    });
    sink.connect(outUrl);
    const sent = [0, 1, 2].map((i) => encodeBatchBytes(sensorFrameToBatch(randomFrame(i, 64 + i))));
    for (const bytes of sent) await upstream.send(['frames', bytes]);
    await upstream.send(eosMessage('frames', 3));
    for (const bytes of sent) {
      const [topic, body] = await sink.receive();
      expect(topic.toString()).toBe('frames');
      expect(body.equals(bytes)).toBe(true);
    }
    expect((await stage).counters.out).toBe(3);
    upstream.close();
    sink.close();
  });

  it('stops on abort while waiting for input, and bounds a blocked send by the drain time', async () => {
    const ac = new AbortController();
    const waiting = runStage({
      name: 'idle',
      input: { endpoint: parseEndpoint(ipc(), 'in') },
      signal: ac.signal,
      log: silent,
    });
    await sleep(50);
    ac.abort();
    const r1 = await waiting;
    expect(r1.stoppedBy).toBe('signal');
    expect(r1.counters.in).toBe(0);

    // A source whose output has no peer: the first send blocks (PUSH waits for a peer) until the drain
    // deadline after abort, then the stage closes anyway.
    const ac2 = new AbortController();
    const batch = sensorFrameToBatch(randomFrame(0, 10));
    const started = Date.now();
    const blocked = runStage({
      name: 'blocked',
      source: async function* () {
        yield batch;
        yield batch;
      },
      output: { endpoint: parseEndpoint(ipc(), 'out'), topic: 'frames' },
      signal: ac2.signal,
      drainMs: 200,
      sockets: { lingerMs: 0 },
      log: silent,
    });
    await sleep(100);
    ac2.abort();
    const r2 = await blocked;
    expect(r2.stoppedBy).toBe('signal');
    expect(r2.counters.out).toBe(0);
    expect(r2.unsent).toBe(1);
    expect(r2.eosSent).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('delivers over CURVE to a client with the server key, and nothing to one with a wrong key', async () => {
    const server = generateKeyPair();
    const batch = sensorFrameToBatch(randomFrame(9, 50));
    const out = await openOutput(parseEndpoint('tcp://127.0.0.1:*', 'out'), {
      ...DEFAULT_SOCKET_CONFIG,
      lingerMs: 0,
      curve: { keyPair: server },
    });
    expect(out.address).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const warnings: string[] = [];
    const wrong = await openInput(parseEndpoint(out.address, 'in'), {
      ...DEFAULT_SOCKET_CONFIG,
      lingerMs: 0,
      curve: { serverKey: generateKeyPair().publicKey },
      warn: (l) => warnings.push(l),
    });
    const plain = await openInput(parseEndpoint(out.address, 'in'), {
      ...DEFAULT_SOCKET_CONFIG,
      lingerMs: 0,
    });
    const right = await openInput(parseEndpoint(out.address, 'in'), {
      ...DEFAULT_SOCKET_CONFIG,
      lingerMs: 0,
      curve: { serverKey: server.publicKey },
    });
    // PUSH only hands messages to peers whose handshake succeeded: all go to the right client.
    for (let i = 0; i < 3; i++) await out.socket.send(batchMessage('frames', batch));
    for (let i = 0; i < 3; i++) {
      const m = parseMessage(await right.socket.receive(), 'sensorFrame');
      expect(m.type).toBe('batch');
      if (m.type === 'batch') expect(batchToSensorFrame(m.batch).frameIndex).toBe(9);
    }
    for (const s of [wrong.socket, plain.socket]) {
      s.receiveTimeout = 300;
      await expect(s.receive()).rejects.toMatchObject({ code: 'EAGAIN' });
    }
    for (const s of [out.socket, wrong.socket, plain.socket, right.socket]) s.close();
  });
});
