// What `drivekit jobs` shows: every BullMQ queue on the Redis server with its job counts by state, and
// its failed jobs with their input and one-line error.
import { Redis } from 'ioredis';
import { CheckedQueue } from './checkedJob.ts';
import type { RedisConnection } from './connection.ts';
import type { JobPayload } from './payload.ts';

export interface QueueReport {
  queue: string;
  counts: Record<string, number>;
  failures: { id: string; name: string; input: string | null; attempts: number; error: string }[];
}

const STATES = [
  'waiting',
  'active',
  'completed',
  'failed',
  'delayed',
  'waiting-children',
  'prioritized',
] as const;

/** Queue names found on the server (BullMQ keeps a `bull:<queue>:meta` hash per queue). */
export async function queueNames(connection: RedisConnection, prefix = 'bull'): Promise<string[]> {
  const redis = new Redis({ ...connection, lazyConnect: true });
  try {
    await redis.connect();
    const names = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*:meta`, 'COUNT', 1000);
      cursor = next;
      for (const k of keys) names.add(k.slice(prefix.length + 1, -':meta'.length));
    } while (cursor !== '0');
    return [...names].sort();
  } finally {
    redis.disconnect();
  }
}

export async function reportQueues(
  connection: RedisConnection,
  only: string | undefined,
  maxFailures: number,
): Promise<QueueReport[]> {
  const names = only ? [only] : await queueNames(connection);
  const out: QueueReport[] = [];
  for (const name of names) {
    const queue = new CheckedQueue(name, { connection });
    try {
      const counts = await queue.getJobCounts(...STATES);
      const failed = await queue.getFailed(0, Math.max(0, maxFailures - 1));
      out.push({
        queue: name,
        counts,
        failures: failed.map((j) => ({
          id: String(j.id),
          name: j.name,
          input:
            typeof (j.data as Partial<JobPayload>)?.input === 'string' ? (j.data as JobPayload).input : null,
          attempts: j.attemptsMade,
          error: (j.failedReason ?? '').split('\n')[0],
        })),
      });
    } finally {
      await queue.close();
    }
  }
  return out;
}

export function formatReports(reports: QueueReport[]): string {
  if (reports.length === 0) return 'no queues';
  const lines: string[] = [];
  for (const r of reports) {
    const counts = Object.entries(r.counts)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    lines.push(`${r.queue}: ${counts || 'empty'}`);
    for (const f of r.failures)
      lines.push(`  failed ${f.id} ${f.name} ${f.input ?? ''} (attempts ${f.attempts}): ${f.error}`);
  }
  return lines.join('\n');
}
