import { Redis, type RedisOptions } from "ioredis";

/**
 * The longest wait between two reconnection attempts of any Redis connection of the service (API
 * rate limits, BullMQ producer, events listener, worker, worker metrics). ioredis's default backs
 * off to 5 s, BullMQ's own to 20 s: after an outage the service would stay on its fallbacks that
 * much longer than Redis. 200 ms keeps the first request served by Redis again well within a second
 * of Redis answering, for five connection attempts a second per client while it is away (a refused
 * connection costs next to nothing).
 */
export const REDIS_RECONNECT_MAX_MS = 200;

/** Waits 50, 100, 150, then 200 ms between attempts (REDIS_RECONNECT_MAX_MS); never gives up. */
export function redisRetryDelay(attempt: number): number {
  return Math.min(Math.max(1, attempt) * 50, REDIS_RECONNECT_MAX_MS);
}

/** Every Redis connection of the service: the given options plus the bounded reconnection. */
export function createRedisConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { ...options, retryStrategy: redisRetryDelay });
}

export interface RedisLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** A BullMQ queue or events listener: it passes on its connection's errors, and its own. */
interface ErrorSource {
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * One warning when a connection is lost (not one per reconnection attempt: five a second while
 * Redis is away) and one line when it is ready again, with how long it was away. The BullMQ
 * objects built on the connection (`wrappers`) re-emit its errors: those are already told by the
 * loss, so only an error while the connection is ready (a command's own failure) is logged.
 */
export function logRedisConnection(
  connection: Redis,
  logger: RedisLogger,
  what: string,
  wrappers: readonly ErrorSource[] = [],
): void {
  for (const wrapper of wrappers) {
    wrapper.on("error", (error) => {
      if (connection.status === "ready") logger.warn({ err: error, connection: what }, "redis error");
    });
  }
  let lostAt: number | undefined;
  connection.on("error", (error: Error) => {
    if (lostAt !== undefined) return;
    lostAt = Date.now();
    logger.warn(
      { err: error, connection: what },
      `redis connection lost; reconnecting every ${REDIS_RECONNECT_MAX_MS} ms at most`,
    );
  });
  connection.on("ready", () => {
    if (lostAt === undefined) return;
    logger.info({ connection: what, away_ms: Date.now() - lostAt }, "redis connection ready again");
    lostAt = undefined;
  });
}
