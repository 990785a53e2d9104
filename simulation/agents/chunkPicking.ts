// Picking the actions of an inference request chunk by chunk, shared by the inference thread and the
// thread that asked: whichever is free claims a chunk whose logits are ready (compare-and-swap), so the
// caller, done observing, takes action sampling off the thread that still runs the network.
import { selectActions } from '../training/policyStep.ts';
import { uniformAt } from './agentNoise.ts';

/** State of a chunk in a request (one Int32 per chunk in shared memory). */
export const CHUNK = {
  /** Its logits are not computed yet, or the inference thread picks it itself. */
  pending: 0,
  /** Logits written, actions not picked: either thread may claim it. */
  ready: 1,
  claimed: 2,
  picked: 3,
} as const;

/** Control words the picking reads (the rest of ctrl is learned.ts / learnedWorker.ts's protocol). */
export const CTRL_PICK_MODE = 3;
export const CTRL_STEP = 4;
/** Bumped (and notified) whenever a chunk turns ready and when the request ends. */
export const CTRL_POSTED = 5;

/** Views of the shared buffers of one inference thread. */
export interface PickBuffers {
  ctrl: Int32Array<ArrayBufferLike>;
  chunks: Int32Array<ArrayBufferLike>;
  /** Logits [rows, actions]. */
  logits: Float32Array<ArrayBufferLike>;
  /** Per row: the agent's noise key (in), the chosen action and its log-probability (out). */
  key: Uint32Array<ArrayBufferLike>;
  action: Int32Array<ArrayBufferLike>;
  logp: Float32Array<ArrayBufferLike>;
  /** [temperature] of sampled actions. */
  temperature: Float64Array<ArrayBufferLike>;
  actions: number;
  chunkRows: number;
}

/**
 * Pick the actions of chunk c of a request of n rows from its logits: argmax, or sampled with
 * uniformAt(key, step, 11) (ctrl[CTRL_PICK_MODE] 1 / 2). A pure function of the buffers, so the
 * result does not depend on which thread runs it.
 */
export function pickChunk(b: PickBuffers, c: number, n: number): void {
  const a = c * b.chunkRows;
  const e = Math.min(n, a + b.chunkRows);
  const step = b.ctrl[CTRL_STEP];
  const key = b.key;
  selectActions(
    b.logits.subarray(a * b.actions, e * b.actions),
    e - a,
    b.actions,
    b.ctrl[CTRL_PICK_MODE] === 2 ? 'sample' : 'argmax',
    (q) => uniformAt(key[a + q], step, 11),
    b.action.subarray(a, e),
    b.logp.subarray(a, e),
    b.temperature[0],
  );
}

/** Claim and pick every ready chunk of a request of n rows; returns how many this call picked. */
export function pickReadyChunks(b: PickBuffers, n: number): number {
  const chunks = Math.ceil(n / b.chunkRows);
  let picked = 0;
  for (let c = 0; c < chunks; c++) {
    if (
      Atomics.load(b.chunks, c) === CHUNK.ready &&
      Atomics.compareExchange(b.chunks, c, CHUNK.ready, CHUNK.claimed) === CHUNK.ready
    ) {
      pickChunk(b, c, n);
      Atomics.store(b.chunks, c, CHUNK.picked);
      picked++;
    }
  }
  return picked;
}

/** Whether every chunk of a request of n rows is picked. */
export function allPicked(b: PickBuffers, n: number): boolean {
  const chunks = Math.ceil(n / b.chunkRows);
  for (let c = 0; c < chunks; c++) if (Atomics.load(b.chunks, c) !== CHUNK.picked) return false;
  return true;
}
