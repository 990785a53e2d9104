// Old logs stay readable: a log written by the previous schema versions (test/fixtures/log-v1, never
// regenerated) is read by the current readers; new logs describe themselves (issue 19): frame_index on
// every point, units and conventions in the schema metadata, nulls instead of sentinels, canonical classes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  Int64,
  makeData,
  makeVector,
  Table,
  TimestampMicrosecond,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { readTimestampNs } from '../../core/arrow/columns.ts';
import { readArrowFile } from '../../core/arrow/ipc.ts';
import { allocatePointCloud, boxesFromRows } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'log-v1');
const tmp: string[] = [];
afterEach(() => tmp.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A copy, so readers that clean leftovers never touch the committed fixture. */
function copyFixture(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-compat-'));
  tmp.push(d);
  const dir = path.join(d, 'log-v1');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe('logs written by the previous schema version', () => {
  it('reads frames, poses, labels and detections of a drivekit-log/1 log', async () => {
    const log = await LogReader.open(copyFixture());
    expect(log.hasManifest).toBe(true);
    expect(log.frameCount).toBe(2);
    const f1 = await log.readFrame(1);
    expect(f1.points.x.length).toBe(160);
    expect(f1.frameIndex).toBe(1);
    expect(f1.timestampNs).toBe(1_600_000_000_100_000_000n);
    expect(f1.points.x[0]).toBeCloseTo(6);
    expect(f1.points.ring[65]).toBe(1);
    expect(f1.points.tOffset[10]).toBeCloseTo(1e-3);
    expect(f1.pose[3]).toBeCloseTo(1.5);
    const labels = log.readBoxes('labels')!;
    expect(Array.from(labels.frameIndex)).toEqual([0, 0, 1, 1]);
    expect(Array.from(labels.trackId)).toEqual([3, 4, 3, -1]);
    expect(labels.label).toEqual(['Car', 'Pedestrian', 'Car', 'Cyclist']);
    const det = log.readBoxes('detections')!;
    expect(Array.from(det.score)).toEqual([Math.fround(0.9), Math.fround(0.7)]);
    await log.close();
  });
});

describe('logs written now', () => {
  it('carry frame_index per point, conventions in the metadata, nulls and canonical classes', async () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-compat-'));
    tmp.push(d);
    const dir = path.join(d, 'log');
    const w = LogWriter.create(dir, { source: 'kitti' });
    for (let i = 0; i < 3; i++) {
      const p = allocatePointCloud(5 + i);
      p.x.fill(10 * i);
      w.appendFrame({ timestampNs: BigInt(i), pose: poseFromTranslationYaw(i, 0, 0, 0), points: p });
    }
    w.setLabels(
      boxesFromRows([
        {
          frameIndex: 0,
          trackId: 2,
          label: 'Van',
          cx: 1,
          cy: 0,
          cz: 0,
          length: 4,
          width: 2,
          height: 2,
          yaw: 0,
        },
        {
          frameIndex: 1,
          label: 'Person_sitting',
          cx: 1,
          cy: 0,
          cz: 0,
          length: 1,
          width: 1,
          height: 1,
          yaw: 0,
        },
      ]),
    );
    // Stored in the order 2, 0, 1 (as the recorder reorders): frame_index follows the stored position.
    await w.close([2, 0, 1]);
    const frames = readArrowFile(path.join(dir, 'frames.arrow'));
    const m = frames.schema.metadata;
    expect(m.get('drivekit.schema')).toBe('sensor_frame/2');
    expect(m.get('drivekit.frame')).toMatch(/x forward, y left, z up/);
    expect(m.get('drivekit.time')).toMatch(/t_offset: float32 seconds/);
    expect(m.get('drivekit.intensity')).toMatch(/0–1/);
    expect(m.get('drivekit.source')).toBe('kitti');
    expect(JSON.parse(m.get('drivekit.units')!)).toMatchObject({
      x: 'm',
      t_offset: expect.stringMatching(/^s /),
    });
    frames.batches.forEach((b, i) => {
      const fi = Array.from(b.getChild('frame_index')!.toArray() as Int32Array);
      expect(new Set(fi)).toEqual(new Set([i]));
      expect(b.getChild('x')!.get(0)).toBe(10 * [2, 0, 1][i]);
    });
    const poses = readArrowFile(path.join(dir, 'poses.arrow'));
    expect(poses.schema.metadata.get('drivekit.pose_layout')).toMatch(
      /world_from_vehicle.*row-major float64/,
    );
    // Native times: Timestamp(ns) without a time zone (poses/2, boxes/4), exact to the nanosecond.
    expect(poses.schema.metadata.get('drivekit.schema')).toBe('poses/2');
    const tsField = poses.schema.fields.find((f) => f.name === 'timestamp_ns')!;
    expect(String(tsField.type)).toBe('Timestamp<NANOSECOND>');
    expect(Array.from(readTimestampNs(poses.batches[0], 'timestamp_ns'))).toEqual([2n, 0n, 1n]);
    const labelFile = readArrowFile(path.join(dir, 'labels.arrow'));
    expect(labelFile.schema.metadata.get('drivekit.schema')).toBe('boxes/4');
    expect(String(labelFile.schema.fields.find((f) => f.name === 'timestamp_ns')!.type)).toBe(
      'Timestamp<NANOSECOND>',
    );
    expect(Array.from(readTimestampNs(labelFile.batches[0], 'timestamp_ns'))).toEqual(
      [0n, 1n].map((f) => [2n, 0n, 1n][Number(f)]),
    );
    const labels = readArrowFile(path.join(dir, 'labels.arrow')).batches[0];
    expect(labels.getChild('track_id')!.toArray().length).toBe(2);
    expect([labels.getChild('track_id')!.get(0), labels.getChild('track_id')!.get(1)]).toEqual([2, null]);
    expect(labels.getChild('num_points')!.nullCount).toBe(2);
    expect([labels.getChild('label')!.get(1), labels.getChild('class')!.get(1)]).toEqual([
      'Person_sitting',
      'pedestrian',
    ]);
    const log = await LogReader.open(dir);
    expect((await log.readFrame(0)).points.x[0]).toBe(20);
    expect(Array.from(log.readBoxes('labels')!.trackId)).toEqual([2, -1]);
    await log.close();
  });
});

describe('time columns from other writers', () => {
  it('reads Timestamp columns of any unit as nanoseconds, nulls as 0, and int64 nanoseconds as they are', () => {
    const us = makeVector(
      makeData({
        type: new TimestampMicrosecond(),
        length: 3,
        nullCount: 1,
        nullBitmap: Uint8Array.of(0b101),
        data: BigInt64Array.of(1_700_000_000_000_001n, 99n, 5n),
      }),
    );
    const ns = vectorFromArray([1_700_000_000_000_000_001n, 7n], new Int64());
    const batch = (v: Vector) => new Table({ timestamp_ns: v }).batches[0];
    expect(Array.from(readTimestampNs(batch(us), 'timestamp_ns'))).toEqual([
      1_700_000_000_000_001_000n,
      0n,
      5_000n,
    ]);
    expect(Array.from(readTimestampNs(batch(ns), 'timestamp_ns'))).toEqual([1_700_000_000_000_000_001n, 7n]);
  });
});
