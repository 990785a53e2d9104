// The worker pool under the stages' parallel loops: replies reach their own callers whatever order the workers
// finish in, a request that throws rejects alone with its message, a failed set-up or a dead worker rejects.
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkerPool, type WorkerPool } from '../../core/workerPool.ts';

type Request = { values: Float64Array; delayMs?: number } | 'throw' | 'exit';
const url = new URL('./fixtures/poolWorker.ts', import.meta.url);
const pools: WorkerPool<Request, Float64Array>[] = [];
const open = (factor: number) => {
  const p = createWorkerPool<number, Request, Float64Array>(url, 2, factor, 'test worker');
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('worker pool', () => {
  it('answers each request with its own reply, also when a later one finishes first', async () => {
    const pool = open(3);
    const slow = pool.call({ values: Float64Array.of(1, 2), delayMs: 300 });
    const fast = pool.call({ values: Float64Array.of(10) });
    const queued = pool.call({ values: Float64Array.of(-1) });
    expect(Array.from(await fast)).toEqual([30]);
    expect(Array.from(await slow)).toEqual([3, 6]);
    expect(Array.from(await queued)).toEqual([-3]);
  });

  it('rejects a request that throws with the worker name and message, and serves the next', async () => {
    const pool = open(2);
    await expect(pool.call('throw')).rejects.toThrow('test worker: asked to throw');
    expect(Array.from(await pool.call({ values: Float64Array.of(4) }))).toEqual([8]);
  });

  it('answers every request with the set-up error when the set-up failed', async () => {
    const pool = open(-1);
    await expect(pool.call({ values: Float64Array.of(1) })).rejects.toThrow(
      'test worker: factor -1 is negative',
    );
  });

  it('rejects what is in flight and every later request when a worker dies', async () => {
    const pool = open(2);
    await expect(pool.call('exit')).rejects.toThrow('test worker exited with code 3');
    await expect(pool.call({ values: Float64Array.of(1) })).rejects.toThrow('exited with code 3');
  });
});
