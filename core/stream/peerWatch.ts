// How many peers a PUSH socket is connected to, and a wait until none is left: a sender over ipc keeps its
// connection open after its last message until the receiver has taken everything and hung up (ZeroMQ monitor events).
import type { Push } from 'zeromq';

/**
 * Why: libzmq drops what still sits in a unix socket's kernel buffer when the sender hangs up while the
 * receiver is held back by its high-water mark (the HUP stops the receiving engine before it reads the
 * rest), so a PUSH that closes after its last send loses the last messages — the end-of-stream among
 * them — whenever the peer is slower. Closing only once the peer has disconnected loses nothing.
 */
export interface PeerWatch {
  /** Peers connected now. */
  readonly peers: number;
  /** Resolves true once no peer is connected, false after `timeoutMs` or when `signal` aborts. */
  untilGone(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

/** Start counting before bind/connect, so that no connection is missed. */
export function watchPeers(socket: Push): PeerWatch {
  let peers = 0;
  const waiters = new Set<() => void>();
  const up = () => peers++;
  socket.events.on('connect', up);
  socket.events.on('accept', up);
  socket.events.on('disconnect', () => {
    peers = Math.max(0, peers - 1);
    if (peers === 0) for (const w of waiters) w();
  });
  return {
    get peers() {
      return peers;
    },
    untilGone(timeoutMs, signal) {
      if (peers === 0 || signal?.aborted) return Promise.resolve(peers === 0);
      return new Promise<boolean>((resolve) => {
        const done = (gone: boolean) => {
          clearTimeout(timer);
          waiters.delete(onGone);
          signal?.removeEventListener('abort', onAbort);
          resolve(gone);
        };
        const onGone = () => done(true);
        const onAbort = () => done(false);
        const timer = setTimeout(() => done(false), timeoutMs);
        waiters.add(onGone);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
