// The inference thread of the learned agent: holds the policy's onnxruntime session and answers one
// batched request at a time through shared memory, so the simulator's synchronous step can wait on it.
import { workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { CHUNK, CTRL_PICK_MODE, CTRL_POSTED, type PickBuffers, pickChunk } from './chunkPicking.ts';

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
  /** Per chunk of a request: its state (chunkPicking.ts CHUNK). */
  chunks: SharedArrayBuffer;
  obsSize: number;
  actions: number;
  /** Rows per onnxruntime run (a request is cut into fixed chunks [0, c), [c, 2c), …). */
  chunkRows: number;
}

// ctrl[0]: 1 request, 2 done, 3 failed, 4 ready / idle; ctrl[1]: rows of the request; ctrl[2]: rows the
// main thread has written so far (it observes while this thread infers the rows already written);
// ctrl[3]: actions to pick per chunk (0 none, 1 argmax, 2 sampled with uniformAt(key, ctrl[4], 11));
// ctrl[5]: bumped when a chunk is left for the main thread to pick and when a request ends.
const init = workerData as Init;
const ctrl = new Int32Array(init.ctrl);
const obs = new Float32Array(init.obs);
const out = new Float32Array(init.out);
const err = new Uint8Array(init.err);
const key = new Uint32Array(init.key);
const action = new Int32Array(init.action);
const logp = new Float32Array(init.logp);
const temperature = new Float64Array(init.temperature);
const picks: PickBuffers = {
  ctrl,
  chunks: new Int32Array(init.chunks),
  logits: out,
  key,
  action,
  logp,
  temperature,
  actions: init.actions,
  chunkRows: init.chunkRows,
};

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
  post();
}

/** Wake the main thread if it waits for chunks to pick. */
function post(): void {
  Atomics.add(ctrl, CTRL_POSTED, 1);
  Atomics.notify(ctrl, CTRL_POSTED);
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

/** Whether a chunk before `end` still waits to be picked (by the main thread). */
function unpicked(end: number): boolean {
  for (let c = 0; c < end; c++) if (Atomics.load(picks.chunks, c) !== CHUNK.picked) return true;
  return false;
}

async function serve(): Promise<void> {
  const open = (threads: number) =>
    ort.InferenceSession.create(init.model, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // The main thread works (observes) between and during our runs: spinning threads would take its core.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
  const session = await open(init.threads);
  // While the main thread works — observing the rows still to come, or picking chunks left to it — a
  // second intra-op thread only takes its core (10,000 agents: 15 % faster on one thread); once it
  // waits, every thread helps (1,000 agents: 7 % faster on two). Logits do not depend on the thread
  // count (onnxruntime splits a GEMM's outputs, not its sums), so which session runs a chunk is free.
  const busySession = init.threads > 1 ? await open(1) : session;

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
      let leftToMain = 0;
      // Fixed chunks: each row's logits come from a run of the same rows whatever the timing, and a
      // chunk's intermediates stay in cache (one run of 10,000 rows streams ~100 MB through memory).
      for (let a = 0; a < n; a += init.chunkRows) {
        const b = Math.min(n, a + init.chunkRows);
        await rowsReady(b);
        if (scratch.length < (b - a) * D) scratch = new Float32Array(init.chunkRows * D);
        const x = scratch.subarray(0, (b - a) * D);
        x.set(obs.subarray(a * D, b * D));
        const mainBusy = Atomics.load(ctrl, 2) < n || unpicked(leftToMain);
        // Logits only: the value head is not run.
        const res = await (mainBusy ? busySession : session).run(
          { obs: new ort.Tensor('float32', x, [b - a, D]) },
          ['logits'],
        );
        out.set(res.logits.data as Float32Array, a * init.actions);
        if (ctrl[CTRL_PICK_MODE] === 0) continue;
        const c = a / init.chunkRows;
        // Once the main thread has written every row it waits in `finish`: leave it this chunk's
        // actions and run the next; the last chunk is picked here (nothing else is left to run).
        if (Atomics.load(ctrl, 2) >= n && b < n) {
          Atomics.store(picks.chunks, c, CHUNK.ready);
          leftToMain = c + 1;
          post();
        } else {
          pickChunk(picks, c, n);
          Atomics.store(picks.chunks, c, CHUNK.picked);
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
