import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

export type RateLimitBucket = "read" | "search";

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export class RateLimitStoreError extends Error {
  override name = "RateLimitStoreError";
}

export interface RateLimiter {
  readonly limits: Record<RateLimitBucket, number>;
  consume(bucket: RateLimitBucket, credentialId: string): Promise<RateLimitDecision>;
}

export interface RateLimiterOptions {
  readPerMinute: number;
  searchPerMinute: number;
  /** Shared by every API node when set; counts are per process otherwise. */
  redis?: Redis;
  /** Namespaces the Redis keys (tests isolate themselves with it). */
  keyPrefix?: string;
}

/** Per-credential fixed one-minute windows: one bucket for reads and drafts, one for searches. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const limits: Record<RateLimitBucket, number> = {
    read: options.readPerMinute,
    search: options.searchPerMinute,
  };
  const prefix = options.keyPrefix ?? "rl";
  const make = (bucket: RateLimitBucket) => {
    const settings = { points: limits[bucket], duration: 60, keyPrefix: `${prefix}:${bucket}` };
    // Without insurance the Redis limiter rejects with the store's error, which becomes a 503.
    return options.redis
      ? new RateLimiterRedis({ ...settings, storeClient: options.redis, rejectIfRedisNotReady: true })
      : new RateLimiterMemory(settings);
  };
  const limiters = { read: make("read"), search: make("search") };

  return {
    limits,
    async consume(bucket, credentialId) {
      const limit = limits[bucket];
      try {
        const result = await limiters[bucket].consume(credentialId);
        return {
          allowed: true,
          limit,
          remaining: result.remainingPoints,
          resetSeconds: Math.ceil(result.msBeforeNext / 1000),
        };
      } catch (error) {
        if (error instanceof RateLimiterRes) {
          return { allowed: false, limit, remaining: 0, resetSeconds: Math.ceil(error.msBeforeNext / 1000) };
        }
        throw new RateLimitStoreError("rate-limit store unavailable", { cause: error });
      }
    },
  };
}
