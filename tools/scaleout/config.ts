// Settings of the scale-out job engine (BullMQ on Redis): queue name, retries, stall detection.
// One place for every default; the worker, submit and jobs commands read them from here.

export interface ScaleoutConfig {
  /** BullMQ queue the jobs go to; a second name shards work (e.g. one queue per machine pool). */
  queue: string;
  /** Attempts per job before it is failed (1 = no retry); bad input fails at once whatever this is. */
  attempts: number;
  /** First retry delay (ms); doubles each attempt (BullMQ exponential back-off). */
  backoffMs: number;
  /** A worker's lock on a running job (ms): a dead worker's job is taken over after about this long. */
  lockDurationMs: number;
  /** How often workers look for jobs whose lock expired (ms). */
  stalledIntervalMs: number;
  /** Times a job may be taken over from a dead worker before it is failed as poison. */
  maxStalledCount: number;
  /** How often `submit --wait` polls the flow's state (ms). */
  pollMs: number;
}

export const DEFAULT_SCALEOUT_CONFIG: ScaleoutConfig = {
  queue: 'drivekit',
  attempts: 3,
  backoffMs: 2000,
  // BullMQ's default: the worker renews the lock every lockDuration/2 from its own event loop, which
  // never blocks because the command runs in a separate (sandboxed) child process.
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  maxStalledCount: 2,
  pollMs: 250,
};

/** Environment variable through which the worker hands its storage roots to its job processes. */
export const ROOTS_ENV = 'DRIVEKIT_JOB_ROOTS';
/** The pid of the worker that forked a job process: the job process stops as soon as it is gone. */
export const WORKER_PID_ENV = 'DRIVEKIT_WORKER_PID';
