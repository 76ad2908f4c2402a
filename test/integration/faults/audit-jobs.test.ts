/**
 * Audit jobs never block a place, with real processes: an API server (`node api/server.ts`) and
 * audit workers (`node workers/audit-worker.ts`) on a PostgreSQL this test owns (stopped while a
 * job saves its audit) and the machine's Redis under a prefix of this run's own.
 *
 * - A job whose attempts all failed because the database was down is not left behind under its
 *   place-derived id: the next search audits the place again instead of skipping it.
 * - A worker killed with SIGKILL mid-job: another worker finishes the job within the lock plus a
 *   few seconds (the figure is printed; the bound asserted is generous).
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditJobId, createQueueAuditor, SITE_AUDIT_QUEUE } from "../../../shared/audit/queue.ts";
import { createLogger } from "../../../shared/logger.ts";
import { stalledCheckMs } from "../../../workers/build-worker.ts";
import { ADMIN_TOKEN } from "../../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, OLD_HOMEPAGE, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { moneyInvariantViolations } from "../../support/money-invariants.ts";
import { createOwnedPostgres, type OwnedPostgres } from "../../support/owned-postgres.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";
import { startAuditWorker, stopAllWorkers, type WorkerProcess } from "../../support/worker-process.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** Start-up loads the audit stack and runs migrations: slow on a busy 2-core machine. */
const READY_MS = 60_000;

const unique = () => randomBytes(5).toString("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

async function http(
  baseUrl: string,
  method: "GET" | "POST",
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: unknown; text: string }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

/** A workspace with an API key, made through the server's admin API. */
async function createWorkspaceOver(baseUrl: string): Promise<{ id: string; key: string }> {
  const admin = { token: ADMIN_TOKEN };
  const workspace = await http(baseUrl, "POST", "/admin/workspaces", {
    ...admin,
    body: { name: "Fault agency" },
  });
  if (workspace.status !== 201) throw new Error(`workspace: ${workspace.status} ${workspace.text}`);
  const id = (workspace.body as { id: string }).id;
  const member = await http(baseUrl, "POST", `/admin/workspaces/${id}/members`, {
    ...admin,
    body: { email: `owner-${id.slice(0, 8)}@agency.test` },
  });
  const key = await http(baseUrl, "POST", `/admin/workspaces/${id}/api-keys`, {
    ...admin,
    body: { name: "server", created_by: (member.body as { id: string }).id },
  });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { id, key: (key.body as { key: string }).key };
}

interface SearchBody {
  results: { place_id: string }[];
  credits_spent: number;
  truncated: boolean;
}

async function removeQueueKeys(prefix: string): Promise<void> {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  connection.on("error", () => {});
  const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix });
  queue.on("error", () => {});
  try {
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  sites = await startFakeSites();
});
afterAll(async () => {
  await stopAllWorkers(2_000);
  await sites?.close();
});

describe("an audit job that failed while the database was down", () => {
  const prefix = `fault-${unique()}`;
  let postgres: OwnedPostgres;
  let databaseUrl: string;
  let api: ServerProcess | undefined;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    postgres = await createOwnedPostgres();
    await postgres.start();
    databaseUrl = await postgres.createDatabase("leadapi");
    const shared = {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    };
    // The server applies the migrations at start-up; the worker starts once they are in.
    api = await startServerProcess(
      {
        ...shared,
        ADMIN_TOKEN,
        ...places.env,
        SEARCH_CHECK_BUDGET_MS: "4000",
        RATE_LIMIT_SEARCH_PER_MIN: "1000",
        RATE_LIMIT_READ_PER_MIN: "1000",
      },
      { readyTimeoutMs: READY_MS },
    );
    worker = await startAuditWorker(
      { ...shared, AUDIT_THREADS: "1", AUDIT_JOB_LOCK_MS: "5000" },
      { name: "worker-db-down", readyTimeoutMs: READY_MS },
    );
  }, 3 * READY_MS);
  afterAll(async () => {
    await worker?.stop(5_000);
    await api?.stop(5_000);
    await postgres?.destroy();
    await removeQueueKeys(prefix);
  });

  it("is audited again by the next search, and the ledger holds", { timeout: 120_000 }, async () => {
    if (!api || !worker) throw new Error("set-up failed");
    const baseUrl = api.baseUrl;
    sites.set("/down-old", { html: OLD_HOMEPAGE, delayMs: 1_000 });
    const url = sites.url("/down-old");
    places.setPlaces("plumber in Springfield", [googlePlace("down-old", url)]);
    const ws = await createWorkspaceOver(baseUrl);
    const purchase = await http(baseUrl, "POST", `/admin/workspaces/${ws.id}/credit-purchases`, {
      token: ADMIN_TOKEN,
      body: { credits: 5 },
    });
    expect(purchase.status, purchase.text).toBe(201);
    const searchBody = {
      queries: [{ location: "Springfield", category: "plumber" }],
      filters: { not_mobile_friendly: true },
      max_results: 5,
    };

    // The worker is fetching the site when the database goes: its save fails, every attempt.
    const first = http(baseUrl, "POST", "/v1/searches", { token: ws.key, body: searchBody });
    await waitFor("the site to be fetched", () => sites.hits("/down-old") > 0, 15_000);
    await postgres.stop("fast");
    await worker.waitForLog((line) => line.msg === "audit job failed" && line.json?.attempts === 3, 30_000);
    const firstAnswer = await first;
    // Whatever the first search answered (it could not charge with the database down), it did not
    // claim a complete answer without the place.
    if (firstAnswer.status === 200) {
      expect((firstAnswer.body as SearchBody).truncated).toBe(true);
    } else {
      expect(firstAnswer.status, firstAnswer.text).toBeGreaterThanOrEqual(500);
    }
    const hitsWhileDown = sites.hits("/down-old");
    expect(hitsWhileDown).toBeGreaterThanOrEqual(3);

    await postgres.start();
    await waitFor(
      "the server to be ready again",
      async () => (await http(baseUrl, "GET", "/readyz").catch(() => ({ status: 0 }))).status === 200,
      30_000,
      250,
    );

    // The next search runs the audit again (a new job, not the dead one) and finds the place.
    sites.set("/down-old", { html: OLD_HOMEPAGE });
    const second = await http(baseUrl, "POST", "/v1/searches", { token: ws.key, body: searchBody });
    expect(second.status, second.text).toBe(200);
    const body = second.body as SearchBody;
    expect(body.results.map((result) => result.place_id)).toEqual(["down-old"]);
    expect(body.truncated).toBe(false);
    expect(body.credits_spent).toBe(1);
    expect(sites.hits("/down-old")).toBe(hitsWhileDown + 1);
    const rows = await postgres.query<{ outcome: string; url: string }>(
      "leadapi",
      "select outcome, url from site_audits where place_id = $1",
      ["down-old"],
    );
    expect(rows).toEqual([{ outcome: "ok", url }]);

    // Both processes rode out the outage.
    expect(worker.exit).toBeNull();
    const credits = await http(baseUrl, "GET", "/v1/credits", { token: ws.key });
    expect(credits.status, credits.text).toBe(200);
    expect(credits.body).toMatchObject({ balance: 14 });

    expect(await moneyInvariantViolations((text) => postgres.query("leadapi", text))).toEqual({
      balances: [],
      doubleCharges: [],
      chargedWithoutLead: [],
    });
  });
});

describe("a worker killed with SIGKILL in the middle of a job", () => {
  const prefix = `fault-${unique()}`;
  const lockMs = 6_000;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await stopAllWorkers(2_000);
    await database?.close();
    await removeQueueKeys(prefix);
  });

  it("has its job finished by another worker within the lock plus a few seconds", {
    timeout: 120_000,
  }, async () => {
    if (!database.url) throw new Error("this test needs PostgreSQL (a database URL for the workers)");
    const hits: { userAgent: string; at: number }[] = [];
    const server: Server = createServer((request, response) => {
      hits.push({ userAgent: request.headers["user-agent"] ?? "", at: Date.now() });
      const timer = setTimeout(
        () => response.writeHead(200, { "content-type": "text/html" }).end(OLD_HOMEPAGE),
        2_000,
      );
      response.on("close", () => clearTimeout(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const auditor = createQueueAuditor({
      redisUrl: REDIS_URL,
      prefix,
      db: database.db,
      logger: createLogger("silent", "test"),
    });
    try {
      const workers = await Promise.all(
        ["worker-a", "worker-b"].map((name) =>
          startAuditWorker(
            {
              DATABASE_URL: database.url!,
              REDIS_URL,
              QUEUE_PREFIX: prefix,
              AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
              AUDIT_THREADS: "1",
              AUDIT_JOB_LOCK_MS: String(lockMs),
              PUBLIC_URL: `http://${name}.workers.test`,
            },
            { name, readyTimeoutMs: READY_MS },
          ),
        ),
      );
      const pending = auditor.audit({ placeId: "kill-9", url, country: "US" }, Date.now() + 90_000);
      const first = await waitFor("the site to be fetched", () => hits[0], 15_000);
      const victim = workers.find((worker) => first.userAgent.includes(`${worker.name}.workers.test`));
      const survivor = workers.find((worker) => worker !== victim);
      if (!victim || !survivor) throw new Error(`no worker matches User-Agent ${first.userAgent}`);
      victim.kill("SIGKILL");
      const killedAt = Date.now();
      expect(await victim.exited).toEqual({ code: null, signal: "SIGKILL" });

      const audit = await pending;
      expect(audit).toMatchObject({ place_id: "kill-9", url, outcome: "ok" });
      const retry = hits[1];
      expect(retry?.userAgent).toContain(`${survivor.name}.workers.test`);
      const pickedUpMs = retry!.at - killedAt;
      const checkMs = stalledCheckMs(lockMs);
      console.log(
        `dead worker's job picked up by the other worker ${pickedUpMs} ms after SIGKILL ` +
          `(AUDIT_JOB_LOCK_MS ${lockMs}, stalled check every ${checkMs} ms; bound lock + check = ${lockMs + checkMs} ms)`,
      );
      // Generous: lock plus check interval plus slack for a busy machine; twice the lock
      // (BullMQ's default stalled interval equal to the lock) would be 12 s and more.
      expect(pickedUpMs).toBeLessThan(lockMs + checkMs + 3_000);
      const finished = await survivor.waitForLog(
        (line) =>
          line.msg === "audit finished" && line.json?.job_id === auditJobId({ placeId: "kill-9", url }),
        10_000,
      );
      expect(finished.json).toMatchObject({ outcome: "ok" });
    } finally {
      await auditor.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
