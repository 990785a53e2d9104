// Arrow records: point clouds wrap typed arrays without copying; SensorFrames, Boxes, AgentStates and
// Tokens round-trip through IPC bytes unchanged; missing columns, two batches or a cut body are named errors.
import { describe, expect, it } from 'vitest';
import { Field, Float64, RecordBatch, RecordBatchStreamWriter, Schema, Utf8 } from 'apache-arrow';
import { Message } from 'apache-arrow/ipc/metadata/message';
import {
  agentStatesToBatch,
  batchToAgentStates,
  batchToBoxes,
  batchToSensorFrame,
  batchToTokens,
  boxesToBatch,
  sensorFrameToBatch,
  tokensToBatch,
} from '../../core/arrow/codec.ts';
import { decodeBatch, encodeBatch } from '../../core/arrow/ipc.ts';
import { allocatePointCloud, boxesFromRows } from '../../core/arrow/records.ts';
import { FIELDS, schemaFor } from '../../core/arrow/schemas.ts';
import { SchemaError, validateSchema } from '../../core/arrow/validate.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';

describe('arrow records', () => {
  it('wraps typed arrays without copying', () => {
    const p = allocatePointCloud(100);
    const batch = sensorFrameToBatch({
      logId: 'l',
      frameIndex: 3,
      timestampNs: 5n,
      pose: poseFromTranslationYaw(1, 2, 3, 0.5),
      points: p,
    });
    p.x[7] = 42; // visible through the batch: the column shares the buffer
    expect(batch.getChild('x')!.get(7)).toBe(42);
  });

  it('round-trips a SensorFrame through IPC stream bytes with its metadata', () => {
    const p = allocatePointCloud(1000);
    for (let i = 0; i < 1000; i++) {
      p.x[i] = i;
      p.ring[i] = i % 64;
      p.tOffset[i] = i / 1e4;
    }
    const pose = poseFromTranslationYaw(1, 2, 3, 0.5);
    const bytes = encodeBatch(
      sensorFrameToBatch({ logId: 'log-a', frameIndex: 12, timestampNs: 1234567890123n, pose, points: p }),
    );
    const f = batchToSensorFrame(decodeBatch(bytes));
    expect(f.logId).toBe('log-a');
    expect(f.frameIndex).toBe(12);
    expect(f.timestampNs).toBe(1234567890123n);
    expect(Array.from(f.pose)).toEqual(Array.from(pose));
    expect(Array.from(f.points.x)).toEqual(Array.from(p.x));
    expect(Array.from(f.points.ring)).toEqual(Array.from(p.ring));
    expect(f.points.tOffset[999]).toBeCloseTo(0.0999, 6);
  });

  it('decodes a one-batch message as views of its bytes, and refuses two batches or a cut body', () => {
    const p = allocatePointCloud(500);
    for (let i = 0; i < 500; i++) p.y[i] = -i;
    const frame = { logId: 'l', frameIndex: 3, timestampNs: 5n, pose: poseFromTranslationYaw(0, 0, 0, 0) };
    const batch = sensorFrameToBatch({ ...frame, points: p });
    const bytes = encodeBatch(batch);
    const f = batchToSensorFrame(decodeBatch(bytes));
    expect(f.points.y.buffer).toBe(bytes.buffer);
    expect(f.points.y[499]).toBe(-499);
    const two = RecordBatchStreamWriter.writeAll([batch, batch]).toUint8Array(true);
    expect(() => decodeBatch(two)).toThrow(/expected one record batch, got 2/);
    expect(() => batchToSensorFrame(decodeBatch(bytes.subarray(0, bytes.length - 1000)))).toThrow();
    // A batch whose message claims a shorter body than its buffers need: an error, not short columns.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = 8 + view.getInt32(4, true);
    const metaEnd = at + 8 + view.getInt32(at + 4, true);
    const bodyLength = Number(Message.decode(bytes.subarray(at + 8, metaEnd)).bodyLength);
    const meta = Buffer.from(bytes.subarray(0, metaEnd));
    const where = meta.indexOf(Buffer.from(BigInt64Array.of(BigInt(bodyLength)).buffer), at + 8);
    expect(where).toBeGreaterThan(0);
    meta.writeBigInt64LE(BigInt(bodyLength - 64), where);
    const short = Buffer.concat([
      meta,
      bytes.subarray(metaEnd, metaEnd + bodyLength - 64),
      new Uint8Array(8),
    ]);
    short.writeUInt32LE(0xffffffff, short.length - 8);
    expect(() => decodeBatch(short)).toThrow(/outside its \d+-byte body/);
  });

  it('round-trips Boxes, AgentStates and Tokens', () => {
    const boxes = boxesFromRows([
      {
        frameIndex: 0,
        trackId: 4,
        label: 'car',
        cx: 1,
        cy: 2,
        cz: 0.5,
        length: 4,
        width: 2,
        height: 1.5,
        yaw: 0.3,
        numPoints: 50,
      },
      { frameIndex: 1, cx: -1, cy: 0, cz: 0, length: 1, width: 1, height: 1, yaw: 0, score: 0.4 },
    ]);
    const b = batchToBoxes(decodeBatch(encodeBatch(boxesToBatch(boxes))));
    expect(b.label).toEqual(['car', 'object']);
    expect(Array.from(b.trackId)).toEqual([4, -1]);
    expect(b.score[1]).toBeCloseTo(0.4, 6);
    expect(Array.from(b.numPoints)).toEqual([50, -1]);

    const n = 3;
    const a = batchToAgentStates(
      decodeBatch(
        encodeBatch(
          agentStatesToBatch({
            scenarioId: ['s', 's', 's'],
            step: Int32Array.of(0, 0, 1),
            agentId: Int32Array.of(1, 2, 1),
            type: ['vehicle', 'pedestrian', 'vehicle'],
            x: Float32Array.of(1, 2, 3),
            y: new Float32Array(n),
            z: new Float32Array(n),
            yaw: new Float32Array(n),
            vx: new Float32Array(n),
            vy: new Float32Array(n),
            length: new Float32Array(n).fill(4),
            width: new Float32Array(n).fill(2),
            height: new Float32Array(n).fill(1.5),
            valid: Uint8Array.of(1, 0, 1),
          }),
        ),
      ),
    );
    expect(Array.from(a.valid)).toEqual([1, 0, 1]);
    expect(a.type[1]).toBe('pedestrian');

    const grid = {
      frameIndex: 2,
      rows: 2,
      cols: 3,
      pose: poseFromTranslationYaw(0, 0, 0, 1),
      tokens: Int32Array.of(5, 4, 3, 2, 1, 0),
    };
    const t = batchToTokens(decodeBatch(encodeBatch(tokensToBatch([grid, { ...grid, frameIndex: 3 }]))));
    expect(t).toHaveLength(2);
    expect(Array.from(t[1].tokens)).toEqual([5, 4, 3, 2, 1, 0]);
    expect(t[1].frameIndex).toBe(3);
    expect(t[0].pose[1]).toBeCloseTo(-Math.sin(1), 12);
  });

  it('names the missing or mistyped column', () => {
    const fields = FIELDS.sensorFrame.filter((f) => f.name !== 'ring');
    expect(() => validateSchema(new Schema(fields), 'sensorFrame')).toThrow(/column 'ring' is missing/);
    // Float64 coordinates are readable (converted, issue 19); a string is not a coordinate.
    const wide = FIELDS.sensorFrame.map((f) => (f.name === 'z' ? new Field('z', new Float64()) : f));
    expect(() => validateSchema(new Schema(wide), 'sensorFrame')).not.toThrow();
    const wrong = FIELDS.sensorFrame.map((f) => (f.name === 'z' ? new Field('z', new Utf8()) : f));
    expect(() => validateSchema(new Schema(wrong), 'sensorFrame')).toThrow(
      /column 'z' has type Utf8, expected Float32/,
    );
    expect(() => validateSchema(schemaFor('boxes'), 'sensorFrame')).toThrow(SchemaError);
    expect(() => validateSchema(schemaFor('sensorFrame'), 'sensorFrame')).not.toThrow();
  });

  it('rejects a SensorFrame message whose metadata is broken', () => {
    const batch = sensorFrameToBatch({
      logId: 'x',
      frameIndex: 0,
      timestampNs: 0n,
      pose: poseFromTranslationYaw(0, 0, 0, 0),
      points: allocatePointCloud(2),
    });
    const meta = new Map(batch.schema.metadata);
    meta.set('pose', '[1,2]');
    const broken = new RecordBatch(new Schema(batch.schema.fields, meta), batch.data);
    expect(() => batchToSensorFrame(decodeBatch(encodeBatch(broken)))).toThrow(
      /'pose' is not 16 finite numbers/,
    );
    meta.set('pose', batch.schema.metadata.get('pose')!);
    meta.delete('frame_index');
    const noIndex = new RecordBatch(new Schema(batch.schema.fields, meta), batch.data);
    expect(() => batchToSensorFrame(noIndex)).toThrow(/'frame_index' is missing/);
  });
});
