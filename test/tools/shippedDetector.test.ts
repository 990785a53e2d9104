// The model shipped in models/ (self-trained on synthetic seeds 2–6, fine-tuned on seeds 2–3 and a real KITTI
// sequence, docs/detector.md) on a synthetic town it never saw (seed 7): it finds objects near the ego, and
// beyond the 40 m its seed labels covered it finds what clustering cannot — OYSTER's long-range claim, on
// held-out data.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogReader } from '../../datasets/logstore.ts';
import { Detector } from '../../perception/detector/model.ts';
import { discoverLog, logSequence, resolvePipelineConfig } from '../../perception/discoverLog.ts';
import { evaluateBoxes } from '../../perception/eval/evaluate.ts';
import { DEFAULT_SELFTRAIN_CONFIG, detectLog } from '../../perception/selftrain.ts';
import { writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { SHIPPED_MODEL } from '../../tools/commands/detect.ts';
import { tmpDir } from '../perception/tmp.ts';

describe('shipped detector', () => {
  it('is a small plain ONNX model that detects near and far objects in an unseen synthetic town', async () => {
    expect(fs.statSync(SHIPPED_MODEL).size).toBeLessThan(4 << 20);
    const dir = path.join(tmpDir(), 'seed7');
    await writeSyntheticLog({
      out: dir,
      frames: 2,
      seed: 7,
      lidar: 'hdl64',
      workers: 2,
      writeScenario: false,
    });
    const log = await LogReader.open(dir);
    const det = await Detector.load(SHIPPED_MODEL, { threads: 2 });
    try {
      expect(det.spec.training).toMatchObject({ logs: expect.not.arrayContaining(['synth-s7']) });
      const gt = log.readBoxes('labels')!;
      const seq = logSequence(log);
      const ego = { poses: seq.poses!, timesS: seq.timesS! };
      const ap = { bucketsM: DEFAULT_SELFTRAIN_CONFIG.evalBucketsM };
      const boxes = await detectLog(det, log);
      const clusters = (await discoverLog(log, resolvePipelineConfig({ cluster: { rangeM: 80 } })))
        .detections;
      const mine = evaluateBoxes(boxes, gt, ego, { ap }).ap.bev['0.3'];
      const theirs = evaluateBoxes(clusters, gt, ego, { ap }).ap.bev['0.3'];
      expect(mine['0-40']).toBeGreaterThan(0.3);
      expect(mine['40-80']).toBeGreaterThan(theirs['40-80']! + 0.08);
    } finally {
      await det.dispose();
      await log.close();
    }
  }, 90_000);
});
