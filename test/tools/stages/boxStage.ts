// Shared by the tests of SensorFrames → Boxes stages: a cast sweep with one car as a SensorFrame, and a
// run of `drivekit stage <name>` as its own process over real ipc:// ZeroMQ sockets.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { Pull, Push } from 'zeromq';
import { pointCloudToBatch, sensorFrameToBatch } from '../../../core/arrow/codec.ts';
import { allocatePointCloud, type SensorFrame } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import type { RecordKind } from '../../../core/arrow/schemas.ts';
import { batchMessage, eosMessage, parseMessage } from '../../../core/stream/message.ts';
import { castSweep } from '../../perception/scene.ts';

/** Frame i: a 32-beam sweep out to `maxRangeM` of flat ground and a car at (10 + i, 4). */
export function castFrame(i: number, maxRangeM: number): SensorFrame {
  const s = castSweep({
    sensorZ: 1.8,
    rings: 32,
    azimuthSteps: 720,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM,
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

export interface BoxStageRun {
  exitCode: number | null;
  /** The Boxes batches the stage sent, in order; the end-of-stream marker ends the list. */
  batches: RecordBatch[];
  /** Messages that were neither a Boxes batch nor the end-of-stream marker. */
  otherMessages: number;
  /** The stage's --json summary (its last stdout line). */
  summary: Record<string, unknown>;
}

/**
 * Run `drivekit stage <args> --in bind:… --out bind:… --json`, send it frames[0], a point cloud without
 * the frame metadata (which it must skip), the other frames and end-of-stream, and collect what it sends.
 */
export async function runBoxStage(
  tmp: string,
  args: string[],
  frames: SensorFrame[],
  kind: RecordKind = 'boxes',
): Promise<BoxStageRun> {
  const inUrl = `ipc://${tmp}/in.sock`;
  const outUrl = `ipc://${tmp}/out.sock`;
  const cli = path.join(REPO_ROOT, 'bin/drivekit.js');
  const child = spawn(
    process.execPath,
    [cli, 'stage', ...args, '--in', `bind:${inUrl}`, '--out', `bind:${outUrl}`, '--json'],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const pull = new Pull();
  const push = new Push({ linger: 2000 });
  try {
    pull.connect(outUrl);
    push.connect(inUrl);
    await push.send(batchMessage('frames', sensorFrameToBatch(frames[0])));
    await push.send(batchMessage('frames', pointCloudToBatch(allocatePointCloud(10))));
    for (const f of frames.slice(1)) await push.send(batchMessage('frames', sensorFrameToBatch(f)));
    await push.send(eosMessage('frames', frames.length + 1));
    const batches: RecordBatch[] = [];
    let otherMessages = 0;
    for (;;) {
      const msg = parseMessage(await pull.receive(), kind);
      if (msg.type === 'eos') break;
      if (msg.type === 'batch') batches.push(msg.batch);
      else otherMessages++;
    }
    const exitCode = await exit;
    if (exitCode !== 0) console.error(err);
    return { exitCode, batches, otherMessages, summary: JSON.parse(out.trim().split('\n').pop()!) };
  } finally {
    push.close();
    pull.close();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
