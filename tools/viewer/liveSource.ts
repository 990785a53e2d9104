// The viewer's live mode: a SUB (or PULL) socket on a `drivekit stage` publisher; SensorFrame and Boxes
// batches are kept in a window of recent frames and announced to the page as server-sent events.
import { batchToBoxes, batchToSensorFrame } from '../../core/arrow/codec.ts';
import { pointCloudToBatch, sensorFrameMetadata } from '../../core/arrow/codec.ts';
import type { SensorFrame } from '../../core/arrow/records.ts';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import { encodeBatchBytes, parseMessage } from '../../core/stream/message.ts';
import { DEFAULT_SOCKET_CONFIG, openInput } from '../../core/stream/sockets.ts';
import { encodeWireFrame } from './frameWire.ts';
import { type FrameScene, type LiveEvent, type ViewerInfo, type ViewerSource } from './viewerSource.ts';

export interface LiveOptions {
  /** Frames kept for scrubbing back (older ones are dropped: a stream has no end to load). */
  keepFrames: number;
}

export const DEFAULT_LIVE_OPTIONS: LiveOptions = {
  // About 20 s at 10 Hz; at 120k points a frame ≈ 2 MB each, so ≈ 400 MB at most.
  keepFrames: 200,
};

/** An endpoint given as a bare URL is a SUB that connects (a stage publisher binds). */
export function liveEndpoint(spec: string) {
  const bare = !/^(push|pull|pub|sub|bind|connect):(?!\/\/)/.test(spec);
  return parseEndpoint(bare ? `sub:connect:${spec}` : spec, 'in');
}

export const isEndpointSpec = (s: string) => /^((pull|sub|bind|connect):)*(tcp|ipc|inproc):\/\//.test(s);

export async function openLiveSource(spec: string, o: Partial<LiveOptions> = {}): Promise<ViewerSource> {
  const opts = { ...DEFAULT_LIVE_OPTIONS, ...o };
  const endpoint = liveEndpoint(spec);
  const { socket } = await openInput(endpoint, DEFAULT_SOCKET_CONFIG);
  const frames = new Map<number, SensorFrame>();
  const boxes = new Map<number, Record<string, number[]>>();
  const listeners = new Set<(e: LiveEvent) => void>();
  const info: ViewerInfo = {
    kind: 'live',
    name: spec,
    frame_count: 0,
    first_frame: 0,
    rate_hz: 10,
    has_points: true,
    box_sets: [],
    agent_sets: [],
    has_map: false,
    has_forecast: false,
    live: true,
  };
  let skipped = 0;
  const emit = (e: LiveEvent) => listeners.forEach((l) => l(e));
  const forget = () => {
    const oldest = info.frame_count - opts.keepFrames;
    for (const k of frames.keys()) if (k < oldest) frames.delete(k);
    for (const k of boxes.keys()) if (k < oldest) boxes.delete(k);
    info.first_frame = Math.max(0, oldest);
  };
  let closed = false;
  const loop = (async () => {
    for await (const msg of socket) {
      const m = parseMessage(msg as Buffer[]);
      if (m.type === 'eos') {
        emit({ type: 'end', reason: `end of stream '${m.eos.topic}' after ${m.eos.messages} messages` });
        continue;
      }
      if (m.type === 'bos') continue; // a source's announcement: nothing to show
      if (m.type === 'malformed') {
        skipped++;
        continue;
      }
      const schema = m.batch.schema.metadata.get('drivekit.schema') ?? '';
      try {
        if (schema.startsWith('sensor_frame/')) {
          const f = batchToSensorFrame(m.batch, `topic '${m.topic}'`);
          frames.set(f.frameIndex, f);
          info.frame_count = Math.max(info.frame_count, f.frameIndex + 1);
          forget();
          emit({ type: 'frame', frame_index: f.frameIndex, points: f.points.x.length });
        } else if (schema.startsWith('boxes/')) {
          const b = batchToBoxes(m.batch, `topic '${m.topic}'`);
          if (!info.box_sets.includes(m.topic)) info.box_sets.push(m.topic);
          const touched = new Set<number>();
          for (let r = 0; r < b.cx.length; r++) {
            const f = b.frameIndex[r];
            let rec = boxes.get(f);
            if (!rec) boxes.set(f, (rec = {}));
            // A new batch for a frame replaces that set's boxes of the frame (a stage sends a frame once).
            if (!touched.has(f)) rec[m.topic] = [];
            touched.add(f);
            // The row layout of BOX_STRIDE (viewerSource.ts).
            rec[m.topic].push(b.cx[r], b.cy[r], b.cz[r], b.length[r], b.width[r], b.height[r], b.yaw[r]);
            rec[m.topic].push(b.trackId[r]);
          }
          for (const f of touched) emit({ type: 'boxes', frame_index: f, set: m.topic });
        } else skipped++;
      } catch {
        // A batch that does not decode is counted and skipped, as every stage does (docs/streams.md).
        skipped++;
      }
    }
  })().catch((e: unknown) => {
    if (!closed) emit({ type: 'end', reason: `stream failed: ${(e as Error).message}` });
  });
  return {
    info: () => ({ ...info, skipped }),
    async framePoints(i) {
      const f = frames.get(i);
      return f ? encodeWireFrame({ frameIndex: i, pose: f.pose, points: f.points }) : null;
    },
    async frameArrow(i) {
      const f = frames.get(i);
      return f ? encodeBatchBytes(pointCloudToBatch(f.points, sensorFrameMetadata(f), i)) : null;
    },
    async scene(i): Promise<FrameScene | null> {
      const f = frames.get(i);
      if (!f) return null;
      const rec = boxes.get(i) ?? {};
      const out: Record<string, number[]> = {};
      for (const s of info.box_sets) out[s] = rec[s] ?? [];
      return {
        frame_index: i,
        pose: Array.from(f.pose),
        boxes: out,
        agents: {},
        ego_agent_id: null,
        forecast: null,
      };
    },
    forecastPoints: async () => null,
    map: () => null,
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async close() {
      closed = true;
      socket.close();
      await loop;
    },
  };
}
