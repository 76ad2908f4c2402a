/**
 * Rate limits as DESIGN.md decides them: per key, one bucket shared by list, single lead, credits
 * and draft, one bucket for search; 429 `rate_limited` with `Retry-After: 60` and `RateLimit-*`
 * headers on every limited response; counted in Redis when REDIS_URL is set, so that every API
 * node shares one count; in memory otherwise; while Redis is away, in each node's memory (the
 * limit holds per node, the fallback shows in the metrics), and in Redis again once it is back.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../../../api/services.ts";
import {
  adminRequest,
  createWorkspace,
  startSiblingApp,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";
import { createOwnedRedis } from "../../support/owned-redis.ts";
import { seedLeads } from "../../support/seed.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const READ = 4;
const SEARCH = 2;
const LIMITS = { RATE_LIMIT_READ_PER_MIN: String(READ), RATE_LIMIT_SEARCH_PER_MIN: String(SEARCH) };
const unique = (label: string) => `${label}-${randomBytes(6).toString("hex")}`;

interface Node {
  app: FastifyInstance;
  services: Services;
  close(): Promise<void>;
}

/** One more API node on `t`'s database, configured by `env`, with the rate-limit key prefix given. */
const startNode = (t: TestApp, env: Record<string, string>, rateLimitKeyPrefix?: string): Promise<Node> =>
  startSiblingApp(t.database.db, env, rateLimitKeyPrefix ? { rateLimitKeyPrefix } : {});

async function secondKey(app: FastifyInstance, ws: TestWorkspace): Promise<{ authorization: string }> {
  const response = await adminRequest(app, "POST", `/admin/workspaces/${ws.workspaceId}/api-keys`, {
    name: "second",
    created_by: ws.memberId,
  });
  expect(response.statusCode).toBe(201);
  return { authorization: `Bearer ${response.json().key as string}` };
}

function expectLimitHeaders(response: LightMyRequestResponse, limit: number, remaining: number) {
  expect(response.headers["ratelimit-limit"]).toBe(String(limit));
  expect(response.headers["ratelimit-remaining"]).toBe(String(remaining));
  expect(response.headers["ratelimit-policy"]).toBe(`${limit};w=60`);
  const reset = Number(response.headers["ratelimit-reset"]);
  expect(reset).toBeGreaterThanOrEqual(0);
  expect(reset).toBeLessThanOrEqual(60);
}

function expectRateLimited(response: LightMyRequestResponse, limit: number) {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toEqual({ error: { code: "rate_limited", message: expect.any(String) } });
  expect(response.headers["retry-after"]).toBe("60");
  expectLimitHeaders(response, limit, 0);
}

const credits = (app: FastifyInstance, auth: Record<string, string>) =>
  app.inject({ url: "/v1/credits", headers: auth });
/** A search with an invalid body: it spends a search token, then answers 400 (no provider needed). */
const badSearch = (app: FastifyInstance, auth: Record<string, string>) =>
  app.inject({ method: "POST", url: "/v1/searches", headers: auth, payload: { queries: [] } });

describe.each<{ mode: string; env: Record<string, string> }>([
  { mode: "Redis", env: { REDIS_URL } },
  { mode: "in-memory", env: {} },
])("limits counted in $mode", ({ mode, env }) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(
      { ...LIMITS, ...env, QUEUE_PREFIX: unique("rl").replace("-", "_") },
      { rateLimitKeyPrefix: unique(`rl-${mode}`) },
    );
  });
  afterAll(() => t?.close());

  it("allows exactly the read limit, then 429 with Retry-After: 60 and RateLimit-* headers", async () => {
    expect(t.services.redis !== undefined).toBe(mode === "Redis");
    const ws = await createWorkspace(t.app);
    for (let i = 1; i <= READ; i += 1) {
      const response = await credits(t.app, ws.auth);
      expect(response.statusCode).toBe(200);
      expectLimitHeaders(response, READ, READ - i);
      expect(response.headers["retry-after"]).toBeUndefined();
    }
    expectRateLimited(await credits(t.app, ws.auth), READ);
    expectRateLimited(await credits(t.app, ws.auth), READ);
  });

  it("shares one read bucket between list, single lead, credits and draft", async () => {
    const ws = await createWorkspace(t.app);
    const [leadId] = await seedLeads(t.database.db, ws.workspaceId, [{ place_id: unique("place") }]);
    const calls = [
      () => t.app.inject({ url: "/v1/leads", headers: ws.auth }),
      () => t.app.inject({ url: `/v1/leads/${leadId}`, headers: ws.auth }),
      () => credits(t.app, ws.auth),
      // A lead that is not there: 404, still a limited response that spent a token.
      () =>
        t.app.inject({ method: "POST", url: `/v1/leads/${randomUUID()}/outreach-draft`, headers: ws.auth }),
    ];
    for (const [index, call] of calls.entries()) {
      const response = await call();
      expect([200, 404]).toContain(response.statusCode);
      expectLimitHeaders(response, READ, READ - index - 1);
    }
    for (const call of calls) expectRateLimited(await call(), READ);
  });

  it("keeps the search bucket apart from the read bucket, both ways", async () => {
    const ws = await createWorkspace(t.app);
    for (let i = 1; i <= SEARCH; i += 1) {
      const response = await badSearch(t.app, ws.auth);
      expect(response.statusCode).toBe(400);
      expectLimitHeaders(response, SEARCH, SEARCH - i);
    }
    expectRateLimited(await badSearch(t.app, ws.auth), SEARCH);
    // Searches spent: reads are untouched.
    const read = await credits(t.app, ws.auth);
    expect(read.statusCode).toBe(200);
    expectLimitHeaders(read, READ, READ - 1);
  });

  it("counts per key: another key, of the same workspace or another, has its own count", async () => {
    const ws = await createWorkspace(t.app);
    const sameWorkspace = await secondKey(t.app, ws);
    const otherWorkspace = await createWorkspace(t.app);
    for (let i = 0; i < READ; i += 1) await credits(t.app, ws.auth);
    expectRateLimited(await credits(t.app, ws.auth), READ);
    for (const auth of [sameWorkspace, otherWorkspace.auth]) {
      const response = await credits(t.app, auth);
      expect(response.statusCode).toBe(200);
      expectLimitHeaders(response, READ, READ - 1);
    }
  });

  it("leaves unauthenticated and public routes out of the count, with no RateLimit headers", async () => {
    const ws = await createWorkspace(t.app);
    for (let i = 0; i < READ + 1; i += 1) {
      const unauthenticated = await credits(t.app, { authorization: `${ws.auth.authorization}x` });
      expect(unauthenticated.statusCode).toBe(401);
      expect(unauthenticated.headers["ratelimit-limit"]).toBeUndefined();
      for (const url of ["/openapi.json", "/v1/docs", "/healthz"]) {
        const response = await t.app.inject({ url, headers: ws.auth });
        expect(response.statusCode).toBe(200);
        expect(response.headers["ratelimit-limit"]).toBeUndefined();
      }
    }
    expectLimitHeaders(await credits(t.app, ws.auth), READ, READ - 1);
  });
});

describe("several API nodes", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(LIMITS);
  });
  afterAll(() => t?.close());

  it("share one count through Redis: the limit holds across nodes, not per node", async () => {
    const prefix = unique("rl-shared");
    const queuePrefix = unique("rl_shared").replace("-", "_");
    const nodeA = await startNode(t, { ...LIMITS, REDIS_URL, QUEUE_PREFIX: queuePrefix }, prefix);
    const nodeB = await startNode(t, { ...LIMITS, REDIS_URL, QUEUE_PREFIX: queuePrefix }, prefix);
    const inspector = new Redis(REDIS_URL);
    try {
      const ws = await createWorkspace(nodeA.app);
      // Alternate nodes, as a load balancer would: remaining counts down across both.
      for (let i = 1; i <= READ; i += 1) {
        const node = i % 2 === 1 ? nodeA : nodeB;
        const response = await credits(node.app, ws.auth);
        expect(response.statusCode).toBe(200);
        expectLimitHeaders(response, READ, READ - i);
      }
      expectRateLimited(await credits(nodeA.app, ws.auth), READ);
      expectRateLimited(await credits(nodeB.app, ws.auth), READ);
      // Search: same story in its own bucket.
      expect((await badSearch(nodeB.app, ws.auth)).statusCode).toBe(400);
      expect((await badSearch(nodeA.app, ws.auth)).statusCode).toBe(400);
      expectRateLimited(await badSearch(nodeB.app, ws.auth), SEARCH);
      // The counts live in Redis, under the prefix the nodes were given, with a one-minute expiry.
      const keys = await inspector.keys(`${prefix}:*`);
      expect(keys.sort()).toEqual([
        expect.stringContaining(`${prefix}:read`),
        expect.stringContaining(`${prefix}:search`),
      ]);
      for (const key of keys) {
        const ttl = await inspector.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
    } finally {
      inspector.disconnect();
      await nodeA.close();
      await nodeB.close();
    }
  });

  it("without REDIS_URL count in memory, each node on its own", async () => {
    const nodeA = await startNode(t, LIMITS);
    const nodeB = await startNode(t, LIMITS);
    try {
      expect(nodeA.services.redis).toBeUndefined();
      const ws = await createWorkspace(nodeA.app);
      for (let i = 1; i <= READ; i += 1) {
        expectLimitHeaders(await credits(nodeA.app, ws.auth), READ, READ - i);
      }
      expectRateLimited(await credits(nodeA.app, ws.auth), READ);
      // The other node has counted nothing for this key.
      const other = await credits(nodeB.app, ws.auth);
      expect(other.statusCode).toBe(200);
      expectLimitHeaders(other, READ, READ - 1);
    } finally {
      await nodeA.close();
      await nodeB.close();
    }
  });

  it("fall back to the node's own counts while Redis is unreachable, and go back to Redis when it returns", async () => {
    const redis = await createOwnedRedis();
    await redis.start();
    const prefix = unique("rl-away");
    const node = await startNode(t, { ...LIMITS, REDIS_URL: redis.url, QUEUE_PREFIX: "rl_away" }, prefix);
    const scrape = async () => (await node.app.inject({ url: "/metrics" })).body;
    const sample = (text: string, name: string) =>
      Number(new RegExp(`^leadapi_${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
    try {
      const ws = await createWorkspace(node.app);
      expect(sample(await scrape(), "rate_limit_fallback_active")).toBe(0);
      await redis.stop();
      // The limit still holds, counted by this node alone: no 503, the same headers.
      for (let i = 1; i <= READ; i += 1) {
        const response = await credits(node.app, ws.auth);
        expect(response.statusCode, response.body).toBe(200);
        expectLimitHeaders(response, READ, READ - i);
      }
      expectRateLimited(await credits(node.app, ws.auth), READ);
      expect((await badSearch(node.app, ws.auth)).statusCode).toBe(400);
      const during = await scrape();
      expect(sample(during, "rate_limit_fallback_active")).toBe(1);
      expect(sample(during, "rate_limit_checks_in_memory_total")).toBeGreaterThanOrEqual(READ + 2);
      // Authentication still comes first; routes without a limit are unaffected.
      expect((await credits(node.app, {})).statusCode).toBe(401);
      expect((await node.app.inject({ url: "/healthz" })).statusCode).toBe(200);

      await redis.start();
      for (let tries = 0; sample(await scrape(), "rate_limit_fallback_active") !== 0; tries += 1) {
        if (tries > 100) throw new Error("the node did not go back to Redis within 10 s");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // A new key's count is in Redis again (the restarted Redis is empty: the window starts over).
      const other = await createWorkspace(node.app);
      expectLimitHeaders(await credits(node.app, other.auth), READ, READ - 1);
      const inspector = new Redis(redis.url);
      try {
        expect(await inspector.keys(`${prefix}:read:*`)).toHaveLength(1);
      } finally {
        inspector.disconnect();
      }
    } finally {
      await node.close();
      await redis.stop();
    }
  });
});
