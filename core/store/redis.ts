import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * One way to reach the Redis that shared limits live in (plan limits, A2A pair buckets). The spec's
 * rules are the caller's: `null` when Redis does not answer within `timeoutMs` at start-up (the caller
 * falls back to its in-process limiter until restart); afterwards commands fail fast (no offline
 * queue, no retries per request) so a limiter denies instead of waiting, while the client keeps
 * reconnecting in the background. Errors are logged at most once per 10 s.
 */
export async function connectRedis(url: string, log: Logger, o: { what: string; timeoutMs?: number }): Promise<Redis | null> {
  const timeout = o.timeoutMs ?? 2000;
  // imported on first use: ioredis costs ~20 MB of a process that has no Redis configured
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: timeout,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('connect timeout')), timeout);
      client.once('ready', () => {
        clearTimeout(t);
        resolve();
      });
      client.once('error', (e) => {
        clearTimeout(t);
        reject(e);
      });
      client.connect().catch(() => undefined);
    });
  } catch (err) {
    client.disconnect();
    log.error({ err: (err as Error).message }, `${o.what}: Redis unavailable at start-up, in-process until restart`);
    return null;
  }
  let lastLogged = 0;
  client.on('error', (err: Error) => {
    if (Date.now() - lastLogged > 10_000) {
      lastLogged = Date.now();
      log.error({ err: err.message }, `${o.what}: Redis error, limited requests are denied until it recovers`);
    }
  });
  watchHealth(client);
  return client;
}

/** the outcome of each client's last health ping (watchHealth) */
const answering = new WeakMap<Redis, boolean>();

/**
 * A connection can stay open ('ready') while Redis answers nothing: a frozen server, a partition
 * that leaves the TCP connection up. Every limited request then fails its command timeout and is
 * denied, so readiness must say so too; a ping every 2 s (bounded by the command timeout) tells.
 */
function watchHealth(client: Redis): void {
  answering.set(client, true);
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = true;
    client.ping().then(
      () => answering.set(client, true),
      () => answering.set(client, false),
    ).finally(() => (inFlight = false));
  }, 2000).unref();
  client.once('end', () => clearInterval(timer));
}

/** Whether a client of connectRedis can serve now: connected, and its last health ping was answered. */
export function redisAnswers(client: Redis): boolean {
  return client.status === 'ready' && answering.get(client) !== false;
}
