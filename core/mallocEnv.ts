// glibc malloc settings that keep freed memory for reuse: on these VMs touching fresh pages costs
// about 2 ms/MB, so per-frame buffers and training steps run 2–4× faster when memory is recycled.
import { spawn } from 'node:child_process';

export const TUNED_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(1 << 30),
  MALLOC_TRIM_THRESHOLD_: String(1 << 30),
  MALLOC_TOP_PAD_: String(64 << 20),
  MALLOC_ARENA_MAX: '2',
};

/** True when this process already started with the tuned settings (or the user set their own). */
export function mallocTuned(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.MALLOC_TRIM_THRESHOLD_ !== undefined;
}

/**
 * glibc reads these settings only at process start, so an entry point calls this first: on Linux,
 * without them, it re-runs the same command as a child with them set, forwards signals, mirrors the
 * exit, and returns true (the caller must then do nothing else). Set DRIVEKIT_NO_REEXEC=1 to opt out.
 */
export function reexecWithTunedMalloc(): boolean {
  if (process.platform !== 'linux' || mallocTuned() || process.env.DRIVEKIT_NO_REEXEC) return false;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...TUNED_MALLOC_ENV },
  });
  // Forward signals so `kill <pid>` reaches the real process, which drains and exits cleanly. A
  // terminal's Ctrl-C already reaches the whole process group, so it is not sent a second time.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (sig !== 'SIGINT' || !process.stdin.isTTY) child.kill(sig);
    });
  }
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
  return true;
}
