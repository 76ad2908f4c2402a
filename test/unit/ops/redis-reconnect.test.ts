import { describe, expect, it } from "vitest";
import { REDIS_RECONNECT_MAX_MS, redisRetryDelay } from "../../../shared/redis.ts";

describe("Redis reconnection", () => {
  it("retries at least once a second, forever: never a longer wait, never a give-up", () => {
    expect(REDIS_RECONNECT_MAX_MS).toBeLessThanOrEqual(1_000);
    for (let attempt = 1; attempt <= 10_000; attempt += 1) {
      const delay = redisRetryDelay(attempt);
      expect(typeof delay).toBe("number");
      expect(delay).toBeGreaterThan(0);
      expect(delay).toBeLessThanOrEqual(REDIS_RECONNECT_MAX_MS);
    }
  });

  it("starts quick (a blip costs tens of milliseconds) and backs off to the cap", () => {
    expect(redisRetryDelay(1)).toBe(50);
    expect(redisRetryDelay(2)).toBeGreaterThan(redisRetryDelay(1));
    expect(redisRetryDelay(1_000)).toBe(REDIS_RECONNECT_MAX_MS);
  });
});
