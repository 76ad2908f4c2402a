/**
 * A 10-second Redis outage under load, with real processes: two API nodes and one audit worker on a
 * Redis this file owns (stopped with SIGKILL and started again on the same port; the machine's
 * Redis is never touched) and a clone of the test template database. A burst of reads (leads,
 * credits), drafts, plain searches and live-filter searches runs before, during and after it.
 *
 * - No 5xx and no failed connection at any time: Redis holds no money and no lead.
 * - Each node logs once that it counts rate limits in memory, and once that Redis answers again.
 * - After Redis returns, each node's first live search whose check ran through the queue (the
 *   worker logs "audit finished" for its place) goes through Redis again. How soon is printed (the
 *   requirement is 1.5 s), not asserted: a wall-clock bound flakes on a busy 2-core machine, and what
 *   sets it, the reconnection delay, is pinned by test/unit/ops/redis-reconnect.test.ts.
 * - The ledger's invariants hold.
 */

import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { auditJobId } from "../../../shared/audit/queue.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, OLD_HOMEPAGE, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { moneyInvariantViolations } from "../../support/money-invariants.ts";
import { createOwnedRedis, type OwnedRedis } from "../../support/owned-redis.ts";
import { createDatabaseFromTemplate } from "../../support/postgres.ts";
import { type JsonAnswer, requestJson } from "../../support/request-json.ts";
import { type ServerProcess, startServerProcess } from "../../support/server-process.ts";
import { startAuditWorker, stopAllWorkers, type WorkerProcess } from "../../support/worker-process.ts";

const ADMIN_TOKEN = "redis-outage-admin-token-0123456789";
const OUTAGE_MS = 10_000;
const BUDGET_MS = 4_000;
/** The issue's bound: first request served through Redis again, after it answers. */
const REQUEST_LIMIT_MS = 20_000;
const READY_MS = 90_000;

const FALLBACK_STARTED =
  "rate limits: Redis unreachable; counting in this node's memory (limits per node) until it answers";
const FALLBACK_ENDED = "rate limits: Redis answers again; counting in Redis, shared by every node";

const unique = (label: string) => `${label}${randomBytes(5).toString("hex")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
let redis: OwnedRedis;
let database: { url: string; drop(): Promise<void> };
let nodes: ServerProcess[] = [];
let worker: WorkerProcess | undefined;

const call = (
  baseUrl: string,
  method: "GET" | "POST",
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<JsonAnswer> =>
  requestJson(`${baseUrl}${url}`, method, { ...options, timeoutMs: REQUEST_LIMIT_MS });

interface Workspace {
  id: string;
  key: string;
  /** A lead without a website: its draft needs no audit. */
  draftLead: string;
}

async function createWorkspace(baseUrl: string, tag: string): Promise<Workspace> {
  const admin = { token: ADMIN_TOKEN };
  const workspace = await call(baseUrl, "POST", "/admin/workspaces", { ...admin, body: { name: tag } });
  expect(workspace.status, JSON.stringify(workspace.body)).toBe(201);
  const id = (workspace.body as { id: string }).id;
  const member = await call(baseUrl, "POST", `/admin/workspaces/${id}/members`, {
    ...admin,
    body: { email: `${tag}@agency.test` },
  });
  const key = await call(baseUrl, "POST", `/admin/workspaces/${id}/api-keys`, {
    ...admin,
    body: { name: "server", created_by: (member.body as { id: string }).id },
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  // The most one purchase buys: a quiet machine answers about 2,000 requests in the test, each
  // search charging up to 4 new places, and a 402 would read as a failure of the outage.
  const bought = await call(baseUrl, "POST", `/admin/workspaces/${id}/credit-purchases`, {
    ...admin,
    body: { credits: 100_000 },
  });
  expect(bought.status).toBe(201);
  const token = (key.body as { key: string }).key;
  places.setPlaces(`plumber in ${tag}`, [googlePlace(`${tag}-nosite`, null)]);
  const search = await call(baseUrl, "POST", "/v1/searches", {
    token,
    body: { queries: [{ location: tag, category: "plumber" }], max_results: 1 },
  });
  expect(search.status, JSON.stringify(search.body)).toBe(200);
  const draftLead = (search.body as { results: { id: string }[] }).results[0]?.id ?? "";
  return { id, key: token, draftLead };
}

/** A query of four new places (new sites: every live check is a cache miss). */
let placeSets = 0;
function newPlaces(tag: string, live: boolean, siteDelayMs = 150): { location: string; category: string } {
  placeSets += 1;
  const location = `${tag}-set${placeSets}`;
  const results = Array.from({ length: 4 }, (_, index) => {
    const id = `${location}-p${index}`;
    if (!live && index % 2 === 0) return googlePlace(id, null);
    sites.set(`/${id}`, { html: OLD_HOMEPAGE, delayMs: siteDelayMs });
    return googlePlace(id, sites.url(`/${id}`));
  });
  places.setPlaces(`plumber in ${location}`, results);
  return { location, category: "plumber" };
}

type Phase = "before" | "during" | "after";
interface Outcome {
  phase: Phase;
  kind: string;
  status: number | "network_error";
  ms: number;
  truncated?: boolean;
  detail?: string;
}

/** Reads, credits, drafts, plain and live searches, `concurrency` at a time over both nodes. */
function startBurst(workspaces: Workspace[], phaseOf: () => Phase, concurrency = 6) {
  const outcomes: Outcome[] = [];
  let running = true;
  let turn = 0;
  const one = async () => {
    turn += 1;
    const node = nodes[turn % nodes.length] as ServerProcess;
    const workspace = workspaces[turn % workspaces.length] as Workspace;
    const phase = phaseOf();
    const kinds = ["leads", "credits", "draft", "plain_search", "live_search"] as const;
    const kind = kinds[turn % kinds.length] as (typeof kinds)[number];
    const token = workspace.key;
    try {
      let answer: JsonAnswer;
      if (kind === "leads") answer = await call(node.baseUrl, "GET", "/v1/leads?limit=5", { token });
      else if (kind === "credits") answer = await call(node.baseUrl, "GET", "/v1/credits", { token });
      else if (kind === "draft") {
        answer = await call(node.baseUrl, "POST", `/v1/leads/${workspace.draftLead}/outreach-draft`, {
          token,
        });
      } else {
        const live = kind === "live_search";
        answer = await call(node.baseUrl, "POST", "/v1/searches", {
          token,
          body: {
            queries: [newPlaces("burst", live)],
            ...(live ? { filters: { not_mobile_friendly: true } } : {}),
            max_results: 4,
          },
        });
      }
      const truncated = (answer.body as { truncated?: boolean }).truncated;
      outcomes.push({
        phase,
        kind,
        status: answer.status,
        ms: answer.ms,
        ...(truncated === undefined ? {} : { truncated }),
        ...(answer.status >= 400 ? { detail: JSON.stringify(answer.body) } : {}),
      });
    } catch (error) {
      outcomes.push({ phase, kind, status: "network_error", ms: 0, detail: String(error) });
    }
  };
  const loops = Array.from({ length: concurrency }, async () => {
    while (running) await one();
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** One live search of one new place against `node`: did its check run on the worker (through Redis)? */
async function probe(node: ServerProcess, workspace: Workspace, label: string) {
  const location = unique(`probe-${label}-`);
  const placeId = `${location}-site`;
  const url = sites.url(`/${placeId}`);
  sites.set(`/${placeId}`, { html: OLD_HOMEPAGE });
  places.setPlaces(`plumber in ${location}`, [googlePlace(placeId, url)]);
  const answer = await call(node.baseUrl, "POST", "/v1/searches", {
    token: workspace.key,
    body: {
      queries: [{ location, category: "plumber" }],
      filters: { not_mobile_friendly: true },
      max_results: 1,
    },
  });
  // On a fault, the node's own account of it (its error lines) beside the answer.
  const errors = () =>
    node.logs
      .filter((line) => Number(line.json?.level) >= 50)
      .slice(-3)
      .map((line) => JSON.stringify(line.json))
      .join("\n");
  expect(answer.status, `${JSON.stringify(answer.body)}\n${answer.status === 200 ? "" : errors()}`).toBe(200);
  const matched = (answer.body as { results: { place_id: string }[] }).results.some(
    (result) => result.place_id === placeId,
  );
  const jobId = auditJobId({ placeId, url });
  // The worker logs before it completes the job, but its stdout reaches this process on another
  // channel than the answer: give the line a moment to arrive.
  const byWorker =
    matched &&
    ((await worker
      ?.waitForLog((line) => line.msg === "audit finished" && line.json?.job_id === jobId, 2_000)
      .then(
        () => true,
        () => false,
      )) ??
      false);
  return { at: answer.at, byWorker };
}

/**
 * A live search of a new place against `node` every 100 ms from now on, until one is answered with
 * its place matched by an audit the worker ran (a check that went through the queue: Redis serves
 * this node again). Returns the earliest moment such an answer came, and how many probes were sent.
 */
async function firstAnswerThroughRedis(node: ServerProcess, workspace: Workspace, label: string) {
  const probes: Promise<{ at: number; byWorker: boolean }>[] = [];
  let found: number | undefined;
  for (let sent = 0; found === undefined; sent += 1) {
    if (sent >= 100) {
      const settled = await Promise.allSettled(probes);
      const refused = settled.find((result) => result.status === "rejected");
      throw new Error(
        `${label}: no live search went through Redis in 100 probes${refused ? `; one answered: ${String(refused.reason)}` : ""}; the node wrote last:\n${node.output().slice(-3000)}`,
      );
    }
    const next = probe(node, workspace, label);
    next.then(
      (result) => {
        if (result.byWorker) found = Math.min(found ?? Number.POSITIVE_INFINITY, result.at);
      },
      () => {},
    );
    probes.push(next);
    await sleep(100);
  }
  const results = await Promise.all(probes);
  const through = results.filter((result) => result.byWorker).map((result) => result.at);
  return { at: Math.min(...through), attempts: probes.length };
}

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  sites = await startFakeSites();
  redis = await createOwnedRedis();
  await redis.start();
  database = await createDatabaseFromTemplate();
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: unique("redis_outage_"),
    ADMIN_TOKEN,
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    AUDIT_THREADS: "1",
    SEARCH_CHECK_BUDGET_MS: String(BUDGET_MS),
    RATE_LIMIT_READ_PER_MIN: "100000",
    RATE_LIMIT_SEARCH_PER_MIN: "100000",
    COST_LIVE_CHECKS_PER_HOUR: "1000000",
    COST_PROVIDER_PAGES_PER_HOUR: "1000000",
    COST_DRAFT_ATTEMPTS_PER_HOUR: "1000000",
  };
  nodes = await Promise.all([
    startServerProcess(env, { readyTimeoutMs: READY_MS }),
    startServerProcess(env, { readyTimeoutMs: READY_MS }),
  ]);
  worker = await startAuditWorker(env, { name: "redis-outage-worker", readyTimeoutMs: READY_MS });
}, 4 * READY_MS);

afterAll(async () => {
  await worker?.stop(5_000);
  await stopAllWorkers(2_000);
  await Promise.all(nodes.map((node) => node.stop(5_000)));
  await redis?.stop();
  await database?.drop();
  await sites?.close();
});

describe("Redis stopped for 10 s under load (two API nodes, one worker)", () => {
  it("answers every request without a 5xx, goes back to Redis by itself on both nodes, and the ledger holds", {
    timeout: 240_000,
  }, async () => {
    const workspaces: Workspace[] = [];
    for (let i = 0; i < 3; i++) workspaces.push(await createWorkspace(nodes[0]!.baseUrl, unique("ws")));
    let phase: Phase = "before";
    const burst = startBurst(workspaces, () => phase);

    await sleep(2_000);
    await redis.stop();
    const stoppedAt = Date.now();
    phase = "during";
    await sleep(OUTAGE_MS);
    await redis.start();
    const backAt = Date.now();
    phase = "after";
    const recovered = await Promise.all(
      nodes.map((node, index) => firstAnswerThroughRedis(node, workspaces[index]!, `node${index + 1}`)),
    );
    await sleep(2_000);
    const outcomes = await burst.stop();

    // What happened, for the closing note.
    const recoveryMs = recovered.map((result) => result.at - backAt);
    const fallbackEnds = nodes.map((node) => {
      const line = node.logs.find((entry) => entry.json?.msg === FALLBACK_ENDED);
      return line ? Date.parse(String(line.json?.time)) - backAt : Number.NaN;
    });
    const byPhase = (which: Phase) => outcomes.filter((outcome) => outcome.phase === which);
    const describe = (list: Outcome[]) => {
      const counts = new Map<string, number>();
      for (const outcome of list) {
        const key = `${outcome.kind} ${outcome.status}${outcome.truncated ? " truncated" : ""}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return JSON.stringify(Object.fromEntries([...counts].sort()));
    };
    console.log(
      `Redis down ${Math.round((backAt - stoppedAt) / 100) / 10} s; ${outcomes.length} requests\n` +
        `  before: ${describe(byPhase("before"))}\n  during: ${describe(byPhase("during"))}\n  after:  ${describe(byPhase("after"))}\n` +
        `  first live search through Redis after it answered: ${recoveryMs.map((ms, i) => `node${i + 1} ${ms} ms (${recovered[i]?.attempts} attempts)`).join(", ")}\n` +
        `  rate limits back on Redis: ${fallbackEnds.map((ms, i) => `node${i + 1} ${ms} ms`).join(", ")}\n` +
        `  slowest answer during the outage: ${Math.max(0, ...byPhase("during").map((o) => o.ms))} ms`,
    );

    // Every request answered, none with a 5xx, in every phase.
    const failures = outcomes.filter(
      (outcome) => outcome.status === "network_error" || outcome.status >= 500,
    );
    expect(failures, JSON.stringify(failures.slice(0, 5))).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.status !== 200).map((outcome) => outcome.detail)).toEqual([]);
    // The outage was really under load: every kind of request ran while Redis was down.
    for (const kind of ["leads", "credits", "draft", "plain_search", "live_search"]) {
      expect(byPhase("during").filter((outcome) => outcome.kind === kind).length, kind).toBeGreaterThan(0);
    }
    // Live searches ran their checks in the API nodes meanwhile: some answered complete.
    expect(
      byPhase("during").some((outcome) => outcome.kind === "live_search" && outcome.truncated === false),
    ).toBe(true);

    // One line when each node started counting in memory, one when it went back to Redis.
    for (const node of nodes) {
      const started = node.logs.filter((line) => line.json?.msg === FALLBACK_STARTED);
      const ended = node.logs.filter((line) => line.json?.msg === FALLBACK_ENDED);
      expect(started, node.output().slice(-2000)).toHaveLength(1);
      expect(ended).toHaveLength(1);
      expect(Number(ended[0]?.json?.duration_ms)).toBeGreaterThan(OUTAGE_MS / 2);
    }

    // How soon is printed above, not asserted: wall-clock bounds flake on a busy machine. What bounds
    // it is the reconnection delay (REDIS_RECONNECT_MAX_MS), pinned in test/unit/ops/redis-reconnect.
    // Here: both nodes went back to Redis by themselves (firstAnswerThroughRedis gives up after 100
    // probes) and answered every request meanwhile.
    expect(recoveryMs.every((ms) => Number.isFinite(ms))).toBe(true);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const query = async <T extends Record<string, unknown>>(text: string) =>
        (await client.query<T>(text)).rows;
      expect(await moneyInvariantViolations(query)).toEqual({
        balances: [],
        doubleCharges: [],
        chargedWithoutLead: [],
      });
      const [{ drafts } = { drafts: 0 }] = await query<{ drafts: number }>(
        "select count(*)::int as drafts from drafts",
      );
      expect(drafts).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });
});
