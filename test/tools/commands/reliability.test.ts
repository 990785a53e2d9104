// Commands refuse inputs that would give a meaningless result (issue 21, case 5): a wrong-shaped ONNX
// carrying the shipped detector's metadata, one log's boxes scored against another's labels, self-training
// on a log whose discovery yields no labels. Each fails with one line naming the input and exit 1.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { exportOnnxBytes } from '../../../core/nn/export.ts';
import { Graph } from '../../../core/nn/graph.ts';
import { decodeModel } from '../../../core/nn/onnxProto.ts';
import { LogWriter } from '../../../datasets/logstore.ts';
import { BEV_CHANNEL_COUNT } from '../../../perception/detector/bevGrid.ts';
import { Detector } from '../../../perception/detector/model.ts';
import { SHIPPED_MODEL } from '../../../tools/commands/detect.ts';
import { tmpDir } from '../../perception/tmp.ts';
import { castSequence } from '../../perception/scene.ts';
import { drivekit, expectOneLineFailure, writeCastLog } from './castLog.ts';

/** An ONNX graph with the detector's input and output names and the shipped model's metadata, but heads
 * of the wrong shape (the BEV input passed through: 5 channels at full resolution). */
function wrongShapedModel(file: string): void {
  const shipped = decodeModel(new Uint8Array(fs.readFileSync(SHIPPED_MODEL)));
  const metadata = Object.fromEntries((shipped.metadataProps ?? []).map((p) => [p.key, p.value]));
  const g = new Graph({ name: 'not_a_detector' });
  const bev = g.input('bev', ['batch', BEV_CHANNEL_COUNT, 'rows', 'cols']);
  fs.writeFileSync(file, exportOnnxBytes(g, { heatmap: bev.sigmoid(), boxes: bev.relu() }, { metadata }));
}

/** A log of flat ground only: discovery finds nothing in it. */
async function emptyScene(dir: string): Promise<void> {
  const seq = castSequence({
    sensorZ: 1.8,
    rings: 16,
    azimuthSteps: 360,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM: 30,
    frames: 6,
    rateHz: 10,
    egoSpeed: 5,
    terrain: () => 0,
    noiseM: 0.02,
    objects: [],
  });
  const w = LogWriter.create(dir, { source: 'test' });
  seq.sweeps.forEach((s, f) => {
    const p = allocatePointCloud(s.x.length);
    p.x.set(s.x);
    p.y.set(s.y);
    p.z.set(s.z);
    w.appendFrame({
      timestampNs: BigInt(f) * 100_000_000n,
      pose: seq.poses.subarray(16 * f, 16 * f + 16),
      points: p,
    });
  });
  await w.close();
}

describe('commands refuse meaningless inputs', () => {
  it('detect: a wrong-shaped model with the shipped metadata is refused on its output shapes', async () => {
    const dir = tmpDir();
    const bad = path.join(dir, 'wrong.onnx');
    wrongShapedModel(bad);
    const det = await Detector.load(bad, { threads: 1 });
    const pts = allocatePointCloud(10);
    try {
      await expect(det.detect(pts)).rejects.toThrow(
        /wrong\.onnx: model output 'heatmap' is float32 \[1, 5, \d+, \d+\], the detector needs float32 \[1, 1, \d+, \d+\]/,
      );
    } finally {
      await det.dispose();
    }
    // The shipped model passes the same check.
    const ok = await Detector.load(SHIPPED_MODEL, { threads: 1, rangeM: 20 });
    try {
      expect((await ok.detect(pts)).cx.length).toBeGreaterThanOrEqual(0);
    } finally {
      await ok.dispose();
    }
    const log = path.join(dir, 'log');
    await emptyScene(log);
    await expectOneLineFailure(
      ['detect', '--model', bad, '--log', log],
      /wrong\.onnx: model output 'heatmap'/,
    );
    expect(fs.existsSync(path.join(log, 'detector.arrow'))).toBe(false);
  }, 60_000);

  it("eval: one log's boxes against another log's labels is refused (log_id mismatch)", async () => {
    const dir = tmpDir();
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    await writeCastLog(a, 30);
    await writeCastLog(b, 30);
    await expectOneLineFailure(
      ['eval', '--pred', `${a}:labels`, '--gt', b],
      /log .*a: labels: predictions are of log 'a', the ground truth \(log .*b: labels\) is of log 'b'/,
    );
    // The same log scores fine.
    const ok = JSON.parse((await drivekit('eval', '--pred', `${a}:labels`, '--gt', a, '--json')).stdout);
    expect(ok.ap.bev['0.3']).toBeDefined();
  }, 60_000);

  it('selftrain: a log whose discovery yields 0 labels is an error, not training on nothing', async () => {
    const dir = tmpDir();
    const log = path.join(dir, 'empty');
    await emptyScene(log);
    // selftrain reports its progress on stderr: the error is its last line.
    const e = (await drivekit(
      'selftrain',
      '--log',
      log,
      '--rounds',
      '1',
      '--steps',
      '1',
      '--out',
      path.join(dir, 'st'),
    ).then(
      () => null,
      (err: unknown) => err,
    )) as { code: number; stderr: string } | null;
    expect(e?.code).toBe(1);
    expect(e!.stderr.trim().split('\n').at(-1)).toMatch(
      /^drivekit [a-z-]+: .*empty: round 1: discovery yielded 0 labels within \d+ m of the ego on \d+ training frames: nothing to train on/,
    );
    expect(fs.existsSync(path.join(dir, 'st', 'round1', 'model.onnx'))).toBe(false);
  }, 60_000);
});
