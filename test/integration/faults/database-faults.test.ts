/**
 * Database faults with real processes: two API nodes and an audit worker against a PostgreSQL
 * server this file owns (its own cluster on a free port), while a burst of searches, credit
 * purchases and drafts runs. Each fault ends with the money invariants checked in SQL.
 *
 * What each test prints (console) is what the closing notes quote: what clients saw during the
 * fault and how long recovery took.
 */

import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, OLD_HOMEPAGE, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { moneyInvariantViolations } from "../../support/money-invariants.ts";
import { createOwnedPostgres, freePort, type OwnedPostgres } from "../../support/owned-postgres.ts";
import { type JsonAnswer, requestJson } from "../../support/request-json.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";
import { startAuditWorker, stopAllWorkers, type WorkerProcess } from "../../support/worker-process.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const ADMIN_TOKEN = "fault-admin-token-0123456789";
const STATEMENT_TIMEOUT_MS = 3_000;
const CONNECT_TIMEOUT_MS = 2_000;
const BUDGET_MS = 3_000;
/** However the database misbehaves, no request may take longer than this (the test's own timeout). */
const REQUEST_LIMIT_MS = 20_000;

let pg: OwnedPostgres;
let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
const processes: ServerProcess[] = [];

test.beforeAll(async ({ googlePlaces }) => {
  pg = await createOwnedPostgres();
  await pg.start();
  places = googlePlaces;
  sites = await startFakeSites();
}, 60_000);

afterEach(async () => {
  await Promise.all(processes.splice(0).map((server) => server.stop(5_000)));
  await stopAllWorkers();
});

afterAll(async () => {
  await sites?.close();
  await pg?.destroy();
});

function unique(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString("hex")}`;
}

function nodeEnv(databaseUrl: string, queuePrefix: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    ADMIN_TOKEN,
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    SEARCH_CHECK_BUDGET_MS: String(BUDGET_MS),
    DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    RATE_LIMIT_READ_PER_MIN: "100000",
    RATE_LIMIT_SEARCH_PER_MIN: "100000",
    STARTUP_WAIT_MS: "30000",
  };
}

async function startNode(env: Record<string, string>, readyTimeoutMs = 60_000): Promise<ServerProcess> {
  const server = await startServerProcess(env, { readyTimeoutMs });
  processes.push(server);
  return server;
}

/** One request; a refused connection or a hang is a failure of the test, never an answer. */
const call = (
  baseUrl: string,
  method: "GET" | "POST",
  url: string,
  options: { key?: string; admin?: boolean; body?: unknown } = {},
): Promise<JsonAnswer> =>
  requestJson(`${baseUrl}${url}`, method, {
    token: options.admin ? ADMIN_TOKEN : options.key,
    body: options.body,
    timeoutMs: REQUEST_LIMIT_MS,
  });

interface Workspace {
  id: string;
  key: string;
  /** A lead without a website: a draft needs no audit. */
  draftLead: string;
}

/** A workspace with a key, some bought credits and one lead to draft, made through the admin API. */
async function createWorkspace(baseUrl: string, tag: string): Promise<Workspace> {
  const workspace = await call(baseUrl, "POST", "/admin/workspaces", { admin: true, body: { name: tag } });
  expect(workspace.status, JSON.stringify(workspace.body)).toBe(201);
  const id = (workspace.body as { id: string }).id;
  const member = await call(baseUrl, "POST", `/admin/workspaces/${id}/members`, {
    admin: true,
    body: { email: `${tag}@agency.test` },
  });
  const key = await call(baseUrl, "POST", `/admin/workspaces/${id}/api-keys`, {
    admin: true,
    body: { name: "server", created_by: (member.body as { id: string }).id },
  });
  expect(key.status).toBe(201);
  const plaintext = (key.body as { key: string }).key;
  places.setPlaces(`plumber in ${tag}`, [googlePlace(`${tag}-nosite`, null)]);
  const search = await call(baseUrl, "POST", "/v1/searches", {
    key: plaintext,
    body: { queries: [{ location: tag, category: "plumber" }], max_results: 1 },
  });
  expect(search.status, JSON.stringify(search.body)).toBe(200);
  const draftLead = (search.body as { results: { id: string }[] }).results[0]?.id ?? "";
  const bought = await call(baseUrl, "POST", `/admin/workspaces/${id}/credit-purchases`, {
    admin: true,
    body: { credits: 1000 },
  });
  expect(bought.status).toBe(201);
  return { id, key: plaintext, draftLead };
}

/** Places for burst searches: a new set per call, half without a website, half with an old one. */
let placeSets = 0;
function newPlacesQuery(tag: string, live: boolean): { location: string; category: string } {
  placeSets += 1;
  const location = `${tag}-set${placeSets}`;
  const results = Array.from({ length: 4 }, (_, index) => {
    const id = `${location}-p${index}`;
    if (!live && index % 2 === 0) return googlePlace(id, null);
    sites.set(`/${id}`, { html: OLD_HOMEPAGE, delayMs: 200 });
    return googlePlace(id, sites.url(`/${id}`));
  });
  places.setPlaces(`plumber in ${location}`, results);
  return { location, category: "plumber" };
}

interface BurstReport {
  statuses: Map<number, number>;
  slowestMs: number;
  requests: number;
}

/** Searches, purchases and drafts, `concurrency` at a time against the nodes in turn, until `stop()`. */
function startBurst(nodes: ServerProcess[], workspaces: Workspace[], tag: string, concurrency = 6) {
  const report: BurstReport = { statuses: new Map(), slowestMs: 0, requests: 0 };
  let running = true;
  let turn = 0;
  const one = async (): Promise<void> => {
    turn += 1;
    const node = nodes[turn % nodes.length] as ServerProcess;
    const workspace = workspaces[turn % workspaces.length] as Workspace;
    let answer: JsonAnswer;
    switch (turn % 4) {
      case 0:
        answer = await call(node.baseUrl, "POST", `/admin/workspaces/${workspace.id}/credit-purchases`, {
          admin: true,
          body: { credits: 3 },
        });
        break;
      case 1:
        answer = await call(node.baseUrl, "POST", `/v1/leads/${workspace.draftLead}/outreach-draft`, {
          key: workspace.key,
        });
        break;
      case 2:
        answer = await call(node.baseUrl, "POST", "/v1/searches", {
          key: workspace.key,
          body: {
            queries: [newPlacesQuery(tag, true)],
            filters: { outdated_website: true },
            max_results: 4,
          },
        });
        break;
      default:
        answer = await call(node.baseUrl, "POST", "/v1/searches", {
          key: workspace.key,
          body: { queries: [newPlacesQuery(tag, false)], max_results: 4 },
        });
    }
    report.requests += 1;
    report.statuses.set(answer.status, (report.statuses.get(answer.status) ?? 0) + 1);
    report.slowestMs = Math.max(report.slowestMs, answer.ms);
    // Every answer is one the spec allows, in the error object when it is an error.
    expect([200, 201, 500], JSON.stringify(answer.body)).toContain(answer.status);
    if (answer.status >= 400) {
      expect(answer.body).toEqual({ error: { code: "internal_error", message: expect.any(String) } });
    }
  };
  const loops = Array.from({ length: concurrency }, async () => {
    while (running) await one();
  });
  return {
    report,
    async stop(): Promise<BurstReport> {
      running = false;
      await Promise.all(loops);
      return report;
    },
  };
}

/** Polls until `check` passes; returns how long it took. */
async function timeUntil(check: () => Promise<boolean>, limitMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (await check().catch(() => false)) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within ${limitMs} ms`);
}

/** balance = 10 + purchases - charges - drafts; no place charged twice; every charged place a lead. */
async function expectMoneyInvariants(server: OwnedPostgres, database: string): Promise<void> {
  const [workspaces] = await server.query<{ n: string }>(database, "select count(*) as n from workspaces");
  expect(Number(workspaces?.n)).toBeGreaterThan(0);
  expect(await moneyInvariantViolations((text) => server.query(database, text))).toEqual({
    balances: [],
    doubleCharges: [],
    chargedWithoutLead: [],
  });
}

async function expectServing(nodes: ServerProcess[], workspace: Workspace, tag: string): Promise<void> {
  for (const node of nodes) {
    expect(node.pid).toBeGreaterThan(0);
    const credits = await call(node.baseUrl, "GET", "/v1/credits", { key: workspace.key });
    expect(credits.status, JSON.stringify(credits.body)).toBe(200);
    const search = await call(node.baseUrl, "POST", "/v1/searches", {
      key: workspace.key,
      body: { queries: [newPlacesQuery(tag, false)], max_results: 4 },
    });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    const draft = await call(node.baseUrl, "POST", `/v1/leads/${workspace.draftLead}/outreach-draft`, {
      key: workspace.key,
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  }
}

/** Two API nodes and a worker on a fresh database of the owned server, three workspaces. */
async function startCluster(tag: string) {
  const database = unique(tag);
  const url = await pg.createDatabase(database);
  const env = nodeEnv(url, unique("faults"));
  const [a, b] = await Promise.all([startNode(env), startNode(env)]);
  const worker: WorkerProcess = await startAuditWorker(env, { name: `${tag}-worker` });
  const nodes = [a as ServerProcess, b as ServerProcess];
  const workspaces = [];
  for (let i = 0; i < 3; i++) workspaces.push(await createWorkspace(nodes[0]!.baseUrl, `${tag}${i}`));
  return { database, nodes, worker, workspaces };
}

function summary(report: BurstReport): string {
  return `${report.requests} requests, statuses ${JSON.stringify(Object.fromEntries(report.statuses))}, slowest ${report.slowestMs} ms`;
}

describe("PostgreSQL faults under load (two API nodes, one worker)", () => {
  it("(a) pg_terminate_backend on every backend mid-burst: every process lives, the next requests succeed", {
    timeout: 180_000,
  }, async () => {
    const { database, nodes, worker, workspaces } = await startCluster("term");
    const burst = startBurst(nodes, workspaces, "term");
    let terminated = 0;
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      terminated += await pg.terminateBackends(database);
    }
    const report = await burst.stop();
    console.log(`(a) terminated ${terminated} backends in 5 rounds during ${summary(report)}`);
    expect(terminated).toBeGreaterThan(0);
    expect(report.statuses.get(200) ?? 0).toBeGreaterThan(0);

    await expectServing(nodes, workspaces[0] as Workspace, "term-after");
    expect(worker.exit).toBeNull();
    for (const node of nodes)
      expect(await Promise.race([node.exited, Promise.resolve("running")])).toBe("running");
    await expectMoneyInvariants(pg, database);
  });

  it("(b) PostgreSQL crashes (stop -m immediate) mid-burst and comes back: the processes recover by themselves", {
    timeout: 180_000,
  }, async () => {
    const { database, nodes, worker, workspaces } = await startCluster("crash");
    const burst = startBurst(nodes, workspaces, "crash");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await pg.stop("immediate");
    const down = Date.now();
    // While it is down: answers, never a hang or a refused connection; /readyz says what is down.
    const during = await call(nodes[0]!.baseUrl, "GET", "/v1/credits", { key: workspaces[0]!.key });
    expect(during.status).toBe(500);
    expect(during.body).toEqual({ error: { code: "internal_error", message: expect.any(String) } });
    const ready = await call(nodes[1]!.baseUrl, "GET", "/readyz");
    expect(ready.status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await pg.start();
    const restarted = Date.now();
    const recoveries = await Promise.all(
      nodes.map((node) =>
        timeUntil(
          async () =>
            (await call(node.baseUrl, "GET", "/v1/credits", { key: workspaces[1]!.key })).status === 200,
          30_000,
          `node ${node.baseUrl} answering 200`,
        ),
      ),
    );
    const report = await burst.stop();
    console.log(
      `(b) down ${restarted - down} ms; during: credits ${during.status} in ${during.ms} ms, /readyz ${ready.status}; nodes answered 200 again ${recoveries.join(" and ")} ms after PostgreSQL was back; burst: ${summary(report)}`,
    );
    await expectServing(nodes, workspaces[1] as Workspace, "crash-after");
    expect(worker.exit).toBeNull();
    // The worker saves audits again: a live-check search is answered from a fresh audit.
    const live = await call(nodes[0]!.baseUrl, "POST", "/v1/searches", {
      key: workspaces[2]!.key,
      body: {
        queries: [newPlacesQuery("crash-live", true)],
        filters: { outdated_website: true },
        max_results: 4,
      },
    });
    expect(live.status).toBe(200);
    expect((live.body as { results: unknown[] }).results).toHaveLength(4);
    await expectMoneyInvariants(pg, database);
  });

  it("(c) PostgreSQL frozen (SIGSTOP) for longer than the budget: every answer within its timeout", {
    timeout: 180_000,
  }, async () => {
    const { database, nodes, workspaces } = await startCluster("freeze");
    const workspace = workspaces[0] as Workspace;
    // A live-check search whose sites answer after a second: it is checking when the database freezes.
    const query = newPlacesQuery("freeze-live", true);
    for (let i = 0; i < 4; i++) sites.set(`/${query.location}-p${i}`, { html: OLD_HOMEPAGE, delayMs: 1_000 });
    const searching = call(nodes[0]!.baseUrl, "POST", "/v1/searches", {
      key: workspace.key,
      body: { queries: [query], filters: { outdated_website: true }, max_results: 4 },
    });
    // A search without live checks whose provider answers after the freeze: its save meets a
    // frozen database and must still answer by its deadline.
    places.setDelay(800);
    const saving = call(nodes[1]!.baseUrl, "POST", "/v1/searches", {
      key: workspace.key,
      body: { queries: [newPlacesQuery("freeze-save", false)], max_results: 4 },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await pg.freeze();
    const frozenAt = Date.now();
    const reads = await Promise.all([
      call(nodes[0]!.baseUrl, "GET", "/v1/credits", { key: workspace.key }),
      call(nodes[1]!.baseUrl, "GET", "/v1/leads", { key: workspace.key }),
      call(nodes[1]!.baseUrl, "POST", `/v1/leads/${workspace.draftLead}/outreach-draft`, {
        key: workspace.key,
      }),
      call(nodes[0]!.baseUrl, "POST", `/admin/workspaces/${workspace.id}/credit-purchases`, {
        admin: true,
        body: { credits: 5 },
      }),
    ]);
    const search = await searching;
    const save = await saving;
    places.setDelay(0);
    const frozenFor = Date.now() - frozenAt;
    // Frozen for longer than the budget, then thawed.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, BUDGET_MS + 2_000 - frozenFor)));
    await pg.thaw();
    console.log(
      `(c) frozen ${Date.now() - frozenAt} ms; live-check search: ${search.status} in ${search.ms} ms (budget ${BUDGET_MS}); search saving after the freeze: ${save.status} in ${save.ms} ms; other requests: ${reads.map((r) => `${r.status} in ${r.ms} ms`).join(", ")}`,
    );
    expect([200, 500]).toContain(search.status);
    expect(search.ms).toBeLessThanOrEqual(BUDGET_MS + 2_000);
    expect(save.status).toBe(500);
    expect(save.ms).toBeLessThanOrEqual(BUDGET_MS + 2_000);
    for (const read of reads) {
      expect(read.status).toBe(500);
      // A request waits at most for a connection, then one statement.
      expect(read.ms).toBeLessThanOrEqual(STATEMENT_TIMEOUT_MS + CONNECT_TIMEOUT_MS + 500);
    }
    const recovered = await timeUntil(
      async () =>
        (await call(nodes[1]!.baseUrl, "GET", "/v1/credits", { key: workspace.key })).status === 200,
      20_000,
      "a 200 after the thaw",
    );
    console.log(`(c) first 200 ${recovered} ms after the thaw`);
    await expectServing(nodes, workspace, "freeze-after");
    await expectMoneyInvariants(pg, database);
  });

  it("(d) nodes started while PostgreSQL is down wait for it, log each attempt, and come up when it does", {
    timeout: 120_000,
  }, async () => {
    const late = await createOwnedPostgres();
    try {
      // The cluster exists but is not running: the nodes find nothing on its port.
      const url = late.url("postgres");
      const env = nodeEnv(url, unique("late"));
      const port = await freePort();
      const starting = [startNode({ ...env, PORT: String(port) }), startNode(env)];
      // Meanwhile the port answers: alive, not ready, saying what it waits for.
      const probe = async (path: string) => {
        try {
          return await call(`http://127.0.0.1:${port}`, "GET", path);
        } catch {
          return null;
        }
      };
      // A failed start fails the test at the await below, not as an unhandled rejection meanwhile.
      for (const node of starting) node.catch(() => {});
      await timeUntil(
        async () => (await probe("/healthz"))?.status === 200,
        30_000,
        "/healthz while starting",
      );
      await timeUntil(
        async () => JSON.stringify((await probe("/readyz"))?.body).includes("PostgreSQL"),
        10_000,
        "/readyz naming PostgreSQL",
      );
      const waiting = await probe("/readyz");
      expect(waiting?.status).toBe(503);
      expect(waiting?.body).toEqual({
        error: {
          code: "service_unavailable",
          message: `Not ready: starting, waiting for PostgreSQL at 127.0.0.1:${late.port}/postgres.`,
        },
      });
      expect((await probe("/v1/credits"))?.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      await late.start();
      const startedAt = Date.now();
      const nodes = await Promise.all(starting);
      console.log(`(d) both nodes listening ${Date.now() - startedAt} ms after PostgreSQL started`);
      for (const node of nodes) {
        const waits = node.logs.filter(
          (line) => line.json?.msg === `waiting for PostgreSQL at 127.0.0.1:${late.port}/postgres`,
        );
        expect(waits.length, node.output()).toBeGreaterThan(1);
        expect((await call(node.baseUrl, "GET", "/readyz")).status).toBe(200);
      }
      // Both migrated at once (Kysely's migrator holds an advisory lock): each migration ran once.
      const migrations = await late.query<{ name: string; n: string }>(
        "postgres",
        "select name, count(*) as n from kysely_migration group by name",
      );
      expect(migrations.length).toBeGreaterThan(0);
      for (const row of migrations) expect(Number(row.n)).toBe(1);
      const workspace = await createWorkspace(nodes[1]!.baseUrl, "late0");
      await expectServing(nodes, workspace, "late-after");
      await expectMoneyInvariants(late, "postgres");
    } finally {
      await Promise.all(processes.splice(0).map((server) => server.stop(5_000)));
      await late.destroy();
    }
  });

  it("gives up after STARTUP_WAIT_MS with a one-line reason and exit code 1", {
    timeout: 60_000,
  }, async () => {
    const never = await createOwnedPostgres();
    try {
      const env = { ...nodeEnv(never.url("postgres"), unique("never")), STARTUP_WAIT_MS: "2000" };
      await expect(startServerProcess(env, { readyTimeoutMs: 30_000 })).rejects.toThrow(
        /exited \(code 1\) before listening[\s\S]*cannot start: PostgreSQL at 127\.0\.0\.1:\d+\/postgres did not answer within 2 s/,
      );
    } finally {
      await never.destroy();
    }
  });
});

describe("one process per embedded DATA_DIR", () => {
  it("(e) a second process on the same DATA_DIR refuses to start; the first keeps its data; a stale lock is taken over", {
    timeout: 180_000,
  }, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "lead-api-datadir-"));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN, PLACES_FIXTURE_FILE: "fixtures/places.example.json" };
    try {
      const first = await startNode(env, 90_000);
      const workspace = await call(first.baseUrl, "POST", "/admin/workspaces", {
        admin: true,
        body: { name: "one" },
      });
      const id = (workspace.body as { id: string }).id;
      const bought = await call(first.baseUrl, "POST", `/admin/workspaces/${id}/credit-purchases`, {
        admin: true,
        body: { credits: 7 },
      });
      expect(bought.status).toBe(201);

      await expect(startServerProcess(env, { readyTimeoutMs: 90_000 })).rejects.toThrow(
        new RegExp(`cannot start: DATA_DIR ${dataDir} is in use by process ${first.pid}`),
      );
      // The first is untouched and still serves what it stored.
      const after = await call(first.baseUrl, "GET", `/admin/workspaces/${id}/api-keys`, { admin: true });
      expect(after.status).toBe(200);
      expect((await first.stop()).code).toBe(0);

      // After an orderly stop the data is all there for the next process.
      const second = await startNode(env, 90_000);
      const purchase = await call(second.baseUrl, "POST", `/admin/workspaces/${id}/credit-purchases`, {
        admin: true,
        body: { credits: 1 },
      });
      expect(purchase.body).toMatchObject({ balance: 18 });
      // Killed: its lock file stays behind, and the next start takes it over.
      second.kill("SIGKILL");
      await second.exited;
      const third = await startNode(env, 90_000);
      const again = await call(third.baseUrl, "POST", `/admin/workspaces/${id}/credit-purchases`, {
        admin: true,
        body: { credits: 1 },
      });
      expect(again.body).toMatchObject({ balance: 19 });
    } finally {
      await Promise.all(processes.splice(0).map((server) => server.stop(10_000)));
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
