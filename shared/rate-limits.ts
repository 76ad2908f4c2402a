import type { Redis } from "ioredis";
import {
  type IRateLimiterOptions,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";
import { addressKey } from "./client-address.ts";
import { ApiError } from "./errors.ts";

/** Per API key (an OAuth token counts against the key that approved its grant). */
export type RateLimitBucket = "read" | "search";

interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export class RateLimitStoreError extends Error {
  override name = "RateLimitStoreError";
}

export interface WindowLimit {
  points: number;
  windowSeconds: number;
}

/** Fixed windows over named buckets, each counted per key (an API key, a workspace, an address). */
export interface Limiter<Bucket extends string> {
  readonly limits: Record<Bucket, WindowLimit>;
  /** Spends one point; refused once the window's points are spent. */
  consume(bucket: Bucket, key: string): Promise<RateLimitDecision>;
  /** Points left in the current window, without spending any. */
  remaining(bucket: Bucket, key: string): Promise<number>;
  /** Gives back one point spent in the current window (an attempt that turned out not to count). */
  refund(bucket: Bucket, key: string): Promise<void>;
}

export interface LimiterStore {
  /** Shared by every API node when set; counts are per process otherwise. */
  redis?: Redis | undefined;
  /** Namespaces the Redis keys (tests isolate themselves with it). */
  keyPrefix?: string | undefined;
  /** Told of every check answered from this process's counts because Redis failed. */
  fallback?: RateLimitFallback | undefined;
}

export interface RateLimitFallback {
  answeredInMemory(): void;
}

/**
 * The insurance of a Redis limiter (rate-limiter-flexible's `insuranceLimiter`): the same window
 * counted in this process's memory, used for any check whose Redis command failed. It reports
 * each such check, so that the fallback is logged and counted.
 */
class FallbackMemoryLimiter extends RateLimiterMemory {
  readonly #report: () => void;
  constructor(options: IRateLimiterOptions, report: () => void) {
    super(options);
    this.#report = report;
  }
  override consume(...args: Parameters<RateLimiterMemory["consume"]>) {
    this.#report();
    return super.consume(...args);
  }
  override get(...args: Parameters<RateLimiterMemory["get"]>) {
    this.#report();
    return super.get(...args);
  }
}

/** What the fallback reports (shared/metrics.ts implements it). */
export interface RateLimitFallbackMetrics {
  /** 1 while this node counts in memory, 0 once it counts in Redis again. */
  rateLimitFallbackActive(active: boolean): void;
  /** One check answered from this node's memory. */
  rateLimitCheckInMemory(): void;
}

/** How often, while counting in memory, the node asks Redis whether it answers again. */
const FALLBACK_PROBE_MS = 250;

/**
 * Watches the limiters' Redis: the first check answered in memory starts the fallback (one warning
 * line, the gauge at 1); Redis ready again (a reconnection, or a PING answered for a Redis that had
 * only stopped answering) ends it (one line with its duration and the checks it answered, the gauge
 * at 0).
 */
export function watchRateLimitFallback(
  redis: Redis,
  report: {
    logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
    metrics?: RateLimitFallbackMetrics;
  },
): RateLimitFallback & { readonly active: boolean; close(): void } {
  let since: number | undefined;
  let checks = 0;
  let probe: NodeJS.Timeout | undefined;
  const end = () => {
    if (since === undefined) return;
    report.logger.info(
      { duration_ms: Date.now() - since, checks_in_memory: checks },
      "rate limits: Redis answers again; counting in Redis, shared by every node",
    );
    since = undefined;
    checks = 0;
    clearInterval(probe);
    probe = undefined;
    report.metrics?.rateLimitFallbackActive(false);
  };
  const onReady = () => end();
  redis.on("ready", onReady);
  report.metrics?.rateLimitFallbackActive(false);
  return {
    get active() {
      return since !== undefined;
    },
    answeredInMemory() {
      checks += 1;
      report.metrics?.rateLimitCheckInMemory();
      if (since !== undefined) return;
      since = Date.now();
      report.logger.warn(
        { redis_status: redis.status },
        "rate limits: Redis unreachable; counting in this node's memory (limits per node) until it answers",
      );
      report.metrics?.rateLimitFallbackActive(true);
      probe = setInterval(() => {
        if (redis.status !== "ready") return;
        redis.ping().then(end, () => {});
      }, FALLBACK_PROBE_MS);
      probe.unref();
    },
    close() {
      clearInterval(probe);
      redis.off("ready", onReady);
    },
  };
}

export function createLimiter<Bucket extends string>(
  limits: Record<Bucket, WindowLimit>,
  store: LimiterStore,
): Limiter<Bucket> {
  const prefix = store.keyPrefix ?? "rl";
  const limiters = new Map<Bucket, RateLimiterMemory | RateLimiterRedis>();
  const insurances = new Map<Bucket, RateLimiterMemory>();
  /**
   * Each count Redis answers is copied into this node's fallback count of the same window, so
   * that if Redis stops answering, the fallback goes on from where the window was (a fresh
   * count per node would hand every client a new budget for the outage). Best effort.
   */
  const mirror = (bucket: Bucket, key: string, state: RateLimiterRes | null) => {
    const insurance = insurances.get(bucket);
    if (!insurance || !state || state.msBeforeNext <= 0) return;
    insurance
      .set(key, state.consumedPoints, Math.max(1, Math.ceil(state.msBeforeNext / 1000)))
      .catch(() => {});
  };
  for (const bucket of Object.keys(limits) as Bucket[]) {
    const { points, windowSeconds } = limits[bucket];
    const settings = { points, duration: windowSeconds, keyPrefix: `${prefix}:${bucket}` };
    // While Redis is unreachable (not "ready", or a command that failed), each check is answered
    // by this node's own count of the same window: limits are then per node, never a 503.
    const insurance = new FallbackMemoryLimiter(settings, () => store.fallback?.answeredInMemory());
    limiters.set(
      bucket,
      store.redis
        ? new RateLimiterRedis({
            ...settings,
            storeClient: store.redis,
            rejectIfRedisNotReady: true,
            insuranceLimiter: insurance,
          })
        : new RateLimiterMemory(settings),
    );
    if (store.redis) insurances.set(bucket, insurance);
  }
  const limiterOf = (bucket: Bucket) => {
    const limiter = limiters.get(bucket);
    if (!limiter) throw new Error(`unknown rate-limit bucket ${bucket}`);
    return limiter;
  };
  return {
    limits,
    async remaining(bucket, key) {
      let state: RateLimiterRes | null;
      try {
        state = await limiterOf(bucket).get(key);
      } catch (error) {
        throw new RateLimitStoreError("rate-limit store unavailable", { cause: error });
      }
      return Math.max(0, limits[bucket].points - (state?.consumedPoints ?? 0));
    },
    async refund(bucket, key) {
      try {
        mirror(bucket, key, await limiterOf(bucket).reward(key, 1));
      } catch (error) {
        throw new RateLimitStoreError("rate-limit store unavailable", { cause: error });
      }
    },
    async consume(bucket, key) {
      const limiter = limiterOf(bucket);
      const limit = limits[bucket].points;
      try {
        const result = await limiter.consume(key);
        mirror(bucket, key, result);
        return {
          allowed: true,
          limit,
          remaining: result.remainingPoints,
          resetSeconds: Math.ceil(result.msBeforeNext / 1000),
        };
      } catch (error) {
        if (error instanceof RateLimiterRes) {
          mirror(bucket, key, error);
          return { allowed: false, limit, remaining: 0, resetSeconds: Math.ceil(error.msBeforeNext / 1000) };
        }
        throw new RateLimitStoreError("rate-limit store unavailable", { cause: error });
      }
    },
  };
}

export type RateLimiter = Limiter<RateLimitBucket>;

export interface RateLimiterOptions extends LimiterStore {
  readPerMinute: number;
  searchPerMinute: number;
}

/** Per API key fixed one-minute windows: one bucket for reads and drafts, one for searches. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  return createLimiter<RateLimitBucket>(
    {
      read: { points: options.readPerMinute, windowSeconds: 60 },
      search: { points: options.searchPerMinute, windowSeconds: 60 },
    },
    options,
  );
}

/** Spec: a 429 always tells the client to wait 60 seconds. */
export const RETRY_AFTER_SECONDS = "60";

export const rateLimitUnavailable = (cause: unknown) =>
  new ApiError("rate_limit_unavailable", "The rate-limit check failed temporarily. It is safe to retry.", {
    cause,
  });

/**
 * The one "consume or throw" of the per-credential limits, for /v1 and /mcp alike: spends one
 * request of `bucket` for the principal's rate-limit identity (an API key, or the member who
 * approved an OAuth token), and returns the `RateLimit-*` headers, or throws 429 / 503.
 */
export async function consumeOrThrow(
  limiter: RateLimiter,
  bucket: RateLimitBucket,
  rateLimitId: string,
): Promise<Record<string, string>> {
  let decision: RateLimitDecision;
  try {
    decision = await limiter.consume(bucket, rateLimitId);
  } catch (error) {
    throw rateLimitUnavailable(error);
  }
  const headers = {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
    "RateLimit-Policy": `${decision.limit};w=60`,
  };
  if (!decision.allowed) {
    throw new ApiError(
      "rate_limited",
      `Rate limit of ${decision.limit} requests per minute reached for this API key (or, for an OAuth token, for the member who approved it, all their connections included). Retry after 60 seconds.`,
      { headers: { ...headers, "Retry-After": RETRY_AFTER_SECONDS } },
    );
  }
  return headers;
}

/** Per client address, for what answers before anyone is authenticated. */
export type AddressBucket = "oauth_register" | "oauth" | "admin_failures";
export type AddressLimiter = Limiter<AddressBucket>;

export function createAddressLimiter(
  limits: { oauthRegisterPerMinute: number; oauthPerMinute: number; adminFailuresPerMinute: number },
  store: LimiterStore,
): AddressLimiter {
  return perAddress(
    createLimiter<AddressBucket>(
      {
        oauth_register: { points: limits.oauthRegisterPerMinute, windowSeconds: 60 },
        oauth: { points: limits.oauthPerMinute, windowSeconds: 60 },
        admin_failures: { points: limits.adminFailuresPerMinute, windowSeconds: 60 },
      },
      { ...store, keyPrefix: `${store.keyPrefix ?? "rl"}:addr` },
    ),
  );
}

/**
 * A limiter whose every key is a client address, counted by `addressKey` (an IPv6 client by its
 * /64): callers pass the address as they read it.
 */
export function perAddress<Bucket extends string>(limiter: Limiter<Bucket>): Limiter<Bucket> {
  return {
    limits: limiter.limits,
    consume: (bucket, address) => limiter.consume(bucket, addressKey(address)),
    remaining: (bucket, address) => limiter.remaining(bucket, addressKey(address)),
    refund: (bucket, address) => limiter.refund(bucket, addressKey(address)),
  };
}

/** Spends one request of an address bucket, or throws 429 `rate_limited` (503 if the store fails). */
export async function consumeAddressOrThrow(
  limiter: AddressLimiter,
  bucket: AddressBucket,
  address: string,
): Promise<void> {
  let decision: RateLimitDecision;
  try {
    decision = await limiter.consume(bucket, address);
  } catch (error) {
    throw rateLimitUnavailable(error);
  }
  if (!decision.allowed) throw addressLimited(decision.limit);
}

export const addressLimited = (limit: number) =>
  new ApiError(
    "rate_limited",
    `Rate limit of ${limit} requests per minute from this address reached. Retry after 60 seconds.`,
    { headers: { "Retry-After": RETRY_AFTER_SECONDS } },
  );
