/**
 * GET /healthz (the process answers) and GET /readyz (the database answers; Redis, when configured,
 * is reported but not required: the node serves without it; 503 with the error object when the
 * database is gone), outside /v1: no key, no rate limit, not in the OpenAPI document.
 */
import { randomBytes } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../support/app.ts";
import { createOwnedRedis } from "../../support/owned-redis.ts";
import { withAdminClient } from "../../support/postgres.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
/** Nothing listens on port 1. */

let embedded: TestApp;

beforeAll(async () => {
  embedded = await startTestApp({ RATE_LIMIT_READ_PER_MIN: "1" });
});
afterAll(() => embedded?.close());

function expectUnavailable(response: LightMyRequestResponse, mentions: RegExp) {
  expect(response.statusCode, response.body).toBe(503);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  const body = response.json() as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error.code).toBe("service_unavailable");
  expect(body.error.message).toMatch(mentions);
  expect(response.headers["x-request-id"]).toEqual(expect.any(String));
}

describe("GET /healthz", () => {
  it("answers 200 without a key, however often (no rate limit)", async () => {
    for (let i = 0; i < 3; i += 1) {
      const response = await embedded.app.inject({ url: "/healthz" });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: "ok" });
      expect(response.headers["ratelimit-limit"]).toBeUndefined();
    }
  });

  it("is not part of the API contract: absent from /openapi.json, and refused nowhere by cross-origin rules", async () => {
    const doc = (await embedded.app.inject({ url: "/openapi.json" })).json() as { paths: object };
    expect(Object.keys(doc.paths)).not.toContain("/healthz");
    expect(Object.keys(doc.paths)).not.toContain("/readyz");
    expect(Object.keys(doc.paths)).not.toContain("/metrics");
    const response = await embedded.app.inject({ url: "/healthz", headers: { origin: "https://x.example" } });
    expect(response.statusCode).toBe(200);
  });
});

describe("GET /readyz", () => {
  it("answers 200 when the database answers (no Redis configured)", async () => {
    const response = await embedded.app.inject({ url: "/readyz" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      status: "ready",
      checks: { database: "ok", redis: "not_configured" },
    });
  });

  it("answers 200 with Redis configured and reachable", async () => {
    const t = await startTestApp(
      { REDIS_URL, QUEUE_PREFIX: `health_${randomBytes(6).toString("hex")}` },
      { rateLimitKeyPrefix: `health-${randomBytes(6).toString("hex")}` },
    );
    try {
      const response = await t.app.inject({ url: "/readyz" });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
    } finally {
      await t.close();
    }
  });

  it("stays ready (200, Redis reported unreachable) when Redis is gone: the node serves without it", async () => {
    const redis = await createOwnedRedis();
    await redis.start();
    const t = await startTestApp({ REDIS_URL: redis.url, QUEUE_PREFIX: "health_dead" });
    try {
      expect((await t.app.inject({ url: "/readyz" })).statusCode).toBe(200);
      await redis.stop();
      const response = await t.app.inject({ url: "/readyz" });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ status: "ready", checks: { database: "ok", redis: "unreachable" } });
      expect((await t.app.inject({ url: "/healthz" })).statusCode).toBe(200);
    } finally {
      await t.close();
      await redis.stop();
    }
  });

  it("answers 503 service_unavailable once the database is gone, while /healthz stays 200", async () => {
    const t = await startTestApp();
    try {
      expect((await t.app.inject({ url: "/readyz" })).statusCode).toBe(200);
      // The database disappears under the running app: its connections are cut and it cannot reconnect.
      const name = new URL(t.database.url!).pathname.slice(1);
      await withAdminClient((client) => client.query(`drop database ${name} with (force)`));
      const response = await t.app.inject({ url: "/readyz" });
      expectUnavailable(response, /database is unreachable/);
      // The error object says what is down, never how (no driver text, no address).
      expect(response.json().error.message).toBe("Not ready: the database is unreachable.");
      expect((await t.app.inject({ url: "/healthz" })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
