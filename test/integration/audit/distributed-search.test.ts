/**
 * Distributed mode end to end, with real processes: the API app (queue auditor on Redis),
 * audit workers started as `node workers/audit-worker.ts`, PostgreSQL shared by both, and
 * homepages served over local HTTP. Faults are real too: kill -9 of a worker in the middle of a
 * job, SIGTERM during a job, a Redis server killed and started again under a running search.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer } from "node:net";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SiteAuditor } from "../../../shared/audit/auditor.ts";
import { auditJobId, createQueueAuditor, SITE_AUDIT_QUEUE } from "../../../shared/audit/queue.ts";
import type { SiteAudit } from "../../../shared/audit/types.ts";
import type { Db } from "../../../shared/db/database.ts";
import { createLogger } from "../../../shared/logger.ts";
import { createWorkspace, startTestApp, type TestApp, type TestWorkspace } from "../../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import {
  type FakeSitesServer,
  MODERN_HOMEPAGE,
  OLD_HOMEPAGE,
  startFakeSites,
} from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { startAuditWorker, stopAllWorkers, type WorkerProcess } from "../../support/worker-process.ts";

const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** Worker start-up loads the whole audit stack and runs migrations: slow on a busy 2-core machine. */
const WORKER_READY_MS = 45_000;

const unique = () => randomBytes(5).toString("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` gives a value other than undefined/false, or fails after `timeoutMs`. */
async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

const place = googlePlace;

interface SearchBody {
  results: { place_id: string; is_mobile_friendly: boolean | null; is_outdated: boolean | null }[];
  credits_spent: number;
  truncated: boolean;
}

function search(app: TestApp, ws: TestWorkspace, category: string, filters: Record<string, boolean>) {
  return app.app.inject({
    method: "POST",
    url: "/v1/searches",
    headers: ws.auth,
    payload: { queries: [{ location: "Springfield", category }], filters, max_results: 10 },
  });
}

const ids = (body: SearchBody) => body.results.map((result) => result.place_id);

async function auditRow(db: Db, placeId: string) {
  return db.selectFrom("site_audits").selectAll().where("place_id", "=", placeId).executeTakeFirst();
}

async function balanceOf(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom("workspaces")
    .select("balance")
    .where("id", "=", workspaceId)
    .executeTakeFirstOrThrow();
  return row.balance;
}

async function chargedPlaces(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("search_charges")
    .select("place_id")
    .where("workspace_id", "=", workspaceId)
    .execute();
  return rows.map((row) => row.place_id).sort();
}

/** "audit finished" lines for a job, across workers. */
function finishedLines(workers: readonly WorkerProcess[], jobId: string) {
  return workers.flatMap((worker) =>
    worker.linesWith("audit finished").filter((line) => line.json?.job_id === jobId),
  );
}

/** The app in distributed mode: queue auditor on `redisUrl` under its own prefix, places from the fake. */
function startDistributedApp(
  places: FakeGooglePlacesServer,
  options: { redisUrl: string; prefix: string; budgetMs: number },
): Promise<TestApp> {
  return startTestApp(
    {
      REDIS_URL: options.redisUrl,
      QUEUE_PREFIX: options.prefix,
      ...places.env,
      AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
      SEARCH_CHECK_BUDGET_MS: String(options.budgetMs),
      RATE_LIMIT_SEARCH_PER_MIN: "1000",
      RATE_LIMIT_READ_PER_MIN: "1000",
    },
    { rateLimitKeyPrefix: `rl-${options.prefix}` },
  );
}

function workerEnv(
  databaseUrl: string | undefined,
  options: { redisUrl: string; prefix: string; name: string; lockMs?: number },
) {
  if (!databaseUrl) throw new Error("distributed tests need PostgreSQL (a database URL for the workers)");
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: options.prefix,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    AUDIT_CONCURRENCY: "10",
    AUDIT_THREADS: "1",
    AUDIT_JOB_LOCK_MS: String(options.lockMs ?? 1500),
    // Names the worker in its User-Agent: the site can tell which process fetched it.
    PUBLIC_URL: `http://${options.name}.workers.test`,
    LOG_LEVEL: "info",
    AUDIT_UNREACHABLE_RETRY_MS: "300",
  };
}

/** Leaves the shared Redis as it was: this run's queue keys go (other runs use other prefixes). */
async function removeQueueKeys(redisUrl: string, prefix: string): Promise<void> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
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

/** The API's Redis clients come back by themselves: the rate limiter's, and the queue producer's. */
async function waitForApiRedisClients(app: TestApp): Promise<void> {
  await waitFor(
    "the rate limiter's Redis client to reconnect",
    () => app.services.redis?.status === "ready",
    10_000,
  );
  const { auditor } = app.services;
  if (!("queue" in auditor)) throw new Error("the app is not in distributed mode (no queue auditor)");
  const { queue } = auditor as SiteAuditor & { queue: Queue };
  // The producer fails fast while disconnected: a command that succeeds means it is back.
  await waitFor(
    "the queue producer to reconnect",
    () =>
      queue.getJobCounts("waiting").then(
        () => true,
        () => false,
      ),
    10_000,
  );
}

/** A site that records who asked (User-Agent) and answers after `delayMs`. */
interface RecordingSite {
  url: string;
  hits: { userAgent: string; at: number }[];
  close(): Promise<void>;
}

async function startRecordingSite(html: string, delayMs: number): Promise<RecordingSite> {
  const hits: RecordingSite["hits"] = [];
  const server: Server = createServer((request, response) => {
    hits.push({ userAgent: request.headers["user-agent"] ?? "", at: Date.now() });
    const timer = setTimeout(() => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    }, delayMs);
    response.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function redisAnswersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

/** A redis-server of this test's own on a free port, so it can be killed and started again. */
interface PrivateRedis {
  url: string;
  /** SIGKILL (a crash: nothing saved), then a new empty server on the same port. */
  restart(): Promise<void>;
  /** SIGKILL; `start()` brings an empty server back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    const started = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    child = started;
    const failed = new Promise<never>((_, reject) => {
      started.once("error", (error) => reject(new Error(`redis-server could not start: ${error.message}`)));
      started.once("exit", (code) => reject(new Error(`redis-server exited early with code ${code}`)));
    });
    failed.catch(() => {});
    await Promise.race([
      failed,
      waitFor("redis-server to answer PING", () => redisAnswersPing(port), 10_000),
    ]);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGKILL");
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      await kill();
      await launch();
    },
    stop: kill,
    start: launch,
  };
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

describe("live-filter search with two audit worker processes", () => {
  const prefix = `dist-${unique()}`;
  const budgetMs = 10_000;
  let t: TestApp;
  let workers: WorkerProcess[] = [];

  beforeAll(async () => {
    t = await startDistributedApp(places, { redisUrl: SHARED_REDIS_URL, prefix, budgetMs });
    workers = await Promise.all(
      ["worker-a", "worker-b"].map((name) =>
        startAuditWorker(workerEnv(t.database.url, { redisUrl: SHARED_REDIS_URL, prefix, name }), {
          name,
          readyTimeoutMs: WORKER_READY_MS,
        }),
      ),
    );
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop(5_000)));
    await t?.close();
    await removeQueueKeys(SHARED_REDIS_URL, prefix);
  });

  it("returns the right matches from audits the workers cached, one audit per place for concurrent searches", async () => {
    for (const [path, html] of [
      ["/d-old-1", OLD_HOMEPAGE],
      ["/d-modern", MODERN_HOMEPAGE],
      ["/d-old-2", OLD_HOMEPAGE],
    ] as const) {
      // Slow enough that the three searches below overlap while the audits run.
      sites.set(path, { html, delayMs: 800 });
    }
    places.setPlaces("plumber in Springfield", [
      place("d-old-1", sites.url("/d-old-1")),
      place("d-modern", sites.url("/d-modern")),
      place("d-none", null),
      place("d-old-2", sites.url("/d-old-2")),
    ]);
    const x = await createWorkspace(t.app, { name: "Agency X" });
    const y = await createWorkspace(t.app, { name: "Agency Y" });

    const responses = await Promise.all([
      search(t, x, "plumber", { not_mobile_friendly: true }),
      search(t, x, "plumber", { not_mobile_friendly: true }),
      search(t, y, "plumber", { not_mobile_friendly: true }),
    ]);
    const bodies = responses.map((response) => {
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as SearchBody;
    });
    for (const body of bodies) {
      expect(ids(body)).toEqual(["d-old-1", "d-old-2"]);
      expect(body.truncated).toBe(false);
      for (const result of body.results) {
        expect(result).toMatchObject({ is_mobile_friendly: false, is_outdated: true });
      }
    }
    // Concurrent identical searches never charge a place twice.
    expect(bodies[0]!.credits_spent + bodies[1]!.credits_spent).toBe(2);
    expect(bodies[2]!.credits_spent).toBe(2);
    expect(await balanceOf(t.database.db, x.workspaceId)).toBe(8);
    expect(await balanceOf(t.database.db, y.workspaceId)).toBe(8);
    expect(await chargedPlaces(t.database.db, x.workspaceId)).toEqual(["d-old-1", "d-old-2"]);

    // One audit per place whatever the number of searches: each site fetched once...
    for (const path of ["/d-old-1", "/d-modern", "/d-old-2"]) expect(sites.hits(path)).toBe(1);
    // ...by the worker processes (one "audit finished" per job), which wrote the cache rows.
    for (const [placeId, path] of [
      ["d-old-1", "/d-old-1"],
      ["d-modern", "/d-modern"],
      ["d-old-2", "/d-old-2"],
    ] as const) {
      const jobId = auditJobId({ placeId, url: sites.url(path) });
      // The completion event may beat the worker's log line to this process: wait for the line.
      await Promise.any(
        workers.map((worker) =>
          worker.waitForLog((line) => line.msg === "audit finished" && line.json?.job_id === jobId, 5_000),
        ),
      );
      expect(finishedLines(workers, jobId), `job of ${placeId}`).toHaveLength(1);
      const row = await auditRow(t.database.db, placeId);
      expect(row).toMatchObject({ url: sites.url(path), outcome: "ok", failure: null });
      expect(row?.signals.not_mobile_friendly).toBe(placeId !== "d-modern");
    }
    expect(await auditRow(t.database.db, "d-none")).toBeUndefined();

    // A later search with another live filter answers from the cache: no new fetch, no new charge.
    const again = await search(t, x, "plumber", { outdated_website: true });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ credits_spent: 0, truncated: false });
    expect(ids(again.json())).toEqual(["d-old-1", "d-old-2"]);
    for (const path of ["/d-old-1", "/d-modern", "/d-old-2"]) expect(sites.hits(path)).toBe(1);
    expect(workers.every((worker) => worker.exit === null)).toBe(true);
  });

  it("queues a down site's second attempt as a job of its own: the search answers at the first, the cache decides at the second", async () => {
    sites.set("/d-down", { status: 503 });
    sites.set("/d-old-3", { html: OLD_HOMEPAGE });
    places.setPlaces("glazier in Springfield", [
      place("d-down", sites.url("/d-down")),
      place("d-old-3", sites.url("/d-old-3")),
    ]);
    const ws = await createWorkspace(t.app);
    const response = await search(t, ws, "glazier", { not_mobile_friendly: true });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as SearchBody;
    expect(ids(body)).toEqual(["d-old-3"]);
    expect(body.truncated).toBe(false);

    const first = auditJobId({ placeId: "d-down", url: sites.url("/d-down") });
    const second = auditJobId({
      placeId: "d-down",
      url: sites.url("/d-down"),
      firstAttempt: { at: "", result: "" },
    });
    expect(second).not.toBe(first);
    const row = await waitFor(
      "the second attempt's audit",
      async () => {
        const found = await auditRow(t.database.db, "d-down");
        return found?.failure === "site_unreachable" ? found : undefined;
      },
      15_000,
    );
    expect(row).toMatchObject({ outcome: "failed", signals: { site_unreachable: true } });
    expect((row.evidence as { attempts?: unknown[] }).attempts).toEqual([
      { at: expect.any(String), result: "http_503" },
      { at: expect.any(String), result: "http_503" },
    ]);
    expect(sites.hits("/d-down")).toBe(2);
    await Promise.any(
      workers.map((worker) =>
        worker.waitForLog((line) => line.msg === "audit finished" && line.json?.job_id === second, 5_000),
      ),
    );
    expect(finishedLines(workers, first)).toHaveLength(1);
    expect(finishedLines(workers, second)).toHaveLength(1);
  });

  // Last in this group: it kills one of the two workers.
  it("finishes a job on the other worker after kill -9 mid-job; the waiting search keeps its budget", async () => {
    const slow = await startRecordingSite(OLD_HOMEPAGE, 3_000);
    try {
      sites.set("/k-fast", { html: OLD_HOMEPAGE });
      places.setPlaces("roofer in Springfield", [
        place("k-slow", slow.url),
        place("k-fast", sites.url("/k-fast")),
      ]);
      const ws = await createWorkspace(t.app);

      const started = Date.now();
      const pending = search(t, ws, "roofer", { not_mobile_friendly: true });
      // The worker that took the job is the one fetching: its User-Agent names it.
      const first = await waitFor("the slow site to be fetched", () => slow.hits[0], 8_000);
      const victim = workers.find((worker) => first.userAgent.includes(`${worker.name}.workers.test`));
      const survivor = workers.find((worker) => worker !== victim);
      if (!victim || !survivor) throw new Error(`no worker matches User-Agent ${first.userAgent}`);
      victim.kill("SIGKILL");
      expect(await victim.exited).toEqual({ code: null, signal: "SIGKILL" });

      const response = await pending;
      const elapsed = Date.now() - started;
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as SearchBody;
      // The search answered within its budget (plus the time to charge and answer)...
      expect(elapsed).toBeLessThan(budgetMs + 1_500);
      // ...with the recovered jobs' results, or without some of them and truncated (the killed
      // worker may have held the fast job too, when its analysis thread was still warming up).
      if (body.truncated) {
        expect(ids(body).length).toBeLessThan(2);
        expect(["k-slow", "k-fast"]).toEqual(expect.arrayContaining(ids(body)));
      } else {
        expect(ids(body)).toEqual(["k-slow", "k-fast"]);
      }
      // Only places returned are charged.
      expect(body.credits_spent).toBe(body.results.length);
      expect(await chargedPlaces(t.database.db, ws.workspaceId)).toEqual([...ids(body)].sort());
      expect(await balanceOf(t.database.db, ws.workspaceId)).toBe(10 - body.results.length);

      // The other worker picked the stalled job up, fetched the site again and cached the audit.
      const row = await waitFor("the k-slow audit row", () => auditRow(t.database.db, "k-slow"), 15_000);
      expect(row).toMatchObject({ outcome: "ok", url: slow.url });
      expect(slow.hits.length).toBeGreaterThanOrEqual(2);
      expect(slow.hits[1]!.userAgent).toContain(`${survivor.name}.workers.test`);
      const jobId = auditJobId({ placeId: "k-slow", url: slow.url });
      await survivor.waitForLog(
        (line) => line.msg === "audit finished" && line.json?.job_id === jobId,
        5_000,
      );
      expect(finishedLines([victim], jobId)).toHaveLength(0);
      expect(survivor.exit).toBeNull();

      // The place left out is found in the cache by the next search, and charged then, once.
      const again = await search(t, ws, "roofer", { not_mobile_friendly: true });
      expect(ids(again.json())).toEqual(["k-slow", "k-fast"]);
      expect(again.json()).toMatchObject({ truncated: false, credits_spent: 2 - body.results.length });
      expect(await balanceOf(t.database.db, ws.workspaceId)).toBe(8);
    } finally {
      await slow.close();
    }
  });
});

describe("one audit worker process", () => {
  const prefix = `dist-${unique()}`;
  let database: TestDatabase;
  let auditor: SiteAuditor;
  let worker: WorkerProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    auditor = createQueueAuditor({
      redisUrl: SHARED_REDIS_URL,
      prefix,
      db: database.db,
      logger: createLogger("silent", "test"),
    });
    worker = await startAuditWorker(
      workerEnv(database.url, { redisUrl: SHARED_REDIS_URL, prefix, name: "worker-solo" }),
      { name: "worker-solo", readyTimeoutMs: WORKER_READY_MS },
    );
  });
  afterAll(async () => {
    await worker?.stop(5_000);
    await auditor?.close();
    await database?.close();
    await removeQueueKeys(SHARED_REDIS_URL, prefix);
  });

  const audit = (placeId: string, url: string) =>
    auditor.audit({ placeId, url, country: "US" }, Date.now() + 15_000);

  it("records failed fetches as failed audits and keeps serving the next jobs", async () => {
    const closedPort = await freePort();
    const failing: [placeId: string, url: string, failure: string][] = [
      ["f-404", sites.url("/f-missing"), "http_404"],
      ["f-refused", `http://127.0.0.1:${closedPort}/`, "connection_failed"],
      // Reserved range: refused even with AUDIT_ALLOW_PRIVATE_NETWORKS.
      ["f-blocked", "http://240.0.0.1/", "blocked_address"],
    ];
    const audits = await Promise.all(failing.map(([placeId, url]) => audit(placeId, url)));
    for (const [index, [placeId, url, failure]] of failing.entries()) {
      expect(audits[index], placeId).toMatchObject({ place_id: placeId, url, outcome: "failed", failure });
      const row = await auditRow(database.db, placeId);
      expect(row, placeId).toMatchObject({ outcome: "failed", failure });
      // A site that could not be read is never flagged.
      expect(Object.values(row?.signals ?? {}).every((value) => value === null)).toBe(true);
    }
    // Failures are audits, not job errors: nothing for BullMQ to retry.
    expect(worker.linesWith("audit job failed")).toHaveLength(0);

    sites.set("/f-good", { html: OLD_HOMEPAGE });
    const good = await audit("f-good", sites.url("/f-good"));
    expect(good).toMatchObject({ outcome: "ok", failure: null });
    expect(good?.signals.not_mobile_friendly).toBe(true);
    expect((await auditRow(database.db, "f-good"))?.outcome).toBe("ok");
    // The producer may hear of the completion before this process has read the worker's log line.
    await worker.waitForLog(
      (line) => line.msg === "audit finished" && line.json?.place_id === "f-good",
      5_000,
    );
    // The first attempts only: an unreachable site's second attempt (its job id ends in -second,
    // AUDIT_UNREACHABLE_RETRY_MS later) may or may not have finished by now.
    const firstAttempts = new Set(
      [
        ...failing.map(([placeId, url]) => ({ placeId, url })),
        { placeId: "f-good", url: sites.url("/f-good") },
      ].map((target) => auditJobId(target)),
    );
    const finished = worker.linesWith("audit finished");
    expect(
      finished
        .filter((line) => firstAttempts.has(String(line.json?.job_id)))
        .map((line) => line.json?.outcome),
    ).toEqual(["failed", "failed", "failed", "ok"]);
    expect(
      finished.every(
        (line) =>
          String(line.json?.job_id).endsWith("-second") || firstAttempts.has(String(line.json?.job_id)),
      ),
    ).toBe(true);
    expect(worker.exit).toBeNull();
  });

  // Last in this group: it stops the worker.
  it("on SIGTERM finishes the job in progress, caches it, then exits 0", async () => {
    sites.set("/s-slow", { html: OLD_HOMEPAGE, delayMs: 3_000 });
    const url = sites.url("/s-slow");
    const pending = audit("s-slow", url);
    await waitFor("the slow site to be fetched", () => sites.hits("/s-slow") > 0, 8_000);
    const signalled = Date.now();
    worker.kill("SIGTERM");

    const exit = await worker.exited;
    expect(exit, worker.output()).toEqual({ code: 0, signal: null });
    // It waited for the site (about 3 s) instead of dropping the job.
    expect(Date.now() - signalled).toBeGreaterThan(2_000);
    const messages = worker.logs.map((line) => line.msg);
    const finished = worker
      .linesWith("audit finished")
      .find((line) => line.json?.job_id === auditJobId({ placeId: "s-slow", url }));
    expect(finished?.json).toMatchObject({ outcome: "ok" });
    expect(messages.indexOf("audit worker stopping: finishing active jobs")).toBeLessThan(
      worker.logs.indexOf(finished!),
    );
    expect(messages.at(-1)).toBe("audit worker stopped");

    const row = await auditRow(database.db, "s-slow");
    expect(row).toMatchObject({ outcome: "ok", url });
    // The producer heard of the completion too.
    const result: SiteAudit | null = await pending;
    expect(result).toMatchObject({ place_id: "s-slow", outcome: "ok" });
    expect(sites.hits("/s-slow")).toBe(1);
  });
});

describe("Redis restarted during a live-filter search", () => {
  const prefix = `dist-${unique()}`;
  const budgetMs = 6_000;
  let redis: PrivateRedis;
  let t: TestApp;
  let worker: WorkerProcess;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    t = await startDistributedApp(places, { redisUrl: redis.url, prefix, budgetMs });
    worker = await startAuditWorker(
      workerEnv(t.database.url, { redisUrl: redis.url, prefix, name: "worker-r" }),
      { name: "worker-r", readyTimeoutMs: WORKER_READY_MS },
    );
  });
  afterEach(async () => {
    // Whatever happened, the next step needs a Redis that answers.
    if (redis && !(await redisAnswersPing(Number(new URL(redis.url).port)))) await redis.restart();
  });
  afterAll(async () => {
    await worker?.stop(5_000);
    await t?.close();
    await redis?.stop();
  });

  it("answers (truncated or 5xx) and never charges a place twice", async () => {
    sites.set("/r-fast-old", { html: OLD_HOMEPAGE });
    for (const path of ["/r-old-1", "/r-old-2", "/r-modern"]) {
      sites.set(path, { html: path === "/r-modern" ? MODERN_HOMEPAGE : OLD_HOMEPAGE, delayMs: 2_500 });
    }
    places.setPlaces("mason in Springfield", [
      place("r-fast-old", sites.url("/r-fast-old")),
      place("r-old-1", sites.url("/r-old-1")),
      place("r-modern", sites.url("/r-modern")),
      place("r-old-2", sites.url("/r-old-2")),
    ]);
    const ws = await createWorkspace(t.app);

    const started = Date.now();
    const pending = search(t, ws, "mason", { not_mobile_friendly: true });
    // The worker is fetching the slow sites: their jobs are active in Redis.
    await waitFor(
      "the slow sites to be fetched",
      () => ["/r-old-1", "/r-old-2", "/r-modern"].every((path) => sites.hits(path) > 0),
      8_000,
    );
    await redis.restart();

    const first = await pending;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(budgetMs + 1_500);
    let firstReturned: string[] = [];
    if (first.statusCode === 200) {
      const body = first.json() as SearchBody;
      firstReturned = ids(body);
      // The jobs' outcomes were lost with Redis: whatever was not answered is left out, and said so.
      if (firstReturned.length < 3) expect(body.truncated).toBe(true);
      expect(body.credits_spent).toBe(firstReturned.length);
      expect(firstReturned).toEqual(
        ["r-fast-old", "r-old-1", "r-old-2"].filter((id) => firstReturned.includes(id)),
      );
    } else {
      expect(first.statusCode, first.body).toBeGreaterThanOrEqual(500);
    }
    expect(await chargedPlaces(t.database.db, ws.workspaceId)).toEqual([...firstReturned].sort());

    // The worker finished the fetches it had started and cached them, Redis or not.
    for (const placeId of ["r-old-1", "r-old-2", "r-modern"]) {
      await waitFor(`the ${placeId} audit row`, () => auditRow(t.database.db, placeId), 10_000);
    }
    await waitForApiRedisClients(t);

    const second = await search(t, ws, "mason", { not_mobile_friendly: true });
    expect(second.statusCode, second.body).toBe(200);
    const body = second.json() as SearchBody;
    expect(ids(body)).toEqual(["r-fast-old", "r-old-1", "r-old-2"]);
    expect(body.truncated).toBe(false);
    expect(body.credits_spent).toBe(3 - firstReturned.length);
    expect(await chargedPlaces(t.database.db, ws.workspaceId)).toEqual(["r-fast-old", "r-old-1", "r-old-2"]);
    expect(await balanceOf(t.database.db, ws.workspaceId)).toBe(7);
    for (const path of ["/r-old-1", "/r-old-2", "/r-modern"]) expect(sites.hits(path)).toBe(1);

    // The worker survived the restart and serves jobs queued on the new Redis.
    sites.set("/r-after", { html: OLD_HOMEPAGE });
    places.setPlaces("tiler in Springfield", [place("r-after", sites.url("/r-after"))]);
    const after = await search(t, ws, "tiler", { not_mobile_friendly: true });
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json()).toMatchObject({ truncated: false, credits_spent: 1 });
    expect(ids(after.json())).toEqual(["r-after"]);
    expect(worker.exit).toBeNull();
    expect(await balanceOf(t.database.db, ws.workspaceId)).toBe(6);
  });

  it("runs the check in the API process when Redis is down at the moment the checks are enqueued", async () => {
    sites.set("/q-old", { html: OLD_HOMEPAGE });
    const url = sites.url("/q-old");
    places.setPlaces("glazier in Springfield", [place("q-old", url)]);
    const ws = await createWorkspace(t.app);
    const asked = places.requests.length;
    // The places provider answers slowly: Redis goes away between the rate limit and the enqueue.
    places.setDelay(1_500);
    try {
      const started = Date.now();
      const pending = search(t, ws, "glazier", { not_mobile_friendly: true });
      await waitFor("the places request", () => places.requests.length > asked, 5_000);
      await redis.stop();
      const first = await pending;
      expect(Date.now() - started).toBeLessThan(budgetMs + 1_500);
      await redis.start();
      // No job could be queued: the API node audited the site itself, and the answer is complete.
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json()).toMatchObject({ truncated: false, credits_spent: 1 });
      expect(ids(first.json())).toEqual(["q-old"]);
      expect(sites.hits("/q-old")).toBe(1);
      expect(
        worker
          .linesWith("audit finished")
          .filter((line) => line.json?.job_id === auditJobId({ placeId: "q-old", url })),
      ).toHaveLength(0);
    } finally {
      places.setDelay(0);
    }

    // Once Redis is back, the audit it cached serves the next search (nothing charged twice).
    await waitForApiRedisClients(t);
    const second = await search(t, ws, "glazier", { not_mobile_friendly: true });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ truncated: false, credits_spent: 0 });
    expect(ids(second.json())).toEqual(["q-old"]);
    expect(sites.hits("/q-old")).toBe(1);
    expect(await balanceOf(t.database.db, ws.workspaceId)).toBe(9);
  });
});
