// The `--redis <url>` of the scale-out commands as ioredis connection options: redis:// or rediss://
// (TLS), with an optional user and password in the URL or from REDISCLI_AUTH, and a database number.
import { Redis } from 'ioredis';
import { InputError } from '../../core/errors.ts';

export interface RedisConnection {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
  tls?: Record<string, never>;
  /** BullMQ workers block on Redis; it requires ioredis not to give up on a command while reconnecting. */
  maxRetriesPerRequest: null;
}

/** Parse a Redis URL; throws InputError naming `--redis` on anything else. */
export function parseRedisUrl(url: string, env: NodeJS.ProcessEnv = process.env): RedisConnection {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError('--redis', `not a URL: '${url}' (expected redis://host:port or rediss://…)`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new InputError('--redis', `scheme must be redis:// or rediss://, got '${u.protocol}'`);
  if (!u.hostname) throw new InputError('--redis', `no host in '${url}'`);
  const port = u.port ? Number(u.port) : 6379;
  const dbPath = u.pathname.replace(/^\//, '');
  const db = dbPath === '' ? 0 : Number(dbPath);
  if (!Number.isInteger(db) || db < 0)
    throw new InputError('--redis', `database must be a number, got '${dbPath}'`);
  const conn: RedisConnection = {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port,
    db,
    maxRetriesPerRequest: null,
  };
  if (u.username) conn.username = decodeURIComponent(u.username);
  // A password in the URL shows in `ps`; REDISCLI_AUTH (redis-cli's variable) keeps it out of argv.
  const password = u.password ? decodeURIComponent(u.password) : env.REDISCLI_AUTH;
  if (password) conn.password = password;
  if (u.protocol === 'rediss:') conn.tls = {};
  return conn;
}

/** The URL with its password masked, for logs and errors. */
export function redactRedisUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/**
 * Fail fast with one line when Redis cannot be reached or refuses the password: the BullMQ clients
 * themselves retry for ever (right once running, since Redis may restart; wrong at start-up).
 */
export async function checkRedis(conn: RedisConnection, url: string, timeoutMs = 5000): Promise<void> {
  const redis = new Redis({
    ...conn,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause = '';
  redis.on('error', (e: Error) => (cause ||= e.message)); // the socket's reason, reported once below
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    const why = (cause || (e as Error).message).split('\n')[0];
    // Named by its URL, not the option: a server that does not answer is a runtime error (exit 1), not a
    // usage error (docs/cli.md).
    throw new InputError(redactRedisUrl(url), `cannot use this Redis (--redis): ${why}`);
  } finally {
    redis.disconnect();
  }
}
