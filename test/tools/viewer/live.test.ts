// The viewer's live mode: a SUB socket on a stage-style publisher (SensorFrame and Boxes batches over
// ZeroMQ), frames served over HTTP as they arrive and announced to the page as server-sent events.
import { afterEach, describe, expect, it } from 'vitest';
import { boxesToBatch, pointCloudToBatch, sensorFrameMetadata } from '../../../core/arrow/codec.ts';
import { allocatePointCloud, boxesFromRows } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { parseEndpoint } from '../../../core/stream/endpoint.ts';
import { batchMessage, eosMessage } from '../../../core/stream/message.ts';
import { DEFAULT_SOCKET_CONFIG, openOutput, waitForSubscribers } from '../../../core/stream/sockets.ts';
import type { XPublisher } from 'zeromq';
import { decodeWireFrame } from '../../../tools/viewer/frameWire.ts';
import { openViewerSource } from '../../../tools/viewer/openSource.ts';
import { startViewerServer } from '../../../tools/viewer/server.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function frameBatch(i: number, n: number) {
  const p = allocatePointCloud(n);
  for (let k = 0; k < n; k++) {
    p.x[k] = 5 + k;
    p.y[k] = i;
    p.z[k] = -1;
    p.ring[k] = k % 4;
  }
  const pose = poseFromTranslationYaw(2 * i, 0, 1.7, 0);
  return pointCloudToBatch(p, sensorFrameMetadata({ logId: 'live', frameIndex: i, timestampNs: 0n, pose }));
}

type Event = { type: string; frame_index?: number; set?: string };

/** A server-sent event stream, open once its first event (hello) has arrived; `until` reads on. */
async function openEvents(url: string) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 10_000);
  const res = await fetch(url, { signal: ctl.signal });
  const reader = res.body!.getReader();
  const events: Event[] = [];
  let text = '';
  const until = async (done: (ev: Event[]) => boolean) => {
    while (!done(events)) {
      const r = await reader.read();
      if (r.done) break;
      text += new TextDecoder().decode(r.value);
      const parts = text.split('\n\n');
      text = parts.pop()!;
      for (const p of parts) if (p.startsWith('data: ')) events.push(JSON.parse(p.slice(6)) as Event);
    }
    return events;
  };
  await until((ev) => ev.length > 0);
  return {
    until,
    close: () => {
      clearTimeout(timer);
      ctl.abort();
    },
  };
}

describe('drivekit view on a stream endpoint', () => {
  it('follows a publisher: frames and boxes as they arrive, one event each, and the end of the stream', async () => {
    const out = await openOutput(parseEndpoint('pub:bind:tcp://127.0.0.1:*', 'out'), DEFAULT_SOCKET_CONFIG);
    cleanups.push(() => out.socket.close());
    const source = await openViewerSource(out.address);
    cleanups.push(() => source.close());
    const server = await startViewerServer(source, { port: 0 });
    cleanups.push(() => server.close());
    expect(source.info()).toMatchObject({ kind: 'live', live: true, frame_count: 0 });

    const sse = await openEvents(new URL('/api/events', server.url).href);
    cleanups.push(() => sse.close());
    await waitForSubscribers(out.socket as XPublisher, 1);
    for (let i = 0; i < 3; i++) await out.socket.send(batchMessage('frames', frameBatch(i, 10 + i)));
    const boxes = boxesFromRows([
      { frameIndex: 1, cx: 8, cy: 1, cz: -0.5, length: 4, width: 2, height: 1.5, yaw: 0 },
    ]);
    await out.socket.send(batchMessage('detections', boxesToBatch(boxes)));
    await out.socket.send(['frames', Buffer.from('not arrow')]);
    await out.socket.send(eosMessage('frames', 3));

    const got = await sse.until((ev) => ev.some((e) => e.type === 'end'));
    expect(got[0].type).toBe('hello');
    expect(got.filter((e) => e.type === 'frame').map((e) => e.frame_index)).toEqual([0, 1, 2]);
    expect(got.filter((e) => e.type === 'boxes')).toEqual([
      { type: 'boxes', frame_index: 1, set: 'detections' },
    ]);
    expect(source.info()).toMatchObject({ frame_count: 3, box_sets: ['detections'], skipped: 1 });

    const bytes = new Uint8Array(await (await fetch(new URL('/frames/2', server.url))).arrayBuffer());
    const f = decodeWireFrame(bytes);
    expect(f.frameIndex).toBe(2);
    expect(f.xyz.length).toBe(3 * 12);
    expect(f.pose[3]).toBe(4);
    const scene = (await (await fetch(new URL('/frames/1/scene', server.url))).json()) as {
      boxes: Record<string, number[]>;
    };
    expect(scene.boxes.detections.slice(0, 3)).toEqual([8, 1, -0.5]);
  }, 20_000);

  it('keeps only a window of recent frames', async () => {
    const out = await openOutput(parseEndpoint('pub:bind:tcp://127.0.0.1:*', 'out'), DEFAULT_SOCKET_CONFIG);
    cleanups.push(() => out.socket.close());
    const source = await openViewerSource(out.address, { keepFrames: 2 });
    cleanups.push(() => source.close());
    await waitForSubscribers(out.socket as XPublisher, 1);
    for (let i = 0; i < 5; i++) await out.socket.send(batchMessage('frames', frameBatch(i, 4)));
    for (let t = 0; t < 100 && source.info().frame_count < 5; t++)
      await new Promise((r) => setTimeout(r, 20));
    expect(source.info()).toMatchObject({ frame_count: 5, first_frame: 3 });
    expect(await source.framePoints(2)).toBeNull();
    expect(await source.framePoints(4)).not.toBeNull();
  });

  it('refuses a target that is neither a log, a rollout, a scenario nor an endpoint', async () => {
    await expect(openViewerSource('/nonexistent/log')).rejects.toThrow(/nonexistent\/log: no such/);
    await expect(openViewerSource('ftp://x')).rejects.toThrow(/no such/);
  });
});
