// SIGINT/SIGTERM as an AbortSignal: the first signal asks the stage to stop taking work, drain and
// close (exit 0); a second one exits at once (exit 130), for when a peer never drains.
export interface ShutdownHandle {
  signal: AbortSignal;
  /** Name of the signal that fired, if any. */
  readonly received: string | null;
  dispose(): void;
}

export function onShutdownSignals(
  log: (line: string) => void = (l) => process.stderr.write(l + '\n'),
  signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'],
): ShutdownHandle {
  const controller = new AbortController();
  let received: string | null = null;
  const handler = (sig: NodeJS.Signals) => {
    if (received) {
      log(`${sig} again: exiting without draining`);
      process.exit(130);
    }
    received = sig;
    log(`${sig}: stopping (draining in-flight messages)`);
    controller.abort(new Error(sig));
  };
  for (const s of signals) process.on(s, handler);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      for (const s of signals) process.off(s, handler);
    },
  };
}
