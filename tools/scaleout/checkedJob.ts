// BullMQ's Job, Worker and Queue for data anyone who can reach Redis may have written: a job whose stored
// data is not JSON is read with null data and a deferred failure, so the worker fails it once, visibly.
import {
  type ConnectionOptions,
  Job,
  type JobJson,
  Queue,
  type QueueOptions,
  Worker,
  type WorkerOptions,
} from 'bullmq';

type JobQueue = Parameters<typeof Job.fromJSON>[0];

/**
 * A job read from Redis. BullMQ parses the data field while it moves a job to active; a parse error there
 * was logged twice a second forever while the job stayed active, and `drivekit jobs` could not list it.
 */
export class CheckedJob extends Job {
  static override fromJSON<T = unknown, R = unknown, N extends string = string>(
    queue: JobQueue,
    json: JobJson,
    jobId?: string,
  ): Job<T, R, N> {
    try {
      return super.fromJSON<T, R, N>(queue, json, jobId);
    } catch (e) {
      const job = super.fromJSON<T, R, N>(queue, { ...json, data: 'null' }, jobId);
      // The worker fails a job with a deferred failure at once (UnrecoverableError: no retries).
      job.deferredFailure = `job data is not JSON (${(e as Error).message.split('\n')[0]}): not a drivekit job`;
      return job;
    }
  }
}

/** A BullMQ worker whose jobs are CheckedJobs (the processor file runs in a sandboxed child process). */
export class CheckedWorker extends Worker {
  constructor(name: string, processor: string, opts: WorkerOptions & { connection: ConnectionOptions }) {
    super(name, processor, opts);
  }

  protected override get Job(): typeof Job {
    return CheckedJob as unknown as typeof Job;
  }
}

/** A BullMQ queue whose getters (getFailed, getJob, …) read CheckedJobs. */
export class CheckedQueue extends Queue {
  constructor(name: string, opts: QueueOptions) {
    super(name, opts);
  }

  protected override get Job(): typeof Job {
    return CheckedJob as unknown as typeof Job;
  }
}
