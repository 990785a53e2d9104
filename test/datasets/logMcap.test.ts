// A log exported as MCAP (`drivekit export --log … --format mcap`) reads back with @mcap/core's indexed
// reader: the Foxglove channels and protobuf schemas, one message per frame and topic, the same points.
import fs from 'node:fs';
import path from 'node:path';
import { McapIndexedReader, McapStreamReader, type McapTypes } from '@mcap/core';
import protobuf from 'protobufjs';
import 'protobufjs/ext/descriptor.js';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud, boxesFromRows, type BoxRow } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { poseQuaternion, unpackPoints } from '../../core/foxglove/messages.ts';
import { SYNTHETIC_EPOCH_NS } from '../../core/foxglove/mcapClock.ts';
import { lz4FrameDecompress } from '../../datasets/codecs/lz4.ts';
import { exportLogMcap } from '../../datasets/logMcap.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { exportTarget, runExport } from '../../tools/commands/export.ts';
import { tmpDir } from './tmp.ts';

const FRAMES = 4;

/** 4 frames of a moving grid of points; labels in frames 0, 2, 3, tracks in 0 and 1, no detections. */
async function makeLog(dir: string, startNs = 1_700_000_000_000_000_000n): Promise<void> {
  const w = LogWriter.create(dir, { source: 'synthetic' });
  for (let f = 0; f < FRAMES; f++) {
    const n = 100 + 30 * f;
    const p = allocatePointCloud(n);
    for (let k = 0; k < n; k++) {
      p.x[k] = (k % 20) + 0.25 * f;
      p.y[k] = Math.floor(k / 20) - 3.5;
      p.z[k] = 0.1 * (k % 3) - 1;
      p.intensity[k] = (k % 11) / 10;
      p.ring[k] = (k * 7) % 64;
    }
    w.appendFrame({
      timestampNs: startNs + 100_000_000n * BigInt(f),
      pose: poseFromTranslationYaw(2 * f, 1, 0, 0.3 * f),
      points: p,
    });
  }
  const box = (frameIndex: number, cx: number, extra: Partial<BoxRow> = {}): BoxRow => ({
    frameIndex,
    cx,
    cy: 0,
    cz: 0,
    length: 4,
    width: 2,
    height: 1.5,
    yaw: 0.2,
    ...extra,
  });
  w.setLabels(boxesFromRows([box(0, 5, { label: 'Car', trackId: 1 }), box(2, 9), box(3, 2), box(3, 7)]));
  w.setBoxes('tracks', boxesFromRows([box(0, 4, { trackId: 9 }), box(1, 4, { trackId: 9 })]));
  await w.close();
}

/** Chunks are lz4 (LZ4 frames): decoded by drivekit's reader of the format (checked against the lz4 tool's files). */
const decompressHandlers = { lz4: (b: Uint8Array) => lz4FrameDecompress(b) };

/** A random-access reader over a file (what McapIndexedReader needs). */
function fileReadable(file: string) {
  const fd = fs.openSync(file, 'r');
  return {
    readable: {
      size: async () => BigInt(fs.fstatSync(fd).size),
      read: async (offset: bigint, size: bigint) => {
        const b = new Uint8Array(Number(size));
        fs.readSync(fd, b, 0, b.length, Number(offset));
        return b;
      },
    },
    close: () => fs.closeSync(fd),
  };
}

describe('log export as MCAP (Foxglove protobuf schemas)', () => {
  it('writes PointCloud, FrameTransform and SceneUpdate channels that decode back to the log', async () => {
    const d = tmpDir('dk-mcap-');
    const logDir = path.join(d, 'log');
    await makeLog(logDir);
    const file = path.join(d, 'log.mcap');
    const r = await exportLogMcap(logDir, file);
    expect(fs.readdirSync(d).sort()).toEqual(['log', 'log.mcap']); // no temporary left
    expect(r.frames).toBe(FRAMES);
    expect(r.bytes).toBe(fs.statSync(file).size);

    const { readable, close } = fileReadable(file);
    try {
      const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
      const schemas = new Map([...reader.schemasById].map(([id, s]) => [id, s]));
      const channels = [...reader.channelsById.values()];
      const byTopic = new Map(channels.map((c) => [c.topic, c]));
      expect([...byTopic.keys()].sort()).toEqual(['/boxes/labels', '/boxes/tracks', '/lidar', '/tf']);
      const schemaOf = (topic: string) => schemas.get(byTopic.get(topic)!.schemaId)!;
      expect(schemaOf('/lidar').name).toBe('foxglove.PointCloud');
      expect(schemaOf('/tf').name).toBe('foxglove.FrameTransform');
      expect(schemaOf('/boxes/labels').name).toBe('foxglove.SceneUpdate');
      for (const c of channels) {
        expect(c.messageEncoding).toBe('protobuf');
        expect(schemas.get(c.schemaId)!.encoding).toBe('protobuf');
      }
      // The statistics count one message per frame and topic.
      const stats = reader.statistics!;
      expect(Number(stats.messageCount)).toBe(4 * FRAMES);
      for (const c of channels) expect(Number(stats.channelMessageCounts.get(c.id))).toBe(FRAMES);

      // Decode as Foxglove Studio does: the types from the schema's own FileDescriptorSet.
      const typeOf = (topic: string) => {
        const s = schemaOf(topic);
        const root = (
          protobuf.Root as unknown as { fromDescriptor(b: Uint8Array): protobuf.Root }
        ).fromDescriptor(s.data);
        return root.lookupType(s.name);
      };
      const decode = (topic: string, m: McapTypes.Message) =>
        typeOf(topic).toObject(typeOf(topic).decode(m.data), { longs: Number }) as Record<string, never>;

      const log = await LogReader.open(logDir);
      try {
        const lidar = [];
        for await (const m of reader.readMessages({ topics: ['/lidar'] })) lidar.push(m);
        expect(lidar.map((m) => m.logTime)).toEqual([...log.timestampsNs]);
        const pc = decode('/lidar', lidar[2]);
        expect(pc.frameId).toBe('vehicle');
        const fields = (pc.fields as { name: string }[]).map((f) => f.name);
        expect(fields).toEqual(['x', 'y', 'z', 'intensity', 'ring']);
        const pts = unpackPoints(pc.data as Uint8Array);
        const frame = await log.readFrame(2);
        expect(pts.x).toEqual(frame.points.x);
        expect(pts.y).toEqual(frame.points.y);
        expect(pts.z).toEqual(frame.points.z);
        expect(pts.intensity).toEqual(frame.points.intensity);
        expect(pts.ring).toEqual(frame.points.ring);
        const ts = pc.timestamp as { seconds: number; nanos: number };
        expect(BigInt(ts.seconds) * 1_000_000_000n + BigInt(ts.nanos)).toBe(log.timestampsNs[2]);

        const tf = [];
        for await (const m of reader.readMessages({ topics: ['/tf'] })) tf.push(decode('/tf', m));
        expect(tf[3].parentFrameId).toBe('world');
        expect(tf[3].childFrameId).toBe('vehicle');
        expect(tf[3].translation).toEqual({ x: 6, y: 1 });
        const q = tf[3].rotation as { z: number; w: number };
        expect(2 * Math.atan2(q.z, q.w)).toBeCloseTo(0.9, 6);

        const labels = [];
        for await (const m of reader.readMessages({ topics: ['/boxes/labels'] }))
          labels.push(decode('/boxes/labels', m));
        expect(labels.map((u) => ((u.entities as unknown[]) ?? []).length)).toEqual([1, 0, 1, 2]);
        const e = (labels[0].entities as Record<string, never>[])[0];
        expect(e.id).toBe('track 1');
        const c = (e.cubes as unknown[])[0] as {
          pose: { position: { x: number } };
          size: { x: number; y: number; z: number };
        };
        expect(c.pose.position.x).toBeCloseTo(5, 5);
        expect(c.size).toEqual({ x: 4, y: 2, z: 1.5 });
        expect((labels[1].deletions as { type: number }[])[0].type).toBe(1); // ALL: frame 0's box goes
      } finally {
        await log.close();
      }
    } finally {
      close();
    }

    // The stream reader (no index) sees the same records; every chunk is lz4 and smaller than its contents.
    const stream = new McapStreamReader({ decompressHandlers });
    stream.append(fs.readFileSync(file));
    let messages = 0;
    const clock: Record<string, string>[] = [];
    for (let rec; (rec = stream.nextRecord());) {
      if (rec.type === 'Message') messages++;
      if (rec.type === 'Metadata' && rec.name === 'drivekit.clock')
        clock.push(Object.fromEntries(rec.metadata));
    }
    expect(messages).toBe(4 * FRAMES);
    expect(clock).toEqual([{ time_base: 'unix', time_offset_ns: '0' }]);
    const { readable: r2, close: close2 } = fileReadable(file);
    try {
      const idx = await McapIndexedReader.Initialize({ readable: r2, decompressHandlers });
      expect(idx.chunkIndexes.length).toBeGreaterThan(0);
      for (const c of idx.chunkIndexes) {
        expect(c.compression).toBe('lz4');
        expect(c.compressedSize).toBeLessThan(c.uncompressedSize);
      }
    } finally {
      close2();
    }
  });

  it('shifts a log counted from 0 to the fixed epoch 2000-01-01 and says so in drivekit.clock', async () => {
    const d = tmpDir('dk-mcap-');
    const logDir = path.join(d, 'log');
    await makeLog(logDir, 0n);
    const file = path.join(d, 'log.mcap');
    const r = await exportLogMcap(logDir, file);
    expect(r.clock).toEqual({ offsetNs: SYNTHETIC_EPOCH_NS, base: 'relative' });
    const { readable, close } = fileReadable(file);
    try {
      const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
      const times = [];
      for await (const m of reader.readMessages({ topics: ['/lidar'] })) times.push(m.logTime);
      const expected = Array.from(
        { length: FRAMES },
        (_, f) => SYNTHETIC_EPOCH_NS + 100_000_000n * BigInt(f),
      );
      expect(times).toEqual(expected);
      expect(new Date(Number(times[0] / 1_000_000n)).toISOString()).toBe('2000-01-01T00:00:00.000Z');
      const meta = [];
      for await (const m of reader.readMetadata({ name: 'drivekit.clock' }))
        meta.push(Object.fromEntries(m.metadata));
      expect(meta).toEqual([{ time_base: 'relative', time_offset_ns: String(SYNTHETIC_EPOCH_NS) }]);
    } finally {
      close();
    }
  });

  it('drivekit export --log <log> --format mcap writes <log>.mcap by default', async () => {
    const d = tmpDir('dk-mcap-');
    const logDir = path.join(d, 'log');
    await makeLog(logDir);
    expect(exportTarget({ log: logDir, format: 'mcap' })).toBe(path.resolve(logDir) + '.mcap');
    const r = await runExport({ log: logDir, format: 'mcap', json: true });
    expect(r.files).toEqual([path.resolve(logDir) + '.mcap']);
    expect(fs.statSync(r.files[0]).size).toBeGreaterThan(0);
    await expect(runExport({ log: logDir, format: 'womd', json: true })).rejects.toThrow(/parquet or mcap/);
  });

  it('gives the rotation of any pose as a unit quaternion', () => {
    for (const yaw of [0, 0.5, Math.PI - 1e-9, -2.5]) {
      const q = poseQuaternion(poseFromTranslationYaw(0, 0, 0, yaw));
      expect(Math.hypot(q.x, q.y, q.z, q.w)).toBeCloseTo(1, 12);
      expect(Math.atan2(Math.sin(2 * Math.atan2(q.z, q.w)), Math.cos(2 * Math.atan2(q.z, q.w)))).toBeCloseTo(
        yaw,
        9,
      );
    }
  });
});
