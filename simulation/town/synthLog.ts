// A synthetic log with exact ground truth: town → LiDAR at 10 Hz → frames, poses, labels (agents in range with
// points inside their box) through the log store, plus the scenario. Same seed → byte-identical frames.
import path from 'node:path';
import { type Boxes, allocateBoxes, setBoxRow } from '../../core/arrow/records.ts';
import { countPointsInBox, transformBox } from '../../core/geometry/box.ts';
import { invertPose, poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { type LogMeta, LogWriter } from '../../datasets/logstore.ts';
import { templateFor } from '../lidar/agentMeshes.ts';
import { type LidarConfig, type LidarModel, lidarConfig } from '../lidar/beams.ts';
import { buildLidarWorld } from '../lidar/lidarWorld.ts';
import type { SweepPoints } from '../lidar/sweep.ts';
import { createSweepPool } from '../lidar/sweepPool.ts';
import { sweepSceneFromTracks } from '../lidar/sweepScene.ts';
import { saveScenario } from '../scenarioIo.ts';
import { AGENT_CLASSES } from './agentSizes.ts';
import { townGroundRaster } from './groundRaster.ts';
import { type Town, generateTown } from './town.ts';
import type { TownConfig } from './townConfig.ts';
import { townStaticGeometry } from './townMeshes.ts';

export interface SynthOptions {
  out: string;
  frames: number;
  seed: number;
  lidar: LidarModel;
  /** Replace an existing log at `out`. */
  overwrite?: boolean;
  /** Town settings over the defaults (the seed comes from `seed`). */
  town?: Partial<TownConfig>;
  /** Sensor settings over the model's preset (the noise seed comes from `seed`). */
  sensor?: Partial<LidarConfig>;
  /** Worker threads for the sweeps (0 or 1 = this thread). */
  workers?: number;
  /** Agents farther than this from the sensor (ground distance) get no label; default: the sensor's max range. */
  labelRangeM?: number;
  /** Also write the scenario (scenario.json and the Arrow tables under scenario/); default true. */
  writeScenario?: boolean;
  progress?: (total: number) => { tick(n?: number): void; stop(): void };
}

export interface SynthResult {
  meta: LogMeta;
  town: Town;
  sensor: LidarConfig;
  labels: Boxes;
  /** Per frame: for each label row of that frame, the points whose ray hit that agent's mesh (diagnostics/tests). */
  meshHitsPerLabel: Int32Array;
}

/** The vehicle (= LiDAR) frame of the log: KITTI's velodyne frame, origin at the sensor, ground at z = −mount height. */
export const SYNTH_VEHICLE_FRAME =
  'LiDAR sensor frame (KITTI velodyne convention): origin at the sensor, x forward, y left, z up; the ground is at z = −mountHeightM';

export async function writeSyntheticLog(o: SynthOptions): Promise<SynthResult> {
  if (!Number.isInteger(o.frames) || o.frames < 1)
    throw new Error(`frames must be a positive integer, got ${o.frames}`);
  const town = generateTown({ ...o.town, seed: o.seed }, o.frames);
  const sensor = lidarConfig(o.lidar, { noiseSeed: o.seed, ...o.sensor });
  const world = buildLidarWorld(townStaticGeometry(town), townGroundRaster(town), 0);
  const tr = town.traffic.tracks;
  const n = tr.ids.length;
  const ego = town.traffic.egoIndex;
  const templates = Array.from({ length: n }, (_, a) =>
    templateFor(town.traffic.classes[a], tr.length[a], tr.height[a]),
  );
  // Parked cars are part of the static BVH; the per-frame scene holds only what moves.
  const movers = Array.from({ length: n }, (_, a) => a).filter(
    (a) => a !== ego && town.traffic.roles[a] !== 'parked',
  );
  const sceneIndex = new Int32Array(n).fill(-1);
  movers.forEach((a, i) => (sceneIndex[a] = i));
  const labelRange = o.labelRangeM ?? sensor.maxRangeM;
  const pool = createSweepPool(world, sensor, o.workers ?? 0);
  const writer = LogWriter.create(o.out, {
    source: 'synthetic',
    sensor: sensor.name,
    rateHz: 1 / town.config.dtS,
    overwrite: o.overwrite,
    extra: {
      generator: 'drivekit synth',
      seed: o.seed,
      // Exact poses, even where the ego never moves (a stationary recording is not a log without poses).
      posesKnown: true,
      lidarModel: sensor.model,
      sensor: { ...sensor },
      town: { ...town.config },
      vehicleFrame: SYNTH_VEHICLE_FRAME,
      labelClasses: [...AGENT_CLASSES],
      labelRangeM: labelRange,
      labels:
        'every agent (moving or parked) within labelRangeM of the sensor, occluded ones included (num_points 0)',
      scenario: o.writeScenario === false ? null : { json: 'scenario.json', arrow: 'scenario' },
      egoAgentId: tr.ids[ego],
    },
  });
  const progress = o.progress?.(o.frames);
  const rows: {
    frame: number;
    agent: number;
    box: ReturnType<typeof transformBox>;
    points: number;
    hits: number;
  }[] = [];
  try {
    // Keep a few frames in flight so every worker stays busy; append strictly in order.
    const inFlight = new Map<number, Promise<SweepPoints>>();
    const depth = Math.max(1, pool.workers);
    const scenes = (f: number) =>
      sweepSceneFromTracks(tr, {
        step: f,
        numSteps: o.frames,
        dtS: town.config.dtS,
        sweepPeriodS: 1 / sensor.rateHz,
        egoRow: ego,
        mountHeightM: sensor.mountHeightM,
        rows: movers,
        templates,
        paint: town.traffic.paint,
        motion: sensor.motion,
      });
    const sceneOf: ReturnType<typeof scenes>[] = [];
    for (let f = 0; f < o.frames; f++) {
      for (let g = f; g < Math.min(o.frames, f + depth); g++) {
        if (!inFlight.has(g)) {
          sceneOf[g] = scenes(g);
          inFlight.set(g, pool.render(sceneOf[g], g));
        }
      }
      const pts = await inFlight.get(f)!;
      inFlight.delete(f);
      const s = sceneOf[f].sensor;
      const pose = poseFromTranslationYaw(s[4], s[5], s[6], s[7]);
      const count = pts.count;
      const x = pts.x.slice(0, count);
      const y = pts.y.slice(0, count);
      const z = pts.z.slice(0, count);
      writer.appendFrame({
        timestampNs: BigInt(f) * BigInt(Math.round(town.config.dtS * 1e9)),
        pose,
        points: {
          x,
          y,
          z,
          intensity: pts.intensity.slice(0, count),
          ring: pts.ring.slice(0, count),
          tOffset: pts.tOffset.slice(0, count),
        },
      });
      // Labels: agents at this step, in this frame's vehicle frame.
      const vehicleFromWorld = invertPose(pose);
      const hitsBySceneAgent = new Int32Array(movers.length);
      for (let i = 0; i < count; i++) if (pts.agent[i] >= 0) hitsBySceneAgent[pts.agent[i]]++;
      for (let a = 0; a < n; a++) {
        if (a === ego) continue;
        const k = a * o.frames + f;
        if (!tr.valid[k]) continue;
        const box = transformBox(vehicleFromWorld, {
          cx: tr.x[k],
          cy: tr.y[k],
          cz: tr.z[k],
          length: tr.length[a],
          width: tr.width[a],
          height: tr.height[a],
          yaw: tr.yaw[k],
        });
        if (Math.hypot(box.cx, box.cy) > labelRange) continue;
        const mover = sceneIndex[a];
        rows.push({
          frame: f,
          agent: a,
          box,
          points: countPointsInBox(box, x, y, z),
          hits: mover >= 0 ? hitsBySceneAgent[mover] : -1,
        });
      }
      progress?.tick();
    }
    const labels = allocateBoxes(rows.length);
    const meshHitsPerLabel = new Int32Array(rows.length);
    rows.forEach((r, i) => {
      setBoxRow(labels, i, {
        ...r.box,
        frameIndex: r.frame,
        trackId: tr.ids[r.agent],
        label: town.traffic.classes[r.agent],
        score: 1,
        numPoints: r.points,
      });
      meshHitsPerLabel[i] = r.hits;
    });
    writer.setLabels(labels);
    // The scenario goes in last, just before meta.json marks the log complete.
    if (o.writeScenario !== false) {
      saveScenario(town.scenario, path.join(writer.writeDir, 'scenario.json'));
      saveScenario(town.scenario, path.join(writer.writeDir, 'scenario'));
    }
    const meta = await writer.close();
    return { meta, town, sensor, labels, meshHitsPerLabel };
  } catch (e) {
    writer.abort();
    throw e;
  } finally {
    progress?.stop();
    await pool.close();
  }
}
