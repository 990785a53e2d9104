// `drivekit selftrain`, `drivekit detect` and `drivekit eval` as a user chains them: a tiny self-training
// run writes its models, checkpoints and per-round table; detect writes Boxes that eval scores; bad input
// fails with one line and exit 1, writing nothing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBoxesFile } from '../../../datasets/logstore.ts';
import { drivekit, expectOneLineFailure, writeCastLog } from './castLog.ts';
import { tmpDir } from '../../perception/tmp.ts';

describe('drivekit selftrain / detect', () => {
  it('self-trains for two rounds, then detects into a Boxes file that eval scores', async () => {
    const dir = tmpDir();
    const log = path.join(dir, 'log');
    await writeCastLog(log, 40);
    const cfg = path.join(dir, 'cfg.json');
    fs.writeFileSync(
      cfg,
      JSON.stringify({
        pipeline: { refine: { minTrackFrames: 5 } },
        detector: { network: { stemChannels: 8, channels: 8, deepChannels: 16, headChannels: 8 } },
      }),
    );
    const out = path.join(dir, 'st');
    const st = await drivekit(
      'selftrain',
      '--log',
      log,
      '--rounds',
      '2',
      '--steps',
      '4',
      '--later-steps',
      '2',
      '--batch',
      '2',
      '--crop',
      '64',
      '--grid-range',
      '25.6',
      '--threads',
      '1',
      '--out',
      out,
      '--config',
      cfg,
      '--json',
    );
    const res = JSON.parse(st.stdout);
    expect(res.rounds.map((r: { round: number; steps: number }) => [r.round, r.steps])).toEqual([
      [1, 4],
      [2, 2],
    ]);
    const names = res.rows.map((r: { method: string; round: number }) => `${r.method}/${r.round}`);
    expect(names).toEqual([
      'clustering/0',
      'refined tracks/0',
      'detector/1',
      'detector + tracks/1',
      'detector/2',
      'detector + tracks/2',
    ]);
    expect(Object.keys(res.rows[0].ap.bev['0.3'])).toEqual(['0-40', '40-80', 'all']);
    expect(res.rows[1].ap.bev['0.3']['0-40']).toBeGreaterThan(0);
    for (const f of [
      'detector.onnx',
      'results.json',
      'round1/detector.onnx',
      'round1/checkpoint.safetensors',
      'round2/log.detections.arrow',
    ])
      expect(fs.existsSync(path.join(out, f))).toBe(true);

    const boxesFile = path.join(dir, 'det.arrow');
    const d = JSON.parse(
      (
        await drivekit(
          'detect',
          '--model',
          path.join(out, 'detector.onnx'),
          '--log',
          log,
          '--out',
          boxesFile,
          '--json',
        )
      ).stdout,
    );
    expect(d.frames).toBe(12);
    expect(d.grid).toMatch(/256×256/);
    const boxes = readBoxesFile(boxesFile);
    expect(boxes.cx.length).toBe(d.boxes);
    expect(new Set(boxes.frameIndex).size).toBeLessThanOrEqual(12);
    const e = JSON.parse((await drivekit('eval', '--pred', boxesFile, '--gt', log, '--json')).stdout);
    expect(e.counts.pred_boxes).toBeLessThanOrEqual(d.boxes);
    expect(e.ap.bev['0.3'].all === null || e.ap.bev['0.3'].all >= 0).toBe(true);
    // Without --out the boxes land in the log.
    await drivekit(
      'detect',
      '--model',
      path.join(out, 'detector.onnx'),
      '--log',
      log,
      '--grid-range',
      '12.8',
    );
    expect(readBoxesFile(path.join(log, 'detector.arrow')).cx.length).toBeGreaterThanOrEqual(0);
  }, 150_000);

  it('fails with one line and exit 1 on bad input', async () => {
    const dir = tmpDir();
    const log = path.join(dir, 'log');
    await writeCastLog(log, 40);
    const notModel = path.join(dir, 'x.onnx');
    fs.writeFileSync(notModel, 'not a model');
    const out = path.join(dir, 'det.arrow');
    await Promise.all([
      expectOneLineFailure(
        ['detect', '--model', path.join(dir, 'missing.onnx'), '--log', log],
        /missing\.onnx: no such model file/,
      ),
      expectOneLineFailure(['detect', '--model', notModel, '--log', log, '--out', out], /x\.onnx: not/),
      expectOneLineFailure(['selftrain', '--log', log, '--crop', '100'], /--crop: must be a multiple of 8/),
    ]);
    expect(fs.existsSync(out)).toBe(false);
  }, 90_000);
});
