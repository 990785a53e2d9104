// Submitting work: one BullMQ flow per `drivekit submit` — a child job per input and a parent that
// aggregates them — and waiting for it with aggregated progress and a {jobs, completed, …} summary.
import { FlowProducer, Job, Queue } from 'bullmq';
import type { ScaleoutConfig } from './config.ts';
import type { RedisConnection } from './connection.ts';
import { type AggregatePayload, type JobPayload, PAYLOAD_VERSION } from './payload.ts';

export interface FlowHandle {
  parentId: string;
  childIds: string[];
}

export interface FlowSummary {
  jobs: number;
  completed: number;
  failed: number;
  /** Extra starts beyond the first, over all jobs: retries after errors and takeovers after a stall. */
  retried: number;
  seconds: number;
  /** The parent's aggregate (aggregate.ts), when it ran. */
  result?: unknown;
  failures: { input: string; error: string }[];
}

export async function submitFlow(
  connection: RedisConnection,
  config: ScaleoutConfig,
  command: string,
  inputs: string[],
  options: Record<string, string | true>,
): Promise<FlowHandle> {
  const flow = new FlowProducer({ connection });
  try {
    const parent: AggregatePayload = { v: PAYLOAD_VERSION, aggregate: true, command, options };
    const node = await flow.add({
      name: `${command}:aggregate`,
      queueName: config.queue,
      data: parent,
      opts: { attempts: config.attempts, backoff: { type: 'exponential', delay: config.backoffMs } },
      children: inputs.map((input) => ({
        name: command,
        queueName: config.queue,
        data: { v: PAYLOAD_VERSION, command, input, options } satisfies JobPayload,
        opts: {
          attempts: config.attempts,
          backoff: { type: 'exponential', delay: config.backoffMs },
          // A child that fails for good is recorded and the parent still aggregates the rest.
          ignoreDependencyOnFailure: true,
        },
      })),
    });
    return { parentId: node.job.id!, childIds: (node.children ?? []).map((c) => c.job.id!) };
  } finally {
    await flow.close();
  }
}

/** Poll the flow until its parent has finished; `onProgress(done, total)` after each poll. */
export async function waitFlow(
  connection: RedisConnection,
  config: ScaleoutConfig,
  handle: FlowHandle,
  onProgress: (done: number, total: number) => void,
  startMs = Date.now(),
): Promise<FlowSummary> {
  const queue = new Queue(config.queue, { connection });
  try {
    const total = handle.childIds.length;
    for (;;) {
      const parent = await Job.fromId(queue, handle.parentId);
      if (!parent) throw new Error(`job ${handle.parentId} is gone from queue ${config.queue}`);
      const deps = await parent.getDependenciesCount();
      onProgress(total - (deps.unprocessed ?? 0), total);
      const state = await parent.getState();
      if (state === 'completed' || state === 'failed') break;
      await new Promise((r) => setTimeout(r, config.pollMs));
    }
    return await summarize(queue, handle, startMs);
  } finally {
    await queue.close();
  }
}

async function summarize(queue: Queue, handle: FlowHandle, startMs: number): Promise<FlowSummary> {
  let completed = 0;
  let retried = 0;
  const failures: FlowSummary['failures'] = [];
  for (const id of handle.childIds) {
    const job = await Job.fromId(queue, id);
    if (!job) continue;
    retried += Math.max(0, (job.attemptsStarted || job.attemptsMade) - 1);
    const state = await job.getState();
    if (state === 'completed') completed++;
    else if (state === 'failed')
      failures.push({
        input: String((job.data as JobPayload).input),
        error: (job.failedReason ?? '').split('\n')[0],
      });
  }
  const parent = await Job.fromId(queue, handle.parentId);
  return {
    jobs: handle.childIds.length,
    completed,
    failed: failures.length,
    retried,
    seconds: (Date.now() - startMs) / 1000,
    result: parent?.returnvalue ?? undefined,
    failures,
  };
}
