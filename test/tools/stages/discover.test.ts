// `drivekit stage discover` as its own process over real ZeroMQ sockets: SensorFrames in, the same Boxes
// the library computes out (with the frame's metadata); a frame without metadata is skipped, not fatal.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Pull, Push } from 'zeromq';
import { batchToBoxes, pointCloudToBatch, sensorFrameToBatch } from '../../../core/arrow/codec.ts';
import { allocatePointCloud, type SensorFrame } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { batchMessage, eosMessage, parseMessage } from '../../../core/stream/message.ts';
import { discoverSweep } from '../../../perception/discover.ts';
import { castSweep } from '../../perception/scene.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stage-discover-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function frame(i: number): SensorFrame {
  const s = castSweep({
    sensorZ: 1.8,
    rings: 32,
    azimuthSteps: 720,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM: 60,
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

describe('drivekit stage discover', () => {
  it('turns each SensorFrame into Boxes and skips a frame without metadata', async () => {
    const inUrl = `ipc://${tmp}/in.sock`;
    const outUrl = `ipc://${tmp}/out.sock`;
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin/drivekit.js'),
        'stage',
        'discover',
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
    try {
      const pull = new Pull();
      pull.connect(outUrl);
      const push = new Push({ linger: 2000 });
      push.connect(inUrl);
      const frames = [0, 1, 2].map(frame);
      await push.send(batchMessage('frames', sensorFrameToBatch(frames[0])));
      await push.send(batchMessage('frames', pointCloudToBatch(allocatePointCloud(10)))); // no metadata
      await push.send(batchMessage('frames', sensorFrameToBatch(frames[1])));
      await push.send(batchMessage('frames', sensorFrameToBatch(frames[2])));
      await push.send(eosMessage('frames', 4));
      const got = [];
      for (;;) {
        const msg = parseMessage(await pull.receive(), 'boxes');
        if (msg.type === 'eos') break;
        expect(msg.type).toBe('batch');
        if (msg.type === 'batch') got.push(msg.batch);
      }
      push.close();
      pull.close();
      expect(await exit).toBe(0);
      expect(got).toHaveLength(3);
      got.forEach((batch, i) => {
        expect(batch.schema.metadata.get('frame_index')).toBe(String(i));
        const boxes = batchToBoxes(batch);
        const expected = discoverSweep(frames[i].points, undefined, i).boxes;
        expect(boxes.cx.length).toBe(expected.cx.length);
        expect(boxes.cx.length).toBeGreaterThan(0);
        expect(Array.from(boxes.cx)).toEqual(Array.from(expected.cx));
        expect(Array.from(boxes.frameIndex)).toEqual(Array.from(expected.frameIndex));
      });
      const summary = JSON.parse(out.trim().split('\n').pop()!);
      expect(summary).toMatchObject({ stage: 'discover', stoppedBy: 'eos' });
      expect(JSON.stringify(summary)).toMatch(/"wrong-schema":1/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      if (err && child.exitCode !== 0) console.error(err);
    }
  });
});
