/**
 * Graceful shutdown of the real server process (`node api/server.ts`, close-with-grace): on
 * SIGTERM it stops accepting connections, lets the search in flight answer (one waiting on the
 * places provider, one waiting on its audit jobs in BullMQ), closes its pools and queues and
 * exits 0.
 */
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { SITE_AUDIT_QUEUE } from "../../../shared/audit/queue.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { createOwnedRedis } from "../../support/owned-redis.ts";
import { createDatabaseFromTemplate } from "../../support/postgres.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";

const ADMIN_TOKEN = `admin-${randomBytes(16).toString("hex")}`;
/** How long the fake Places server sits on each request: the search is in flight that long. */
const PLACES_DELAY_MS = 2_000;

let places: FakeGooglePlacesServer;
let database: Awaited<ReturnType<typeof createDatabaseFromTemplate>>;
let server: ServerProcess | undefined;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  places.setPlaces("plumber in Ottawa", syntheticPlaces(3, { prefix: "shutdown" }));
  places.setPlaces("roofer in Ottawa", syntheticPlaces(2, { prefix: "shutdown-live" }));
  database = await createDatabaseFromTemplate();
});
afterAll(async () => {
  await server?.stop(2_000);
  await database?.drop();
});

const REDIS_URL = "redis://127.0.0.1:6379";

async function admin(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as Record<string, unknown>;
}

/** Resolves "connected" or the socket error's code ("ECONNREFUSED" once the server stopped listening). */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A workspace and an API key, created through the server's admin API. */
async function createKey(base: string): Promise<string> {
  const workspace = await admin(base, "/admin/workspaces", { name: "Shutdown test" });
  const member = await admin(base, `/admin/workspaces/${workspace.id}/members`, {
    email: `o-${randomBytes(4).toString("hex")}@shutdown.test`,
  });
  const key = await admin(base, `/admin/workspaces/${workspace.id}/api-keys`, {
    name: "server",
    created_by: member.id,
  });
  return key.key as string;
}

interface Answer {
  status: number;
  body: { results: unknown[]; credits_spent: number; truncated: boolean };
  at: number;
}

function startSearch(base: string, key: string, payload: unknown): Promise<Answer> {
  return fetch(`${base}/v1/searches`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(payload),
  }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as Answer["body"],
    at: Date.now(),
  }));
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const started = Date.now();
  while (!(await condition())) {
    expect(Date.now() - started, `${what} never happened`).toBeLessThan(timeoutMs);
    await sleep(20);
  }
}

/** SIGTERM, then the listening socket must close at once (within 1.5 s); returns when it did. */
async function terminateAndExpectRefusal(process: ServerProcess): Promise<number> {
  process.kill("SIGTERM");
  const signalledAt = Date.now();
  let outcome = "connected";
  while (outcome === "connected" && Date.now() - signalledAt < 1_500) {
    await sleep(50);
    outcome = await tryConnect(process.port);
  }
  expect(outcome).toBe("ECONNREFUSED");
  return Date.now();
}

async function expectCleanExit(process: ServerProcess, answeredAt: number) {
  const exit = await process.exited;
  expect(exit, process.output()).toEqual({ code: 0, signal: null });
  // Promptly: the client's keep-alive connection did not hold the server open (72 s keep-alive).
  expect(Date.now() - answeredAt).toBeLessThan(20_000);
  expect(process.logs.map((line) => line.json?.msg)).toContain("shutting down");
  expect(await tryConnect(process.port)).toBe("ECONNREFUSED");
}

describe("SIGTERM", () => {
  it("lets a search waiting on the places provider answer 200, refuses new connections, exits 0", {
    timeout: 120_000,
  }, async () => {
    server = await startServerProcess(
      {
        DATABASE_URL: database.url,
        ADMIN_TOKEN,
        ...places.env,
      },
      { readyTimeoutMs: 90_000 },
    );
    const key = await createKey(server.baseUrl);
    expect(await tryConnect(server.port)).toBe("connected");

    places.setDelay(PLACES_DELAY_MS);
    const requestsBefore = places.requests.length;
    const searchStarted = Date.now();
    const search = startSearch(server.baseUrl, key, {
      queries: [{ location: "Ottawa", category: "plumber" }],
      max_results: 3,
    });
    // The search is running once it has asked the places provider (which sits on it for 2 s).
    await waitFor("the search reaching the places provider", () => places.requests.length > requestsBefore);

    const refusedAt = await terminateAndExpectRefusal(server);
    const answer = await search;
    places.setDelay(0);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ credits_spent: 3, truncated: false });
    expect(answer.body.results).toHaveLength(3);
    // It really was in flight when new connections were refused.
    expect(refusedAt).toBeLessThan(answer.at);
    expect(answer.at - searchStarted).toBeGreaterThanOrEqual(PLACES_DELAY_MS - 50);
    await expectCleanExit(server, answer.at);
  });

  it("lets a search waiting on its audit jobs (distributed mode) answer before closing the queue", {
    timeout: 120_000,
  }, async () => {
    // No worker runs: the search waits for its jobs until its check budget ends, then answers.
    const prefix = `shutdown_${randomBytes(6).toString("hex")}`;
    const budgetMs = 3_000;
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix });
    try {
      server = await startServerProcess(
        {
          DATABASE_URL: database.url,
          REDIS_URL,
          QUEUE_PREFIX: prefix,
          ADMIN_TOKEN,
          ...places.env,
          SEARCH_CHECK_BUDGET_MS: String(budgetMs),
        },
        { readyTimeoutMs: 90_000 },
      );
      const key = await createKey(server.baseUrl);
      const searchStarted = Date.now();
      const search = startSearch(server.baseUrl, key, {
        queries: [{ location: "Ottawa", category: "roofer" }],
        filters: { not_mobile_friendly: true },
        max_results: 2,
      });
      await waitFor("the audit jobs being queued", async () => {
        // Audit jobs carry a priority (the candidate's rank): BullMQ keeps them as "prioritized".
        const counts = await queue.getJobCounts("waiting", "prioritized");
        return (counts.waiting ?? 0) + (counts.prioritized ?? 0) >= 2;
      });

      const refusedAt = await terminateAndExpectRefusal(server);
      const answer = await search;
      expect(answer.status).toBe(200);
      // Nothing could be checked in time: nothing returned, nothing charged, and said so.
      expect(answer.body).toEqual({ results: [], credits_spent: 0, truncated: true });
      expect(refusedAt).toBeLessThan(answer.at);
      expect(answer.at - searchStarted).toBeGreaterThanOrEqual(budgetMs - 50);
      await expectCleanExit(server, answer.at);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it("still exits 0, promptly, when Redis is unreachable at shutdown", { timeout: 120_000 }, async () => {
    const redis = await createOwnedRedis();
    await redis.start();
    server = await startServerProcess(
      { DATABASE_URL: database.url, REDIS_URL: redis.url, QUEUE_PREFIX: "shutdown_dead" },
      { readyTimeoutMs: 90_000 },
    );
    await redis.stop();
    const signalledAt = await terminateAndExpectRefusal(server);
    const exit = await server.exited;
    expect(exit, server.output()).toEqual({ code: 0, signal: null });
    // Well within close-with-grace's 60 s: closing the queue does not wait for a connection forever.
    expect(Date.now() - signalledAt).toBeLessThan(15_000);
  });
});
