// A simulated scenario (a rollout of `drivekit sim`) as an MCAP file that Foxglove Studio plays: the map as
// foxglove.SceneUpdate lines, every agent per step as cubes, the ego's pose as foxglove.FrameTransform.
import {
  cube,
  deleteAll,
  frameTransform,
  type Rgba,
  timestampOf,
  yawQuaternion,
} from '../../core/foxglove/messages.ts';
import { CLOCK_METADATA, clockMetadata, mcapClock } from '../../core/foxglove/mcapClock.ts';
import { McapFile } from '../../core/foxglove/mcapFile.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { type AgentType, LIGHT, type MapFeature, type Scenario } from '../scenario.ts';

/** Frames, topics and colours of the MCAP form of a scenario (docs/formats.md). */
export const SCENARIO_MCAP = {
  worldFrame: 'world',
  /**
   * The ego box's frame. Not `vehicle`: a LiDAR log rendered from the rollout (--lidar) places `vehicle` at
   * the sensor, and two files opened together must not publish two transforms for one frame.
   */
  egoFrame: 'ego',
  tfTopic: '/tf',
  mapTopic: '/map',
  agentsTopic: '/agents',
  lightsTopic: '/traffic_lights',
} as const;

const AGENT_COLORS: Record<AgentType | 'ego', Rgba> = {
  ego: [0.1, 0.4, 1, 0.8],
  vehicle: [0.95, 0.55, 0.1, 0.6],
  pedestrian: [0.9, 0.2, 0.6, 0.7],
  cyclist: [0.2, 0.75, 0.3, 0.7],
  other: [0.6, 0.6, 0.6, 0.6],
};
const LIGHT_COLORS: Rgba[] = [
  [0.5, 0.5, 0.5, 0.9],
  [1, 0.1, 0.1, 0.9],
  [1, 0.85, 0.1, 0.9],
  [0.1, 0.9, 0.2, 0.9],
];
const MAP_STYLE: { key: keyof Scenario['map']; color: Rgba; thickness: number; loop: boolean }[] = [
  { key: 'roadEdges', color: [0.1, 0.1, 0.1, 1], thickness: 0.15, loop: false },
  { key: 'roadLines', color: [0.85, 0.85, 0.85, 1], thickness: 0.1, loop: false },
  { key: 'crosswalks', color: [1, 1, 1, 1], thickness: 0.2, loop: true },
  { key: 'stopLines', color: [1, 0.15, 0.15, 1], thickness: 0.3, loop: false },
];

/**
 * Message time of a step: step × dt from the scenario start, shifted to the fixed epoch of a relative clock
 * (mcapClock), as a LiDAR log rendered from the scenario (lidarExport, step × dt) is in its MCAP form.
 */
const CLOCK = mcapClock(0n);
export const stepNs = (s: Scenario, step: number) => CLOCK.offsetNs + BigInt(Math.round(step * s.dtS * 1e9));

const WHITE: Rgba = [1, 1, 1, 1];
const rgba = (c: Rgba) => ({ r: c[0], g: c[1], b: c[2], a: c[3] });
const IDENTITY = { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } };

function line(xy: Float32Array, z: Float32Array | undefined, color: Rgba, thickness: number, loop: boolean) {
  const points = [];
  for (let i = 0; i < xy.length / 2; i++) points.push({ x: xy[2 * i], y: xy[2 * i + 1], z: z?.[i] ?? 0 });
  return { type: loop ? 1 : 0, pose: IDENTITY, thickness, points, color: rgba(color) };
}

/** The map as one entity that never expires: lane centrelines thin grey, edges, lines, crosswalks, stop lines. */
export function mapSceneUpdate(s: Scenario): Record<string, unknown> {
  const lines = s.map.lanes.map((l) => line(l.xy, undefined, [0.55, 0.55, 0.6, 0.8], 0.05, false));
  for (const style of MAP_STYLE) {
    const features = (s.map[style.key] ?? []) as MapFeature[];
    for (const f of features) lines.push(line(f.xy, f.z, style.color, style.thickness, style.loop));
  }
  return {
    entities: [
      {
        timestamp: timestampOf(stepNs(s, 0)),
        frame_id: SCENARIO_MCAP.worldFrame,
        id: 'map',
        metadata: [{ key: 'scenario_id', value: s.id }],
        lines,
      },
    ],
  };
}

/** Every valid agent at `step` as a cube (ego highlighted), the previous step's agents deleted. */
export function agentsSceneUpdate(s: Scenario, step: number): Record<string, unknown> {
  const a = s.agents;
  const T = s.numSteps;
  const ns = stepNs(s, step);
  const entities = [];
  for (let i = 0; i < a.ids.length; i++) {
    const j = i * T + step;
    if (!a.valid[j]) continue;
    const ego = i === s.egoIndex;
    entities.push({
      timestamp: timestampOf(ns),
      frame_id: SCENARIO_MCAP.worldFrame,
      id: `agent ${a.ids[i]}`,
      metadata: [
        { key: 'agent_id', value: String(a.ids[i]) },
        { key: 'type', value: a.types[i] },
        { key: 'ego', value: String(ego) },
        { key: 'speed_mps', value: Math.hypot(a.vx[j], a.vy[j]).toFixed(2) },
      ],
      cubes: [
        cube(
          {
            cx: a.x[j],
            cy: a.y[j],
            cz: a.z[j],
            length: a.stepLength?.[j] ?? a.length[i],
            width: a.stepWidth?.[j] ?? a.width[i],
            height: a.stepHeight?.[j] ?? a.height[i],
            yaw: a.yaw[j],
          },
          AGENT_COLORS[ego ? 'ego' : a.types[i]] ?? AGENT_COLORS.other,
        ),
      ],
    });
  }
  return { deletions: [deleteAll(ns)], entities };
}

/** The traffic lights at `step`: a coloured marker at each controlled lane's stop point. */
export function lightsSceneUpdate(s: Scenario, step: number): Record<string, unknown> {
  const ns = stepNs(s, step);
  const cubes = s.map.trafficLights.map((l) => {
    const state = l.states[step] ?? LIGHT.unknown;
    return {
      pose: {
        position: { x: l.stopX, y: l.stopY, z: (l.stopZ ?? 0) + 0.5 },
        orientation: yawQuaternion(0),
      },
      size: { x: 0.6, y: 0.6, z: 1 },
      color: rgba(LIGHT_COLORS[state] ?? WHITE),
    };
  });
  return {
    deletions: [deleteAll(ns)],
    entities: [
      { timestamp: timestampOf(ns), frame_id: SCENARIO_MCAP.worldFrame, id: 'traffic_lights', cubes },
    ],
  };
}

export interface ScenarioMcapResult {
  file: string;
  bytes: number;
  steps: number;
  messages: number;
  topics: Record<string, number>;
}

/** Write one scenario (all its steps) as an MCAP file at `target`, atomically. */
export async function exportScenarioMcap(
  s: Scenario,
  target: string,
  rollout = 0,
): Promise<ScenarioMcapResult> {
  const out = await McapFile.create(target);
  try {
    await out.addMetadata(CLOCK_METADATA, clockMetadata(CLOCK));
    const meta = { scenario_id: s.id, rollout: String(rollout), source: s.source };
    const lights = s.map.trafficLights.length > 0;
    await out.addChannel({ topic: SCENARIO_MCAP.tfTopic, schema: 'foxglove.FrameTransform', metadata: meta });
    await out.addChannel({ topic: SCENARIO_MCAP.mapTopic, schema: 'foxglove.SceneUpdate', metadata: meta });
    await out.addChannel({
      topic: SCENARIO_MCAP.agentsTopic,
      schema: 'foxglove.SceneUpdate',
      metadata: meta,
    });
    if (lights)
      await out.addChannel({
        topic: SCENARIO_MCAP.lightsTopic,
        schema: 'foxglove.SceneUpdate',
        metadata: meta,
      });
    const topics: Record<string, number> = {};
    const add = async (topic: string, ns: bigint, msg: Record<string, unknown>) => {
      await out.add(topic, ns, msg);
      topics[topic] = (topics[topic] ?? 0) + 1;
    };
    await add(SCENARIO_MCAP.mapTopic, stepNs(s, 0), mapSceneUpdate(s));
    const a = s.agents;
    const e = s.egoIndex;
    for (let t = 0; t < s.numSteps; t++) {
      const ns = stepNs(s, t);
      const j = e * s.numSteps + t;
      if (e >= 0 && a.valid[j]) {
        const pose = poseFromTranslationYaw(a.x[j], a.y[j], a.z[j], a.yaw[j]);
        await add(
          SCENARIO_MCAP.tfTopic,
          ns,
          frameTransform(SCENARIO_MCAP.worldFrame, SCENARIO_MCAP.egoFrame, pose, ns),
        );
      }
      await add(SCENARIO_MCAP.agentsTopic, ns, agentsSceneUpdate(s, t));
      if (lights) await add(SCENARIO_MCAP.lightsTopic, ns, lightsSceneUpdate(s, t));
    }
    const messages = out.messageCount;
    const bytes = await out.close();
    return { file: target, bytes, steps: s.numSteps, messages, topics };
  } catch (e) {
    out.abort();
    throw e;
  }
}
