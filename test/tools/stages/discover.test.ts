// `drivekit stage discover` as its own process over real ZeroMQ sockets: SensorFrames in, the same Boxes
// the library computes out (with the frame's metadata); a frame without metadata is skipped, not fatal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchToBoxes } from '../../../core/arrow/codec.ts';
import { discoverSweep } from '../../../perception/discover.ts';
import { castFrame, runBoxStage } from './boxStage.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stage-discover-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit stage discover', () => {
  it('turns each SensorFrame into Boxes and skips a frame without metadata', async () => {
    const frames = [0, 1, 2].map((i) => castFrame(i, 60));
    const run = await runBoxStage(tmp, ['discover'], frames);
    expect(run.exitCode).toBe(0);
    expect(run.otherMessages).toBe(0);
    expect(run.batches).toHaveLength(3);
    run.batches.forEach((batch, i) => {
      expect(batch.schema.metadata.get('frame_index')).toBe(String(i));
      const boxes = batchToBoxes(batch);
      const expected = discoverSweep(frames[i].points, undefined, i).boxes;
      expect(boxes.cx.length).toBe(expected.cx.length);
      expect(boxes.cx.length).toBeGreaterThan(0);
      expect(Array.from(boxes.cx)).toEqual(Array.from(expected.cx));
      expect(Array.from(boxes.frameIndex)).toEqual(Array.from(expected.frameIndex));
    });
    expect(run.summary).toMatchObject({ stage: 'discover', stopped_by: 'eos' });
    expect(JSON.stringify(run.summary)).toMatch(/"wrong-schema":1/);
  });
});
