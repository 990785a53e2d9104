// A drivekit log as one MCAP file that Foxglove Studio opens: each sweep a foxglove.PointCloud, each pose a
// foxglove.FrameTransform (world → vehicle), labels / detections / tracks as foxglove.SceneUpdate cubes.
import type { Boxes } from '../core/arrow/records.ts';
import { cube, deleteAll, frameTransform, pointCloudMessage, type Rgba } from '../core/foxglove/messages.ts';
import { CLOCK_METADATA, clockMetadata, type McapClock, mcapClock } from '../core/foxglove/mcapClock.ts';
import { McapFile } from '../core/foxglove/mcapFile.ts';
import { LogReader } from './logstore.ts';

/** Frames and topics of the MCAP form of a log (docs/formats.md). */
export const LOG_MCAP = {
  worldFrame: 'world',
  vehicleFrame: 'vehicle',
  tfTopic: '/tf',
  lidarTopic: '/lidar',
  /** Box sets exported when the log has them, each on `/boxes/<name>`. */
  boxSets: ['labels', 'detections', 'tracks'],
} as const;

/** Colours (RGBA 0–1) per box set, as the report's BEV pictures draw them: truth green, discovered red. */
export const BOX_COLORS: Record<string, Rgba> = {
  labels: [0.2, 0.8, 0.2, 0.35],
  detections: [1, 0.6, 0, 0.35],
  tracks: [0.9, 0.15, 0.15, 0.35],
};

export interface LogMcapResult {
  file: string;
  bytes: number;
  frames: number;
  messages: number;
  /** Messages per topic. */
  topics: Record<string, number>;
  /** How message times relate to the log's timestamp_ns (a log counted from 0 is shifted to a fixed epoch). */
  clock: McapClock;
}

/** Box indices grouped by frame (a counting sort: one pass to count, one to place). */
function boxesByFrame(b: Boxes, frames: number): { start: Int32Array; order: Int32Array } {
  const start = new Int32Array(frames + 1);
  for (let k = 0; k < b.frameIndex.length; k++) {
    const f = b.frameIndex[k];
    if (f >= 0 && f < frames) start[f + 1]++;
  }
  for (let f = 0; f < frames; f++) start[f + 1] += start[f];
  const fill = start.slice(0, frames);
  const order = new Int32Array(start[frames]);
  for (let k = 0; k < b.frameIndex.length; k++) {
    const f = b.frameIndex[k];
    if (f >= 0 && f < frames) order[fill[f]++] = k;
  }
  return { start, order };
}

/** One frame's boxes as a SceneUpdate: everything earlier deleted, one entity per box (id = track or index). */
export function boxesSceneUpdate(
  b: Boxes,
  indices: ArrayLike<number>,
  frameId: string,
  ns: bigint,
  color: Rgba,
): Record<string, unknown> {
  const entities = [];
  for (let j = 0; j < indices.length; j++) {
    const k = indices[j];
    entities.push({
      timestamp: deleteAll(ns).timestamp,
      frame_id: frameId,
      id: b.trackId[k] >= 0 ? `track ${b.trackId[k]}` : `box ${j}`,
      metadata: [
        { key: 'label', value: b.label[k] },
        { key: 'score', value: b.score[k].toFixed(3) },
        { key: 'track_id', value: String(b.trackId[k]) },
        { key: 'num_points', value: String(b.numPoints[k]) },
      ],
      cubes: [
        cube(
          {
            cx: b.cx[k],
            cy: b.cy[k],
            cz: b.cz[k],
            length: b.length[k],
            width: b.width[k],
            height: b.height[k],
            yaw: b.yaw[k],
          },
          color,
        ),
      ],
    });
  }
  return { deletions: [deleteAll(ns)], entities };
}

/**
 * Write the log at `dir` as an MCAP file at `target` (atomically). Per frame, in time order: the pose, the
 * sweep, then each box set the log has; `onFrame` is called after each frame (progress).
 */
export async function exportLogMcap(
  dir: string,
  target: string,
  onFrame?: (bytes: number) => void,
): Promise<LogMcapResult> {
  const log = await LogReader.open(dir);
  let out: McapFile | null = null;
  try {
    const F = log.frameCount;
    const sets = LOG_MCAP.boxSets.flatMap((name) => {
      const b = log.readBoxes(name);
      return b ? [{ name, topic: `/boxes/${name}`, boxes: b, index: boxesByFrame(b, F) }] : [];
    });
    out = await McapFile.create(target);
    const clock = mcapClock(F > 0 ? log.timestampsNs[0] : 0n);
    await out.addMetadata(CLOCK_METADATA, clockMetadata(clock));
    const meta = { log_id: log.meta.logId, source: log.meta.source };
    await out.addChannel({ topic: LOG_MCAP.tfTopic, schema: 'foxglove.FrameTransform', metadata: meta });
    await out.addChannel({ topic: LOG_MCAP.lidarTopic, schema: 'foxglove.PointCloud', metadata: meta });
    for (const s of sets)
      await out.addChannel({ topic: s.topic, schema: 'foxglove.SceneUpdate', metadata: meta });
    const topics: Record<string, number> = {};
    const count = (t: string) => (topics[t] = (topics[t] ?? 0) + 1);
    for (let i = 0; i < F; i++) {
      const frame = await log.readFrame(i);
      const ns = frame.timestampNs + clock.offsetNs;
      let bytes = await out.add(
        LOG_MCAP.tfTopic,
        ns,
        frameTransform(LOG_MCAP.worldFrame, LOG_MCAP.vehicleFrame, frame.pose, ns),
      );
      count(LOG_MCAP.tfTopic);
      bytes += await out.add(
        LOG_MCAP.lidarTopic,
        ns,
        pointCloudMessage(frame.points, LOG_MCAP.vehicleFrame, ns),
      );
      count(LOG_MCAP.lidarTopic);
      for (const s of sets) {
        const { start, order } = s.index;
        const color = BOX_COLORS[s.name] ?? [0.5, 0.5, 1, 0.35];
        const msg = boxesSceneUpdate(
          s.boxes,
          order.subarray(start[i], start[i + 1]),
          LOG_MCAP.vehicleFrame,
          ns,
          color,
        );
        bytes += await out.add(s.topic, ns, msg);
        count(s.topic);
      }
      onFrame?.(bytes);
    }
    const messages = out.messageCount;
    const bytes = await out.close();
    out = null;
    return { file: target, bytes, frames: F, messages, topics, clock };
  } finally {
    out?.abort();
    await log.close();
  }
}
