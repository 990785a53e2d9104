// `drivekit stage detect` as its own process over real ZeroMQ sockets: SensorFrames in, the Boxes the
// library's Detector computes out (with the frame's metadata); a frame without metadata is skipped.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Pull, Push } from 'zeromq';
import { batchToBoxes, pointCloudToBatch, sensorFrameToBatch } from '../../../core/arrow/codec.ts';
import { allocatePointCloud, type SensorFrame } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { ParamStore } from '../../../core/nn/params.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { batchMessage, eosMessage, parseMessage } from '../../../core/stream/message.ts';
import { resolveDetectorConfig } from '../../../perception/detector/config.ts';
import { Detector, exportDetectorBytes } from '../../../perception/detector/model.ts';
import { createDetectorNetwork } from '../../../perception/detector/network.ts';
import { castSweep } from '../../perception/scene.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stage-detect-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function frame(i: number): SensorFrame {
  const s = castSweep({
    sensorZ: 1.8,
    rings: 32,
    azimuthSteps: 720,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM: 40,
    terrain: () => 0,
    boxes: [{ cx: 10 + i, cy: 4, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 1.2 }],
    seed: i + 1,
  });
  const points = allocatePointCloud(s.x.length);
  points.x.set(s.x);
  points.y.set(s.y);
  points.z.set(s.z);
  return {
    logId: 'gen',
    frameIndex: i,
    timestampNs: BigInt(i) * 100_000_000n,
    pose: poseFromTranslationYaw(i, 0, 0, 0),
    points,
  };
}

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
    const inUrl = `ipc://${tmp}/in.sock`;
    const outUrl = `ipc://${tmp}/out.sock`;
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin/drivekit.js'),
        'stage',
        'detect',
        '--model',
        model,
        '--threads',
        '1',
        '--in',
        `bind:${inUrl}`,
        '--out',
        `bind:${outUrl}`,
        '--json',
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const det = await Detector.load(model, { threads: 1 });
    try {
      const pull = new Pull();
      pull.connect(outUrl);
      const push = new Push({ linger: 2000 });
      push.connect(inUrl);
      const frames = [0, 1].map(frame);
      await push.send(batchMessage('frames', sensorFrameToBatch(frames[0])));
      await push.send(batchMessage('frames', pointCloudToBatch(allocatePointCloud(10)))); // no metadata
      await push.send(batchMessage('frames', sensorFrameToBatch(frames[1])));
      await push.send(eosMessage('frames', 3));
      const got = [];
      for (;;) {
        const msg = parseMessage(await pull.receive(), 'boxes');
        if (msg.type === 'eos') break;
        if (msg.type === 'batch') got.push(msg.batch);
      }
      push.close();
      pull.close();
      expect(await exit).toBe(0);
      expect(got).toHaveLength(2);
      for (const [i, batch] of got.entries()) {
        expect(batch.schema.metadata.get('frame_index')).toBe(String(i));
        const boxes = batchToBoxes(batch);
        const expected = await det.detect(frames[i].points, i);
        expect(boxes.cx.length).toBe(expected.cx.length);
        expect(boxes.cx.length).toBeGreaterThan(0);
        expect(Array.from(boxes.cx)).toEqual(Array.from(expected.cx));
        expect(Array.from(boxes.score)).toEqual(Array.from(expected.score));
        expect(Array.from(boxes.frameIndex)).toEqual(Array.from(expected.frameIndex));
      }
      const summary = JSON.parse(out.trim().split('\n').pop()!);
      expect(summary).toMatchObject({ stage: 'detect', stoppedBy: 'eos' });
      expect(JSON.stringify(summary)).toMatch(/"wrong-schema":1/);
    } finally {
      await det.dispose();
      if (child.exitCode === null) child.kill('SIGKILL');
      if (err && child.exitCode !== 0) console.error(err);
    }
  });
});
