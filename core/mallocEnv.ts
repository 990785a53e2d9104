// glibc malloc settings that keep freed memory for reuse: on these VMs touching fresh pages costs
// about 2 ms/MB, so per-frame buffers and training steps run 2–4× faster when memory is recycled.
import { spawn } from 'node:child_process';

export const TUNED_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(1 << 30),
  MALLOC_TRIM_THRESHOLD_: String(1 << 30),
  MALLOC_TOP_PAD_: String(64 << 20),
  MALLOC_ARENA_MAX: '2',
};

/** Set by the wrapper in its child's environment: the pid the child must outlive no longer than. */
export const WRAPPER_PID_ENV = 'DRIVEKIT_WRAPPER_PID';

/** How often the re-run child checks that its wrapper is still alive (ms): cheap, and fast enough to free a port. */
const PARENT_POLL_MS = 200;
/** Grace after the self-sent SIGTERM for a command's own drain handler before the child exits anyway (ms). */
const PARENT_DEATH_GRACE_MS = 3000;

/** True when this process already started with the tuned settings (or the user set their own). */
export function mallocTuned(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.MALLOC_TRIM_THRESHOLD_ !== undefined;
}

/**
 * In the re-run child: exit when the wrapper dies. A SIGKILL of the wrapper cannot be forwarded, and
 * the child would otherwise be orphaned (re-parented) and go on holding its ports and outputs. The
 * parent pid is polled (Linux has no portable parent-death signal in Node); on a change the child
 * sends itself SIGTERM, so commands that drain on SIGTERM still do, and exits after a grace period.
 */
export function exitWithWrapper(wrapperPid: number): void {
  const timer = setInterval(() => {
    if (process.ppid === wrapperPid) return;
    clearInterval(timer);
    setTimeout(() => process.exit(143), PARENT_DEATH_GRACE_MS).unref();
    process.kill(process.pid, 'SIGTERM');
  }, PARENT_POLL_MS);
  timer.unref();
}

/**
 * glibc reads these settings only at process start, so an entry point calls this first: on Linux,
 * without them, it re-runs the same command as a child with them set, forwards signals, mirrors the
 * exit, and returns true (the caller must then do nothing else). The child exits when the wrapper dies
 * (exitWithWrapper), so killing either pid stops the command. Set DRIVEKIT_NO_REEXEC=1 to opt out.
 */
export function reexecWithTunedMalloc(): boolean {
  const wrapperPid = Number(process.env[WRAPPER_PID_ENV]);
  if (wrapperPid > 0) {
    // This is the child. Processes it starts in turn are watched by it, not by the wrapper.
    delete process.env[WRAPPER_PID_ENV];
    exitWithWrapper(wrapperPid);
    return false;
  }
  if (process.platform !== 'linux' || mallocTuned() || process.env.DRIVEKIT_NO_REEXEC) return false;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...TUNED_MALLOC_ENV, [WRAPPER_PID_ENV]: String(process.pid) },
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
