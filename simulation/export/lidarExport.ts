// Rendered LiDAR of a simulated scenario: the ego's sensor (the LiDAR simulator of simulation/lidar)
// sweeps every step of the rollout, written through the log store as SensorFrames with poses and box
// labels (every agent in range, in the frame's vehicle frame, with the points inside it).
import { allocateBoxes, setBoxRow } from '../../core/arrow/records.ts';
import { countPointsInBox, transformBox } from '../../core/geometry/box.ts';
import { invertPose, poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { InputError } from '../../core/errors.ts';
import { type LogMeta, LogWriter } from '../../datasets/logstore.ts';
import { templateFor } from '../lidar/agentMeshes.ts';
import { type LidarConfig, lidarConfig, type LidarModel } from '../lidar/beams.ts';
import { buildLidarWorld } from '../lidar/lidarWorld.ts';
import { createSweepPool } from '../lidar/sweepPool.ts';
import { sweepSceneFromTracks } from '../lidar/sweepScene.ts';
import type { Scenario } from '../scenario.ts';

export interface LidarExportOptions {
  model: LidarModel;
  /** Sensor settings over the model's preset. */
  sensor?: Partial<LidarConfig>;
  /** Frames rendered from the current step on (default: to the end of the scenario). */
  frames?: number;
  /** Worker threads (0 = this thread). */
  workers?: number;
}

/**
 * Render the ego's LiDAR over the simulated steps of `s` into a log at `outDir`. The scenes are the
 * road users (agent templates sized to their boxes) on a flat ground plane under the ego: scenarios
 * carry no building or vegetation meshes.
 */
export async function exportLidarLog(
  s: Scenario,
  outDir: string,
  opts: LidarExportOptions,
): Promise<LogMeta> {
  const e = s.egoIndex;
  if (e < 0) throw new InputError(s.id, 'scenario has no ego vehicle to carry the LiDAR');
  const tr = s.agents;
  const T = s.numSteps;
  const first = s.currentStep;
  const last = Math.min(T - 1, first + (opts.frames ?? T) - 1);
  if (!tr.valid[e * T + first]) throw new InputError(s.id, 'the ego is not valid at the current step');
  const sensor = lidarConfig(opts.model, opts.sensor);
  const groundZ = tr.z[e * T + first] - tr.height[e] / 2;
  const world = buildLidarWorld(null, null, groundZ);
  const n = tr.ids.length;
  const templates = Array.from({ length: n }, (_, a) => templateFor(tr.types[a], tr.length[a], tr.height[a]));
  const paint = Array.from({ length: n }, (_, a) => tr.ids[a] & 7);
  const pool = createSweepPool(world, sensor, opts.workers ?? 0);
  const writer = LogWriter.create(outDir, {
    source: 'simulation',
    sensor: sensor.name,
    rateHz: 1 / s.dtS,
    overwrite: true,
    extra: {
      scenario: s.id,
      scenarioSource: s.source,
      steps: [first, last],
      egoAgentId: tr.ids[e],
      lidarModel: sensor.model,
      world: 'road users on a flat ground plane under the ego (no static meshes)',
    },
  });
  const rows: { frame: number; agent: number; box: ReturnType<typeof transformBox>; points: number }[] = [];
  try {
    for (let step = first; step <= last; step++) {
      const frame = step - first;
      const scene = sweepSceneFromTracks(tr, {
        step,
        numSteps: T,
        dtS: s.dtS,
        sweepPeriodS: 1 / sensor.rateHz,
        egoRow: e,
        mountHeightM: sensor.mountHeightM,
        templates,
        paint,
        motion: sensor.motion,
      });
      const pts = await pool.render(scene, frame);
      const k = pts.count;
      const sp = scene.sensor;
      const pose = poseFromTranslationYaw(sp[4], sp[5], sp[6], sp[7]);
      const points = {
        x: pts.x.slice(0, k),
        y: pts.y.slice(0, k),
        z: pts.z.slice(0, k),
        intensity: pts.intensity.slice(0, k),
        ring: pts.ring.slice(0, k),
        tOffset: pts.tOffset.slice(0, k),
      };
      writer.appendFrame({ timestampNs: BigInt(Math.round(step * s.dtS * 1e9)), pose, points });
      const vehicleFromWorld = invertPose(pose);
      for (let a = 0; a < n; a++) {
        const j = a * T + step;
        if (a === e || !tr.valid[j]) continue;
        const box = transformBox(vehicleFromWorld, {
          cx: tr.x[j],
          cy: tr.y[j],
          cz: tr.z[j],
          length: tr.length[a],
          width: tr.width[a],
          height: tr.height[a],
          yaw: tr.yaw[j],
        });
        if (Math.hypot(box.cx, box.cy) > sensor.maxRangeM) continue;
        rows.push({ frame, agent: a, box, points: countPointsInBox(box, points.x, points.y, points.z) });
      }
    }
    const labels = allocateBoxes(rows.length);
    rows.forEach((r, i) =>
      setBoxRow(labels, i, {
        ...r.box,
        frameIndex: r.frame,
        trackId: tr.ids[r.agent],
        label: tr.types[r.agent],
        numPoints: r.points,
      }),
    );
    writer.setLabels(labels);
    return await writer.close();
  } catch (err) {
    writer.abort();
    throw err;
  } finally {
    await pool.close();
  }
}
