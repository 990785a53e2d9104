// `drivekit stage forecast` as its own process over real ZeroMQ sockets: once a frame has the model's past
// behind it, each SensorFrame is answered by the predicted sweep ahead (named start/target frames, finite points).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchToPointCloud } from '../../../core/arrow/codec.ts';
import { castFrame, runBoxStage } from './boxStage.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stage-fc-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit stage forecast', () => {
  it('forecasts from the fifth frame on (3 past frames 0.2 s apart at 10 Hz) and skips a frame without metadata', async () => {
    const frames = [0, 1, 2, 3, 4, 5].map((i) => castFrame(i, 40));
    const run = await runBoxStage(tmp, ['forecast', '--steps', '1'], frames, 'sensorFrame');
    expect(run.exitCode).toBe(0);
    expect(run.otherMessages).toBe(0);
    // The shipped model: 3 past frames at 0.2 s → frames 0, 2, 4 are the first full context.
    expect(run.batches).toHaveLength(2);
    run.batches.forEach((b, i) => {
      const meta = Object.fromEntries(b.schema.metadata);
      expect(meta.start_frame).toBe(String(4 + i));
      expect(meta.target_frame).toBe(String(4 + i + 6)); // 3 future frames of 0.2 s at 10 Hz
      expect(Number(meta.horizon_s)).toBeCloseTo(0.6, 9);
      const p = batchToPointCloud(b);
      expect(p.x.length).toBeGreaterThan(1000);
      for (let k = 0; k < p.x.length; k++) {
        expect(Number.isFinite(p.x[k]) && Number.isFinite(p.y[k]) && Number.isFinite(p.z[k])).toBe(true);
      }
    });
    expect(run.summary).toMatchObject({ stage: 'forecast', stopped_by: 'eos' });
    expect(JSON.stringify(run.summary)).toMatch(/"wrong-schema":1/);
  }, 120_000);
});
