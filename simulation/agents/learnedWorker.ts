// The inference thread of the learned agent: holds the policy's onnxruntime session and answers one
// batched request at a time through shared memory, so the simulator's synchronous step can wait on it.
import { workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';

interface Init {
  model: Uint8Array;
  threads: number;
  ctrl: SharedArrayBuffer;
  obs: SharedArrayBuffer;
  out: SharedArrayBuffer;
  err: SharedArrayBuffer;
  obsSize: number;
  actions: number;
}

// ctrl[0]: 1 request, 2 done, 3 failed, 4 ready / idle; ctrl[1]: rows of the request.
const init = workerData as Init;
const ctrl = new Int32Array(init.ctrl);
const obs = new Float32Array(init.obs);
const out = new Float32Array(init.out);
const err = new Uint8Array(init.err);

/** The main thread is blocked while we fail, so the reason goes into shared memory, not a message. */
function fail(e: unknown): void {
  const text = new TextEncoder().encode(String((e as Error)?.message ?? e)).subarray(0, err.length - 1);
  err.fill(0);
  err.set(text);
  signal(3);
}

type WaitAsync = (
  a: Int32Array<ArrayBufferLike>,
  i: number,
  v: number,
) => { async: boolean; value: Promise<string> | string };

function signal(state: number): void {
  Atomics.store(ctrl, 0, state);
  Atomics.notify(ctrl, 0);
}

async function serve(): Promise<void> {
  const session = await ort.InferenceSession.create(init.model, {
    intraOpNumThreads: init.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  signal(4);
  for (;;) {
    const v = Atomics.load(ctrl, 0);
    if (v !== 1) {
      // Sleep until the main thread posts a request (it notifies after storing 1).
      // Node 20 has Atomics.waitAsync; the project's TS lib (ES2022) does not declare it yet.
      const w = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(ctrl, 0, v);
      if (w.async) await w.value;
      continue;
    }
    try {
      const n = ctrl[1];
      // onnxruntime-node refuses views of shared memory: the request is copied out first.
      const x = new ort.Tensor('float32', obs.slice(0, n * init.obsSize), [n, init.obsSize]);
      const res = await session.run({ obs: x });
      out.set(res.logits.data as Float32Array, 0);
      signal(2);
    } catch (e) {
      fail(e);
    }
  }
}

// A pending Atomics.waitAsync does not keep a thread's event loop alive: without this timer the idle
// thread would exit between requests and the main thread would wait forever.
setInterval(() => {}, 1 << 30);
serve().catch(fail);
