// Worker threads that answer requests: each request goes to an idle worker and its reply resolves the caller's
// promise, in any order; a worker that throws rejects that request, one that dies rejects all in flight and after.
import { parentPort, type Worker } from 'node:worker_threads';
import { startTsWorker } from './workers.ts';

export interface WorkerPool<Request, Reply> {
  readonly size: number;
  /** The reply of one idle worker to `request`; `transfer`: buffers handed over, not copied. */
  call(request: Request, transfer?: readonly ArrayBuffer[]): Promise<Reply>;
  close(): Promise<void>;
}

/** Main → worker: `{ init }` once, then requests by id. Worker → main: a reply or an error by id. */
type ToWorker<Init, Request> = { init: Init } | { id: number; request: Request };
type FromWorker<Reply> = { id: number; reply: Reply } | { id: number; error: string };

/**
 * `size` workers running `moduleUrl` (a module that calls `serveRequests`), each given `init` first. `name`
 * prefixes every error ("LiDAR worker: …").
 */
export function createWorkerPool<Init, Request, Reply>(
  moduleUrl: URL,
  size: number,
  init: Init,
  name: string,
): WorkerPool<Request, Reply> {
  const threads: Worker[] = [];
  const idle: Worker[] = [];
  const queue: { msg: ToWorker<Init, Request>; transfer: readonly ArrayBuffer[] }[] = [];
  const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const fail = (e: Error) => {
    failure ??= e;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  const dispatch = () => {
    while (idle.length && queue.length) {
      const { msg, transfer } = queue.shift()!;
      idle.pop()!.postMessage(msg, transfer as ArrayBuffer[]);
    }
  };
  for (let k = 0; k < size; k++) {
    const w = startTsWorker(moduleUrl);
    w.postMessage({ init } satisfies ToWorker<Init, Request>);
    w.on('message', (m: FromWorker<Reply>) => {
      idle.push(w);
      const p = pending.get(m.id);
      pending.delete(m.id);
      if ('error' in m) p?.reject(new Error(`${name}: ${m.error}`));
      else p?.resolve(m.reply);
      dispatch();
    });
    w.on('error', (e: Error) => fail(new Error(`${name} failed: ${e.message}`)));
    w.on('exit', (code) => {
      if (code !== 0) fail(new Error(`${name} exited with code ${code}`));
    });
    threads.push(w);
    idle.push(w);
  }
  return {
    size,
    call(request, transfer = []) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      const done = new Promise<Reply>((resolve, reject) => pending.set(id, { resolve, reject }));
      queue.push({ msg: { id, request }, transfer });
      dispatch();
      return done;
    },
    async close() {
      failure ??= new Error(`${name}: pool closed`);
      await Promise.all(threads.map((w) => w.terminate()));
    },
  };
}

/**
 * The worker side: `setup(init)` once (its error answers every request), then each request's reply and the
 * buffers to transfer with it. A request that throws is answered with its message.
 */
export function serveRequests<Init, Request, Reply>(
  setup: (init: Init) => (request: Request) => { reply: Reply; transfer?: ArrayBuffer[] },
): void {
  let handle: ((request: Request) => { reply: Reply; transfer?: ArrayBuffer[] }) | null = null;
  let setupError: Error | null = null;
  parentPort?.on('message', (m: ToWorker<Init, Request>) => {
    if ('init' in m) {
      try {
        handle = setup(m.init);
      } catch (e) {
        setupError = e as Error;
      }
      return;
    }
    try {
      if (setupError) throw setupError;
      if (!handle) throw new Error('a request before init');
      const { reply, transfer } = handle(m.request);
      parentPort!.postMessage({ id: m.id, reply } satisfies FromWorker<Reply>, transfer ?? []);
    } catch (e) {
      parentPort!.postMessage({ id: m.id, error: (e as Error).message } satisfies FromWorker<Reply>);
    }
  });
}
