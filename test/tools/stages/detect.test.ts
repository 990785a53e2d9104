// `drivekit stage detect` as its own process over real ZeroMQ sockets: SensorFrames in, the Boxes the
// library's Detector computes out (with the frame's metadata); a frame without metadata is skipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchToBoxes } from '../../../core/arrow/codec.ts';
import { ParamStore } from '../../../core/nn/params.ts';
import { resolveDetectorConfig } from '../../../perception/detector/config.ts';
import { Detector, exportDetectorBytes } from '../../../perception/detector/model.ts';
import { createDetectorNetwork } from '../../../perception/detector/network.ts';
import { castFrame, runBoxStage } from './boxStage.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stage-detect-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit stage detect', () => {
  it('turns each SensorFrame into the Boxes of the model and skips a frame without metadata', async () => {
    // Plumbing, not accuracy: an untrained small network whose scores scatter around its prior.
    const cfg = resolveDetectorConfig({
      grid: { rangeM: 25.6 },
      network: { stemChannels: 8, channels: 8, deepChannels: 16, headChannels: 8 },
      decode: { scoreThreshold: 0.06 },
    });
    const model = path.join(tmp, 'det.onnx');
    const ps = new ParamStore({ seed: 3 });
    const net = createDetectorNetwork(ps, cfg.network);
    // Widen the heatmap head's weights so scores spread well above and below the threshold.
    ps.get('heat.out.weight').data.forEach((v, i, a) => (a[i] = v * 300));
    fs.writeFileSync(model, exportDetectorBytes(net, cfg));
    const frames = [0, 1].map((i) => castFrame(i, 40));
    const run = await runBoxStage(tmp, ['detect', '--model', model, '--threads', '1'], frames);
    expect(run.exitCode).toBe(0);
    expect(run.otherMessages).toBe(0);
    expect(run.batches).toHaveLength(2);
    const det = await Detector.load(model, { threads: 1 });
    try {
      for (const [i, batch] of run.batches.entries()) {
        expect(batch.schema.metadata.get('frame_index')).toBe(String(i));
        const boxes = batchToBoxes(batch);
        const expected = await det.detect(frames[i].points, i);
        expect(boxes.cx.length).toBe(expected.cx.length);
        expect(boxes.cx.length).toBeGreaterThan(0);
        expect(Array.from(boxes.cx)).toEqual(Array.from(expected.cx));
        expect(Array.from(boxes.score)).toEqual(Array.from(expected.score));
        expect(Array.from(boxes.frameIndex)).toEqual(Array.from(expected.frameIndex));
      }
    } finally {
      await det.dispose();
    }
    expect(run.summary).toMatchObject({ stage: 'detect', stopped_by: 'eos' });
    expect(JSON.stringify(run.summary)).toMatch(/"wrong-schema":1/);
  });
});
