/**
 * Prometheus metrics: GET /metrics of the API (and the worker's own /metrics) after real traffic,
 * each series with its labels and values; and the Grafana dashboard refers to no metric the code
 * does not export.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Queue } from "bullmq";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import {
  createQueueAuditor,
  readQueueCounts,
  SITE_AUDIT_JOB,
  SITE_AUDIT_QUEUE,
} from "../../../shared/audit/queue.ts";
import { createLogger } from "../../../shared/logger.ts";
import { createMetrics } from "../../../shared/metrics.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { createTestDatabase } from "../../support/database.ts";
import {
  type FakeGooglePlacesServer,
  googlePlace,
  syntheticPlaces,
} from "../../support/fake-google-places.ts";
import { type FakeOpenAiServer, startFakeOpenAi } from "../../support/fake-openai.ts";
import {
  type FakeSitesServer,
  MODERN_HOMEPAGE,
  OLD_HOMEPAGE,
  startFakeSites,
} from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { seedLeads } from "../../support/seed.ts";
import { startAuditWorker } from "../../support/worker-process.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const NO_LIMITS = { RATE_LIMIT_READ_PER_MIN: "1000", RATE_LIMIT_SEARCH_PER_MIN: "1000" };
const DASHBOARD = new URL("../../../docs/grafana/lead-api-dashboard.json", import.meta.url);
const unique = (label: string) => `${label}_${randomBytes(6).toString("hex")}`;

// ---------------------------------------------------------------------------------------------
// Prometheus text format, read back

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Scrape {
  text: string;
  samples: Sample[];
  /** Metric family -> its # TYPE. */
  types: Map<string, string>;
  /** The value of the sample with exactly these labels; undefined when there is none. */
  get(name: string, labels?: Record<string, string>): number | undefined;
}

function parseScrape(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] && type[2]) types.set(type[1], type[2]);
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(match, `unparsable line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const label of (match?.[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label[1] as string] = label[2] as string;
    }
    samples.push({ name: match?.[1] as string, labels, value: Number(match?.[3]) });
  }
  const sameLabels = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);
  return {
    text,
    samples,
    types,
    get: (name, labels = {}) =>
      samples.find((sample) => sample.name === name && sameLabels(sample.labels, labels))?.value,
  };
}

async function scrape(app: FastifyInstance): Promise<Scrape> {
  const response = await app.inject({ url: "/metrics" });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseScrape(response.body);
}

/** How much a series grew between two scrapes (a series absent before counts from 0). */
function delta(before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}): number {
  const end = after.get(name, labels);
  expect(end, `${name}${JSON.stringify(labels)} is exported`).toBeDefined();
  return (end ?? 0) - (before.get(name, labels) ?? 0);
}

// ---------------------------------------------------------------------------------------------
// fixtures

let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
let openai: FakeOpenAiServer;
/** Embedded mode as deployed: template drafter, in-process audits, Google Places over HTTP. */
let t: TestApp;

const placeAt = googlePlace;

const search = (app: FastifyInstance, auth: Record<string, string>, payload: object) =>
  app.inject({ method: "POST", url: "/v1/searches", headers: auth, payload });
const draft = (app: FastifyInstance, auth: Record<string, string>, leadId: string) =>
  app.inject({ method: "POST", url: `/v1/leads/${leadId}/outreach-draft`, headers: auth });

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  sites = await startFakeSites();
  openai = await startFakeOpenAi();
  t = await startTestApp({
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    ...NO_LIMITS,
  });
});
afterAll(async () => {
  await t?.close();
  await sites?.close();
  await openai?.close();
});

// ---------------------------------------------------------------------------------------------

describe("GET /metrics after a search and a draft", () => {
  it("has the credits, the outcomes, the route-labelled durations and the provider latency", async () => {
    places.setPlaces("plumber in Ottawa", syntheticPlaces(3, { prefix: "metrics-a" }));
    const ws = await createWorkspace(t.app);
    const before = await scrape(t.app);

    const found = await search(t.app, ws.auth, {
      queries: [{ location: "Ottawa", category: "plumber" }],
      max_results: 5,
    });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({ credits_spent: 3, truncated: false });
    // The first synthetic place has 3 reviews: a verified fact, so the template drafter can write.
    const leadId = found.json().results[0].id as string;
    const drafted = await draft(t.app, ws.auth, leadId);
    expect(drafted.statusCode, drafted.body).toBe(200);

    const after = await scrape(t.app);
    expect(delta(before, after, "leadapi_credits_spent_total", { operation: "search" })).toBe(3);
    expect(delta(before, after, "leadapi_credits_spent_total", { operation: "draft" })).toBe(1);
    expect(delta(before, after, "leadapi_searches_total", { outcome: "ok" })).toBe(1);
    for (const outcome of ["insufficient_credits", "error"]) {
      expect(delta(before, after, "leadapi_searches_total", { outcome })).toBe(0);
    }
    expect(delta(before, after, "leadapi_drafts_total", { outcome: "ok", generator: "template" })).toBe(1);
    expect(delta(before, after, "leadapi_drafts_total", { outcome: "ok", generator: "llm" })).toBe(0);

    // Durations by route pattern and status, never by raw URL.
    const searchRoute = { method: "POST", route: "/v1/searches", status_code: "200" };
    const draftRoute = { method: "POST", route: "/v1/leads/:id/outreach-draft", status_code: "200" };
    for (const labels of [searchRoute, draftRoute]) {
      expect(delta(before, after, "leadapi_http_request_duration_seconds_count", labels)).toBe(1);
      expect(delta(before, after, "leadapi_http_request_duration_seconds_sum", labels)).toBeGreaterThan(0);
      expect(
        delta(before, after, "leadapi_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" }),
      ).toBe(1);
    }
    expect(after.text).not.toContain(leadId);
    const routes = new Set(
      after.samples.filter((s) => s.name.startsWith("leadapi_http_request")).map((s) => s.labels.route),
    );
    for (const route of routes) expect(route).toMatch(/^(\/[A-Za-z0-9_:./-]*|unmatched)$/);

    // One page of places: one provider call, timed.
    expect(delta(before, after, "leadapi_places_request_duration_seconds_count", { outcome: "ok" })).toBe(1);
    expect(
      delta(before, after, "leadapi_places_request_duration_seconds_sum", { outcome: "ok" }),
    ).toBeGreaterThan(0);
    // The template drafter calls no LLM.
    expect(after.get("leadapi_llm_request_duration_seconds_count", { outcome: "ok" })).toBeUndefined();
    // Process metrics are there too, under the same prefix.
    expect(after.types.get("leadapi_process_cpu_seconds_total")).toBe("counter");
    expect(after.types.get("leadapi_nodejs_eventloop_lag_p99_seconds")).toBe("gauge");
  });

  it("labels an unmatched URL `unmatched`, whatever the URL", async () => {
    const before = await scrape(t.app);
    const path = `/v1/${randomUUID()}`;
    expect((await t.app.inject({ url: path })).statusCode).toBe(404);
    const after = await scrape(t.app);
    const labels = { method: "GET", route: "unmatched", status_code: "404" };
    expect(delta(before, after, "leadapi_http_request_duration_seconds_count", labels)).toBe(1);
    expect(after.text).not.toContain(path);
  });
});

describe("searches by outcome", () => {
  it("counts ok (truncated or not), insufficient_credits (402) and error (5xx); a 400 is not a search that ran", async () => {
    places.setPlaces("roofer in Ottawa", syntheticPlaces(5, { prefix: "metrics-b" }));
    places.setPlaces("painter in Ottawa", syntheticPlaces(12, { prefix: "metrics-c" }));
    const ws = await createWorkspace(t.app);
    const poor = await createWorkspace(t.app);
    const before = await scrape(t.app);

    const truncated = await search(t.app, ws.auth, {
      queries: [{ location: "Ottawa", category: "roofer" }],
      max_results: 2,
    });
    expect(truncated.json()).toMatchObject({ credits_spent: 2, truncated: true });
    // 12 new places for a balance of 10.
    const broke = await search(t.app, poor.auth, {
      queries: [{ location: "Ottawa", category: "painter" }],
      max_results: 12,
    });
    expect(broke.statusCode, broke.body).toBe(402);
    // The provider refuses (no retry on a 403): 500, nothing charged.
    places.failNext(1, 403);
    const failed = await search(t.app, ws.auth, {
      queries: [{ location: "Ottawa", category: "roofer" }],
      max_results: 2,
    });
    expect(failed.statusCode, failed.body).toBe(500);
    // A free-trial workspace may send at most 2 queries: the client's mistake, not a search.
    const rejected = await search(t.app, ws.auth, {
      queries: ["a", "b", "c"].map((location) => ({ location, category: "roofer" })),
      max_results: 2,
    });
    expect(rejected.statusCode).toBe(400);

    const after = await scrape(t.app);
    // Answered: ok, as its log line says; truncated, counted by reason.
    expect(delta(before, after, "leadapi_searches_total", { outcome: "ok" })).toBe(1);
    expect(delta(before, after, "leadapi_searches_truncated_total", { reason: "max_results_reached" })).toBe(
      1,
    );
    expect(delta(before, after, "leadapi_searches_total", { outcome: "insufficient_credits" })).toBe(1);
    expect(delta(before, after, "leadapi_searches_total", { outcome: "error" })).toBe(1);
    expect(delta(before, after, "leadapi_credits_spent_total", { operation: "search" })).toBe(2);
    expect(delta(before, after, "leadapi_places_request_duration_seconds_count", { outcome: "error" })).toBe(
      1,
    );
    for (const status of ["402", "500", "400"]) {
      const labels = { method: "POST", route: "/v1/searches", status_code: status };
      expect(delta(before, after, "leadapi_http_request_duration_seconds_count", labels)).toBe(1);
    }
  });
});

describe("drafts by outcome and generator", () => {
  it("counts insufficient_audit_data (422) and insufficient_credits (402); an unknown lead is not a draft", async () => {
    const ws = await createWorkspace(t.app);
    const [noFacts] = await seedLeads(t.database.db, ws.workspaceId, [
      { place_id: unique("metrics-nofacts"), user_rating_count: 50 },
    ]);
    const [fewReviews] = await seedLeads(t.database.db, ws.workspaceId, [
      { place_id: unique("metrics-few"), user_rating_count: 2 },
    ]);
    const before = await scrape(t.app);

    expect((await draft(t.app, ws.auth, noFacts as string)).statusCode).toBe(422);
    await t.database.db
      .updateTable("workspaces")
      .set({ balance: 0 })
      .where("id", "=", ws.workspaceId)
      .execute();
    expect((await draft(t.app, ws.auth, fewReviews as string)).statusCode).toBe(402);
    expect((await draft(t.app, ws.auth, randomUUID())).statusCode).toBe(404);

    const after = await scrape(t.app);
    const template = (outcome: string) => ({ outcome, generator: "template" });
    expect(delta(before, after, "leadapi_drafts_total", template("insufficient_audit_data"))).toBe(1);
    expect(delta(before, after, "leadapi_drafts_total", template("insufficient_credits"))).toBe(1);
    expect(delta(before, after, "leadapi_drafts_total", template("ok"))).toBe(0);
    expect(delta(before, after, "leadapi_drafts_total", template("error"))).toBe(0);
    expect(delta(before, after, "leadapi_credits_spent_total", { operation: "draft" })).toBe(0);
  });

  it("times the LLM calls by outcome and counts generation_failed under generator llm", async () => {
    const llm = await startTestApp({
      ...NO_LIMITS,
      OPENAI_API_KEY: "test-openai-key",
      OPENAI_MODEL: "fake-model",
      OPENAI_BASE_URL: openai.baseURL,
    });
    try {
      const ws = await createWorkspace(llm.app);
      const placeId = unique("metrics-llm");
      const [leadId] = await seedLeads(llm.database.db, ws.workspaceId, [
        { place_id: placeId, user_rating_count: 2 },
      ]);
      const before = await scrape(llm.app);
      openai.respondWith({
        kind: "json",
        value: {
          subject: `A quick note for Business ${placeId}`,
          body: "Hello,\nYour business has few reviews online.\nBest regards,\n[Your name]\n[Your company]",
          facts_used: ["low_review_count"],
        },
      });
      expect((await draft(llm.app, ws.auth, leadId as string)).statusCode).toBe(200);
      // A 400 to every output mode (JSON schema, JSON mode, plain text): 502, nothing charged.
      openai.respondWith({ kind: "status", status: 400 });
      expect((await draft(llm.app, ws.auth, leadId as string)).statusCode).toBe(502);

      const after = await scrape(llm.app);
      expect(delta(before, after, "leadapi_drafts_total", { outcome: "ok", generator: "llm" })).toBe(1);
      expect(
        delta(before, after, "leadapi_drafts_total", { outcome: "generation_failed", generator: "llm" }),
      ).toBe(1);
      expect(delta(before, after, "leadapi_llm_request_duration_seconds_count", { outcome: "ok" })).toBe(1);
      expect(delta(before, after, "leadapi_llm_request_duration_seconds_count", { outcome: "error" })).toBe(
        1,
      );
      expect(
        delta(before, after, "leadapi_llm_request_duration_seconds_sum", { outcome: "ok" }),
      ).toBeGreaterThan(0);
      expect(delta(before, after, "leadapi_credits_spent_total", { operation: "draft" })).toBe(1);
    } finally {
      openai.reset();
      await llm.close();
    }
  });
});

describe("the audit pipeline (embedded mode: in-process audits)", () => {
  it("counts audit jobs by outcome with durations, and live-filter cache hits and misses", async () => {
    sites.set("/e-old", { html: OLD_HOMEPAGE });
    sites.set("/e-modern", { html: MODERN_HOMEPAGE });
    places.setPlaces("glazier in Ottawa", [
      placeAt("metrics-e-old", sites.url("/e-old")),
      placeAt("metrics-e-modern", sites.url("/e-modern")),
      placeAt("metrics-e-missing", sites.url("/e-missing")),
      placeAt("metrics-e-none", null),
    ]);
    const ws = await createWorkspace(t.app);
    const payload = {
      queries: [{ location: "Ottawa", category: "glazier" }],
      filters: { not_mobile_friendly: true },
      max_results: 5,
    };
    const before = await scrape(t.app);
    const first = await search(t.app, ws.auth, payload);
    expect(first.json().results.map((r: { place_id: string }) => r.place_id)).toEqual(["metrics-e-old"]);
    const middle = await scrape(t.app);
    // Three sites to check, none cached: three misses, three audits (one site could not be read).
    expect(delta(before, middle, "leadapi_audit_cache_lookups_total", { result: "miss" })).toBe(3);
    expect(delta(before, middle, "leadapi_audit_cache_lookups_total", { result: "hit" })).toBe(0);
    expect(delta(before, middle, "leadapi_audit_jobs_total", { outcome: "ok" })).toBe(2);
    expect(delta(before, middle, "leadapi_audit_jobs_total", { outcome: "failed" })).toBe(1);
    expect(delta(before, middle, "leadapi_audit_jobs_total", { outcome: "error" })).toBe(0);
    expect(delta(before, middle, "leadapi_audit_job_duration_seconds_count", { outcome: "ok" })).toBe(2);
    expect(delta(before, middle, "leadapi_audit_job_duration_seconds_count", { outcome: "failed" })).toBe(1);
    expect(
      delta(before, middle, "leadapi_audit_job_duration_seconds_bucket", { outcome: "ok", le: "+Inf" }),
    ).toBe(2);

    // The same search again answers from the cache: three hits, no audit.
    await search(t.app, ws.auth, payload);
    const after = await scrape(t.app);
    expect(delta(middle, after, "leadapi_audit_cache_lookups_total", { result: "hit" })).toBe(3);
    expect(delta(middle, after, "leadapi_audit_cache_lookups_total", { result: "miss" })).toBe(0);
    expect(delta(middle, after, "leadapi_audit_jobs_total", { outcome: "ok" })).toBe(0);
    // Nothing is left running.
    expect(after.get("leadapi_audit_queue_depth", { state: "waiting" })).toBe(0);
    expect(after.get("leadapi_audit_queue_depth", { state: "delayed" })).toBe(0);
    expect(after.get("leadapi_audit_active_jobs")).toBe(0);
  });

  it("reports the in-process queue: audits waiting and running after the search stopped waiting", async () => {
    const slow = await startTestApp({
      ...places.env,
      AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
      AUDIT_CONCURRENCY: "1",
      SEARCH_CHECK_BUDGET_MS: "300",
      ...NO_LIMITS,
    });
    try {
      sites.set("/f-slow-1", { html: OLD_HOMEPAGE, delayMs: 1_500 });
      sites.set("/f-slow-2", { html: OLD_HOMEPAGE, delayMs: 1_500 });
      places.setPlaces("mason in Ottawa", [
        placeAt("metrics-f-1", sites.url("/f-slow-1")),
        placeAt("metrics-f-2", sites.url("/f-slow-2")),
      ]);
      const ws = await createWorkspace(slow.app);
      const before = await scrape(slow.app);
      const response = await search(slow.app, ws.auth, {
        queries: [{ location: "Ottawa", category: "mason" }],
        filters: { outdated_website: true },
        max_results: 2,
      });
      expect(response.json()).toMatchObject({ results: [], truncated: true });
      // One audit at a time: one running, one waiting, the search long answered.
      const during = await scrape(slow.app);
      expect(during.get("leadapi_audit_active_jobs")).toBe(1);
      expect(during.get("leadapi_audit_queue_depth", { state: "waiting" })).toBe(1);
      expect(during.get("leadapi_audit_queue_depth", { state: "delayed" })).toBe(0);
      expect(delta(before, during, "leadapi_searches_total", { outcome: "ok" })).toBe(1);
      expect(delta(before, during, "leadapi_searches_truncated_total", { reason: "check_budget" })).toBe(1);

      let after = during;
      const started = Date.now();
      while ((after.get("leadapi_audit_active_jobs") ?? 1) > 0 && Date.now() - started < 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = await scrape(slow.app);
      }
      expect(after.get("leadapi_audit_active_jobs")).toBe(0);
      expect(after.get("leadapi_audit_queue_depth", { state: "waiting" })).toBe(0);
      expect(delta(before, after, "leadapi_audit_jobs_total", { outcome: "ok" })).toBe(2);
    } finally {
      await slow.close();
    }
  });
});

describe("the audit pipeline (distributed mode: BullMQ)", () => {
  it("reports the BullMQ queue depth (waiting, delayed) and active jobs on the API", async () => {
    const prefix = unique("metrics_q");
    const api = await startTestApp({ REDIS_URL, QUEUE_PREFIX: prefix }, { rateLimitKeyPrefix: unique("rl") });
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix });
    try {
      const empty = await scrape(api.app);
      expect(empty.get("leadapi_audit_queue_depth", { state: "waiting" })).toBe(0);
      expect(empty.get("leadapi_audit_active_jobs")).toBe(0);
      const job = (n: number) => ({
        placeId: `metrics-q-${n}`,
        url: `https://q${n}.example/`,
        country: null,
      });
      await queue.add(SITE_AUDIT_JOB, job(1));
      await queue.add(SITE_AUDIT_JOB, job(2));
      await queue.add(SITE_AUDIT_JOB, job(3), { delay: 60_000 });
      const after = await scrape(api.app);
      expect(after.get("leadapi_audit_queue_depth", { state: "waiting" })).toBe(2);
      expect(after.get("leadapi_audit_queue_depth", { state: "delayed" })).toBe(1);
      expect(after.get("leadapi_audit_active_jobs")).toBe(0);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
      await api.close();
    }
  });

  it("a scrape while the Redis connection is still being made waits for it: the depth, not an empty gauge", async () => {
    const prefix = unique("metrics_c");
    const metrics = createMetrics({ defaultMetrics: false });
    const connection = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix });
    try {
      metrics.observeAuditQueue(() => readQueueCounts(queue, connection));
      // Scraped in the same tick as the connection was made, as a scrape right after start is.
      expect(connection.status).toBe("connecting");
      const scraped = parseScrape(await metrics.scrape());
      expect(scraped.get("leadapi_audit_queue_depth", { state: "waiting" })).toBe(0);
      expect(scraped.get("leadapi_audit_queue_depth", { state: "delayed" })).toBe(0);
      expect(scraped.get("leadapi_audit_active_jobs")).toBe(0);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it("serves the worker's own /metrics and /healthz, with its audit jobs counted and timed", {
    timeout: 90_000,
  }, async () => {
    const prefix = unique("metrics_w");
    const database = await createTestDatabase();
    const producer = createQueueAuditor({
      redisUrl: REDIS_URL,
      prefix,
      db: database.db,
      logger: createLogger("silent", "test"),
    });
    const worker = await startAuditWorker(
      {
        DATABASE_URL: database.url as string,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
        AUDIT_THREADS: "1",
      },
      { name: "metrics-worker", readyTimeoutMs: 60_000 },
    );
    try {
      const listening = await worker.waitForLog("worker metrics listening on /metrics and /healthz");
      const port = Number(listening.json?.port);
      expect(port).toBeGreaterThan(0);
      const base = `http://127.0.0.1:${port}`;

      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });

      sites.set("/w-old", { html: OLD_HOMEPAGE });
      const audit = await producer.audit(
        { placeId: unique("metrics-w"), url: sites.url("/w-old"), country: null },
        Date.now() + 30_000,
      );
      expect(audit?.outcome).toBe("ok");

      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const metrics = parseScrape(await response.text());
      expect(metrics.get("leadapi_audit_jobs_total", { outcome: "ok" })).toBe(1);
      expect(metrics.get("leadapi_audit_jobs_total", { outcome: "failed" })).toBe(0);
      expect(metrics.get("leadapi_audit_job_duration_seconds_count", { outcome: "ok" })).toBe(1);
      expect(metrics.get("leadapi_audit_job_duration_seconds_sum", { outcome: "ok" })).toBeGreaterThan(0);
      expect(metrics.get("leadapi_audit_queue_depth", { state: "waiting" })).toBe(0);
      expect(metrics.get("leadapi_audit_active_jobs")).toBe(0);
      expect(metrics.types.get("leadapi_process_cpu_seconds_total")).toBe("counter");
      // The worker's capacity figures (workers/capacity-metrics.ts).
      expect(metrics.get("leadapi_worker_audits_per_second")).toBeCloseTo(0.1, 5);
      expect(metrics.get("leadapi_worker_main_thread_cpu_seconds_total")).toBeGreaterThan(0);
      expect(metrics.get("leadapi_worker_main_thread_cpu_per_audit_seconds")).toBeGreaterThan(0);
      expect(metrics.get("leadapi_worker_event_loop_utilization")).toBeGreaterThan(0);
      expect(metrics.get("leadapi_worker_event_loop_delay_seconds", { quantile: "0.99" })).toBeGreaterThan(0);
      expect(metrics.get("leadapi_worker_fetches", { state: "in_flight" })).toBe(0);
      expect(metrics.get("leadapi_worker_fetch_memory_bytes", { kind: "in_use" })).toBe(0);
      expect(metrics.get("leadapi_worker_fetch_memory_bytes", { kind: "limit" })).toBe(256 * 1024 * 1024);
      expect((await fetch(`${base}/nope`)).status).toBe(404);

      // While a site keeps its answer, the worker's scrape counts its fetch in flight.
      sites.set("/w-slow", { html: OLD_HOMEPAGE, delayMs: 5_000 });
      let slowFinished = false;
      const slow = producer
        .audit(
          { placeId: unique("metrics-w-slow"), url: sites.url("/w-slow"), country: null },
          Date.now() + 30_000,
        )
        .finally(() => {
          slowFinished = true;
        });
      let inFlight = 0;
      while (inFlight === 0 && !slowFinished) {
        const scrape = parseScrape(await (await fetch(`${base}/metrics`)).text());
        inFlight = scrape.get("leadapi_worker_fetches", { state: "in_flight" }) ?? 0;
      }
      expect(inFlight).toBeGreaterThanOrEqual(1);
      expect((await slow)?.outcome).toBe("ok");
      const after = parseScrape(await (await fetch(`${base}/metrics`)).text());
      expect(after.get("leadapi_worker_fetches", { state: "in_flight" })).toBe(0);
      expect(after.get("leadapi_audit_jobs_total", { outcome: "ok" })).toBe(2);

      expect(await worker.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await worker.stop();
      await producer.close();
      const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix });
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
      await database.close();
    }
  });
});

describe("the Grafana dashboard", () => {
  /** Every PromQL expression of the dashboard: panel targets (rows included) and variable queries. */
  function expressions(dashboard: unknown): string[] {
    const found: string[] = [];
    const visit = (node: unknown, key: string | undefined) => {
      if (typeof node === "string") {
        if (key === "expr" || key === "query" || key === "definition") found.push(node);
      } else if (Array.isArray(node)) {
        for (const item of node) visit(item, key);
      } else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) visit(v, k);
      }
    };
    visit(dashboard, undefined);
    return found;
  }

  it("refers to no metric the code does not export, and plots every metric of ours", async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, "utf8")) as { panels: unknown[]; title: string };
    const exprs = expressions(dashboard);
    expect(exprs.length).toBeGreaterThan(15);
    const referenced = new Set(
      exprs
        .flatMap((expr) => [...expr.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g)].map((m) => m[0]))
        .filter((word) => word.startsWith("leadapi_")),
    );
    expect(referenced.size).toBeGreaterThan(10);

    // What /metrics exports: each family, and for a histogram its _bucket, _sum and _count series.
    const exported = new Set<string>();
    const { types } = await scrape(t.app);
    for (const [family, type] of types) {
      exported.add(family);
      if (type === "histogram")
        for (const suffix of ["_bucket", "_sum", "_count"]) exported.add(family + suffix);
    }
    for (const name of referenced) expect(exported, `the dashboard uses ${name}`).toContain(name);

    // Every application metric (not the process ones) has a panel.
    const ours = [...types.keys()].filter((family) => !/^leadapi_(process|nodejs)_/.test(family));
    expect(ours.length).toBeGreaterThanOrEqual(11);
    for (const family of ours) {
      const plotted = [...referenced].some((name) => name === family || name.startsWith(`${family}_`));
      expect(plotted, `${family} has a panel`).toBe(true);
    }
  });

  it("plots p50 and p95 latency by route from the request histogram", async () => {
    const exprs = expressions(JSON.parse(await readFile(DASHBOARD, "utf8")));
    for (const quantile of ["0.5", "0.95"]) {
      expect(
        exprs.some(
          (expr) =>
            expr.includes(`histogram_quantile(${quantile},`) &&
            expr.includes("by (le, route)") &&
            expr.includes("leadapi_http_request_duration_seconds_bucket"),
        ),
      ).toBe(true);
    }
  });
});
