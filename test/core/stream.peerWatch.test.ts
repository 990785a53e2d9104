// A stage sending over ipc to a slower receiver: every message and the end-of-stream arrive, though the
// sender is done long before the receiver (libzmq drops what a hung-up ipc peer left unread; see peerWatch.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tableFromArrays } from 'apache-arrow';
import { afterAll, expect, it } from 'vitest';
import { Pull } from 'zeromq';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import { parseMessage } from '../../core/stream/message.ts';
import { runStage } from '../../core/stream/stageRunner.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-peerwatch-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('a source over ipc ends only once its slow peer has taken everything, the end-of-stream included', async () => {
  const url = `ipc://${path.join(tmp, 'in.sock')}`;
  // A receive that waits 5 s for nothing fails the test instead of hanging it.
  const pull = new Pull({ receiveHighWaterMark: 2, receiveTimeout: 5000 });
  await pull.bind(url);
  const messages = 12;
  // 52 kB each: several fill the kernel's socket buffer while the receiver is held at its high-water mark.
  const batch = tableFromArrays({ x: new Float32Array(13_000) }).batches[0];
  const sender = runStage({
    name: 'test-source',
    source: async function* () {
      for (let i = 0; i < messages; i++) yield batch;
    },
    output: { endpoint: parseEndpoint(`push:connect:${url}`, 'out'), topic: 'frames' },
    sockets: { sendHighWaterMark: 2, lingerMs: 30_000 },
    log: () => {},
  });
  let batches = 0;
  let eos = false;
  while (!eos) {
    const msg = parseMessage(await pull.receive());
    if (msg.type === 'batch') batches++;
    else if (msg.type === 'eos') eos = true;
    // A slow receiver: the sender has long sent its last message.
    await new Promise((r) => setTimeout(r, 100));
  }
  pull.close();
  const result = await sender;
  expect(batches).toBe(messages);
  expect(result.eosSent).toBe(true);
}, 30_000);
