// The inference thread of the learned agent: holds the policy's onnxruntime session and answers one
// batched request at a time through shared memory, so the simulator's synchronous step can wait on it.
import { workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { selectActions } from '../training/policyStep.ts';
import { uniformAt } from './agentNoise.ts';

interface Init {
  model: Uint8Array;
  threads: number;
  ctrl: SharedArrayBuffer;
  obs: SharedArrayBuffer;
  out: SharedArrayBuffer;
  err: SharedArrayBuffer;
  /** Per row: the agent's noise key (in), the chosen action and its log-probability (out). */
  key: SharedArrayBuffer;
  action: SharedArrayBuffer;
  logp: SharedArrayBuffer;
  /** [temperature] of the sampled actions. */
  temperature: SharedArrayBuffer;
  obsSize: number;
  actions: number;
  /** Rows per onnxruntime run (a request is cut into fixed chunks [0, c), [c, 2c), …). */
  chunkRows: number;
}

// ctrl[0]: 1 request, 2 done, 3 failed, 4 ready / idle; ctrl[1]: rows of the request; ctrl[2]: rows the
// main thread has written so far (it observes while this thread infers the rows already written);
// ctrl[3]: actions to pick per chunk (0 none, 1 argmax, 2 sampled with uniformAt(key, ctrl[4], 11)).
const init = workerData as Init;
const ctrl = new Int32Array(init.ctrl);
const obs = new Float32Array(init.obs);
const out = new Float32Array(init.out);
const err = new Uint8Array(init.err);
const key = new Uint32Array(init.key);
const action = new Int32Array(init.action);
const logp = new Float32Array(init.logp);
const temperature = new Float64Array(init.temperature);

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
// Node 20 has Atomics.waitAsync; the project's TS lib (ES2022) does not declare it yet.
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

function signal(state: number): void {
  Atomics.store(ctrl, 0, state);
  Atomics.notify(ctrl, 0);
}

/** Wait until the main thread has written at least `rows` rows (it notifies ctrl[2] on each update). */
async function rowsReady(rows: number): Promise<void> {
  for (;;) {
    const v = Atomics.load(ctrl, 2);
    if (v >= rows) return;
    const w = waitAsync(ctrl, 2, v);
    if (w.async) await w.value;
  }
}

async function serve(): Promise<void> {
  const session = await ort.InferenceSession.create(init.model, {
    intraOpNumThreads: init.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    // The main thread works (observes) between and during our runs: spinning threads would take its core.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  // One copy buffer (onnxruntime-node refuses views of shared memory), grown to the largest chunk.
  let scratch = new Float32Array(0);
  signal(4);
  for (;;) {
    const v = Atomics.load(ctrl, 0);
    if (v !== 1) {
      // Sleep until the main thread posts a request (it notifies after storing 1).
      const w = waitAsync(ctrl, 0, v);
      if (w.async) await w.value;
      continue;
    }
    try {
      const n = ctrl[1];
      const D = init.obsSize;
      // Fixed chunks: each row's logits come from a run of the same rows whatever the timing, and a
      // chunk's intermediates stay in cache (one run of 10,000 rows streams ~100 MB through memory).
      for (let a = 0; a < n; a += init.chunkRows) {
        const b = Math.min(n, a + init.chunkRows);
        await rowsReady(b);
        if (scratch.length < (b - a) * D) scratch = new Float32Array(init.chunkRows * D);
        const x = scratch.subarray(0, (b - a) * D);
        x.set(obs.subarray(a * D, b * D));
        const res = await session.run({ obs: new ort.Tensor('float32', x, [b - a, D]) });
        const logits = res.logits.data as Float32Array;
        out.set(logits, a * init.actions);
        const mode = ctrl[3];
        if (mode !== 0) {
          const step = ctrl[4];
          selectActions(
            logits,
            b - a,
            init.actions,
            mode === 2 ? 'sample' : 'argmax',
            (q) => uniformAt(key[a + q], step, 11),
            action.subarray(a, b),
            logp.subarray(a, b),
            temperature[0],
          );
        }
      }
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
