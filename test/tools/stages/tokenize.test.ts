// `drivekit stage tokenize` as its own process over real ZeroMQ sockets: SensorFrames in, the token grids
// the shipped tokenizer computes in-process out (frame index and pose kept); a frame without metadata is skipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchToTokens } from '../../../core/arrow/codec.ts';
import { sensorPoints } from '../../../worldmodel/sweep.ts';
import { Tokenizer } from '../../../worldmodel/tokenizerModel.ts';
import { SHIPPED_TOKENIZER } from '../../../tools/commands/tokenize.ts';
import { castFrame, runBoxStage } from './boxStage.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stage-tok-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit stage tokenize', () => {
  it('emits the tokens of each SensorFrame and skips a frame without metadata', async () => {
    const frames = [0, 1].map((i) => castFrame(i, 40));
    const run = await runBoxStage(tmp, ['tokenize'], frames, 'tokens');
    expect(run.exitCode).toBe(0);
    expect(run.otherMessages).toBe(0);
    expect(run.batches).toHaveLength(2);
    const tok = await Tokenizer.load(SHIPPED_TOKENIZER);
    try {
      for (const [i, batch] of run.batches.entries()) {
        const [grid] = batchToTokens(batch);
        expect(grid.frameIndex).toBe(i);
        expect(grid.rows * grid.cols).toBe(64 * 64);
        expect(Array.from(grid.pose, (v) => v + 0)).toEqual(Array.from(frames[i].pose, (v) => v + 0));
        const expected = await tok.encode(sensorPoints(frames[i].points, [0, 0, 0]));
        expect(Array.from(grid.tokens)).toEqual(Array.from(expected));
      }
    } finally {
      await tok.dispose();
    }
    expect(run.summary).toMatchObject({ stage: 'tokenize', stopped_by: 'eos' });
    expect(JSON.stringify(run.summary)).toMatch(/"wrong-schema":1/);
  });
});
