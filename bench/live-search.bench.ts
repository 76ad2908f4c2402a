/**
 * A live-check search of 25 uncached sites, each answering after 2 s, next to the same search of
 * one such site: do the checks really run side by side?
 *
 *   node bench/live-search.bench.ts [--sites 25] [--delay-ms 2000] [--ports 5]
 *   DATABASE_URL=postgres://... REDIS_URL=redis://... node bench/live-search.bench.ts
 *
 * Embedded mode always (in-process auditor and piscina pool; in-memory PGlite, or PostgreSQL when
 * DATABASE_URL is set); distributed mode too when both DATABASE_URL and REDIS_URL are set (the API's
 * queue auditor on BullMQ and 2 `node workers/audit-worker.ts` processes). On PostgreSQL it migrates
 * that database and leaves workspaces, leads and audits behind (ids carry a random run id, so every
 * run's sites are uncached): point it at a scratch database. Redis keys live under a run prefix.
 *
 * Each mode: a warm-up search (fast sites: starts the analysis threads and the pools), then a
 * live-check search (`not_mobile_friendly`) of 1 slow site, then one of 25 slow sites, all through
 * the app (`inject`), SEARCH_CHECK_BUDGET_MS 30000, AUDIT_CONCURRENCY 25. The ratio is the 25-site
 * wall time over the 1-site wall time. Aim: under 1.5x.
 *
 * The sites are spread over several ports of 127.0.0.1: the fetcher pools at most 16 connections
 * per IP:port, as real sites on different hosts would not share a pool. The sites record when
 * each request arrived and how many were in flight at once, to tell where time goes when the aim
 * is missed. About 15 s embedded, 30 s with distributed mode on a slow machine.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Queue } from "bullmq";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { buildApp } from "../api/app.ts";
import { createServices, type Services } from "../api/services.ts";
import { SITE_AUDIT_QUEUE } from "../shared/audit/queue.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { createFixturePlacesProviderFromData, type FixturePlace } from "../shared/places/fixture-places.ts";
import { MAX_RESULTS } from "../shared/search/types.ts";
import { ADMIN_TOKEN, adminRequest, createWorkspace, UNLIMITED_ABUSE_GUARDS } from "../test/support/app.ts";
import { startAuditWorker, stopAllWorkers, type WorkerProcess } from "../test/support/worker-process.ts";

const { values: cli } = parseArgs({
  options: {
    sites: { type: "string" },
    "delay-ms": { type: "string" },
    ports: { type: "string" },
  },
});
/** One search returns at most MAX_RESULTS (25) places. */
const SITES = Math.min(MAX_RESULTS, Math.max(2, Number(cli.sites ?? 25)));
const DELAY_MS = Math.max(100, Number(cli["delay-ms"] ?? 2000));
const PORTS = Math.max(1, Number(cli.ports ?? 5));
const WORKERS = 2;
const CONCURRENCY = Math.max(25, SITES);
const BUDGET_MS = 30_000;
const AIM = 1.5;
/**
 * What one IP:port gets at once: the undici Agent's `connections` (the larger of 16 and the
 * per-IP politeness, AUDIT_FETCHES_PER_IP, default 32) and that politeness itself.
 */
const FETCHER_CONNECTIONS_PER_ORIGIN = 32;
const RUN = crypto.randomUUID().slice(0, 8);
const WARM_SITES = WORKERS * 2;

const watchdog = setTimeout(() => {
  console.error("live-search bench: gave up after 120 s");
  void stopAllWorkers(1_000).finally(() => process.exit(1));
}, 120_000);
watchdog.unref();

// ---------------------------------------------------------------------------------------------
// sites: paths /slow/<id> answer after DELAY_MS, /fast/<id> at once; every request is recorded

const HOMEPAGE = `<!DOCTYPE html><html><head><title>Old shop</title>
<script src="/js/jquery-1.8.2.min.js"></script></head>
<body><table width="900"><tr><td><font face="Arial">Welcome</font></td></tr></table>
<p>&copy; 2012 Old Shop</p></body></html>`;

interface SiteRequest {
  path: string;
  arrived: number;
  answered: number | undefined;
}
const requests: SiteRequest[] = [];
let inFlight = 0;
let peakInFlight = 0;

const servers: Server[] = [];
const origins: string[] = [];
for (let index = 0; index < PORTS; index++) {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const record: SiteRequest = { path, arrived: performance.now(), answered: undefined };
    requests.push(record);
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    const timer = setTimeout(
      () => {
        record.answered = performance.now();
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(HOMEPAGE);
      },
      path.startsWith("/slow/") ? DELAY_MS : 0,
    );
    response.on("close", () => {
      clearTimeout(timer);
      inFlight -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

// ---------------------------------------------------------------------------------------------
// places: one query per search; every place id carries the mode and the run id, so never cached

function placesFor(mode: string): FixturePlace[] {
  const make = (query: string, kind: "slow" | "fast", count: number): FixturePlace[] =>
    Array.from({ length: count }, (_, index) => {
      const id = `bench-${RUN}-${mode}-${query.split(" ")[0]}-${index + 1}`;
      return {
        place_id: id,
        name: `Bench shop ${index + 1}`,
        category: "Plumber",
        address: `${index + 1} Bench St, Benchville, US`,
        // Round-robin over the ports: at most ceil(SITES / PORTS) sites share an IP:port.
        website: `${origins[index % origins.length]}/${kind}/${id}`,
        country: "US",
        rating: 4.5,
        user_rating_count: 40,
        queries: [`${query} in Benchville`],
      };
    });
  return [
    ...make("warmup", "fast", WARM_SITES),
    ...make("single", "slow", 1),
    ...make("many", "slow", SITES),
  ];
}

// ---------------------------------------------------------------------------------------------
// one mode: build the app, warm up, measure

interface ModeResult {
  mode: string;
  single: number;
  many: number;
  manyResults: number;
  manyTruncated: boolean;
  firstArrival: number;
  lastArrival: number;
  lastAnswer: number;
  peak: number;
}

async function timedSearch(app: FastifyInstance, auth: { authorization: string }, query: string) {
  const started = performance.now();
  const response = await app.inject({
    method: "POST",
    url: "/v1/searches",
    headers: auth,
    payload: {
      queries: [{ location: "Benchville", category: query }],
      filters: { not_mobile_friendly: true },
      max_results: Math.min(MAX_RESULTS, Math.max(SITES, WARM_SITES)),
    },
  });
  const elapsed = performance.now() - started;
  if (response.statusCode !== 200)
    throw new Error(`search ${query}: ${response.statusCode} ${response.body}`);
  const body = response.json() as { results: unknown[]; truncated: boolean };
  return { started, elapsed, results: body.results.length, truncated: body.truncated };
}

async function runMode(mode: "embedded" | "distributed", env: Record<string, string>): Promise<ModeResult> {
  const config = loadConfig({
    ADMIN_TOKEN,
    LOG_LEVEL: "silent",
    DATA_DIR: "memory://",
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    SEARCH_CHECK_BUDGET_MS: String(BUDGET_MS),
    AUDIT_CONCURRENCY: String(CONCURRENCY),
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    ...UNLIMITED_ABUSE_GUARDS,
    RATE_LIMIT_READ_PER_MIN: "1000",
    ...env,
  });
  let services: Services | undefined;
  let app: FastifyInstance | undefined;
  try {
    services = await createServices(config, createLogger("silent", "bench"), {
      places: createFixturePlacesProviderFromData({ places: placesFor(mode) }, "live-search bench"),
      rateLimitKeyPrefix: `bench-${RUN}`,
    });
    app = await buildApp({ services });
    await app.ready();
    const ws = await createWorkspace(app, { name: `live-search bench ${RUN}` });
    const purchase = await adminRequest(app, "POST", `/admin/workspaces/${ws.workspaceId}/credit-purchases`, {
      credits: 1000,
    });
    if (purchase.statusCode !== 201) throw new Error(`credits: ${purchase.statusCode} ${purchase.body}`);

    const warm = await timedSearch(app, ws.auth, "warmup");
    if (warm.results !== WARM_SITES) throw new Error(`warm-up found ${warm.results} of ${WARM_SITES} sites`);
    const single = await timedSearch(app, ws.auth, "single");
    if (single.results !== 1) throw new Error(`single-site search found ${single.results} site(s), not 1`);

    inFlight = 0;
    peakInFlight = 0;
    const before = requests.length;
    const many = await timedSearch(app, ws.auth, "many");
    const hits = requests.slice(before).filter((request) => request.path.startsWith("/slow/"));
    const arrivals = hits.map((request) => request.arrived - many.started);
    const answers = hits.map((request) => (request.answered ?? Number.NaN) - many.started);
    return {
      mode,
      single: single.elapsed,
      many: many.elapsed,
      manyResults: many.results,
      manyTruncated: many.truncated,
      firstArrival: Math.min(...arrivals),
      lastArrival: Math.max(...arrivals),
      lastAnswer: Math.max(...answers),
      peak: peakInFlight,
    };
  } finally {
    await app?.close();
    await services?.close();
  }
}

// ---------------------------------------------------------------------------------------------

const perOrigin = Math.ceil(SITES / PORTS);
console.log(`live-check search of ${SITES} uncached sites, each answering after ${DELAY_MS} ms`);
console.log(
  `sites: ${PORTS} port${PORTS === 1 ? "" : "s"} on 127.0.0.1, at most ${perOrigin} sites per IP:port (the fetcher pools ${FETCHER_CONNECTIONS_PER_ORIGIN} connections per IP:port:` +
    ` ${perOrigin <= FETCHER_CONNECTIONS_PER_ORIGIN ? "no site waits for a connection, as with real sites on different hosts" : "SOME SITES WAIT FOR A CONNECTION: use more --ports"})`,
);
console.log(
  `settings: SEARCH_CHECK_BUDGET_MS ${BUDGET_MS}, AUDIT_CONCURRENCY ${CONCURRENCY}; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)}`,
);

const results: ModeResult[] = [];
const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
const redisUrl = process.env.REDIS_URL?.trim() || undefined;
let workers: WorkerProcess[] = [];
try {
  results.push(await runMode("embedded", databaseUrl ? { DATABASE_URL: databaseUrl } : {}));

  if (databaseUrl && redisUrl) {
    const prefix = `bench-${RUN}`;
    const started = performance.now();
    workers = await Promise.all(
      Array.from({ length: WORKERS }, (_, index) =>
        startAuditWorker(
          {
            DATABASE_URL: databaseUrl,
            REDIS_URL: redisUrl,
            QUEUE_PREFIX: prefix,
            AUDIT_CONCURRENCY: String(CONCURRENCY),
            AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
            LOG_LEVEL: "info",
          },
          { name: `bench-worker-${index + 1}`, readyTimeoutMs: 60_000 },
        ),
      ),
    );
    console.log(`(${WORKERS} audit workers ready in ${Math.round(performance.now() - started)} ms)`);
    results.push(
      await runMode("distributed", { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix }),
    );
  }
} finally {
  await Promise.all(workers.map((worker) => worker.stop(5_000)));
  await stopAllWorkers(1_000);
  if (databaseUrl && redisUrl) {
    // This run's queue keys go; other users of that Redis keep theirs (other prefixes).
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    connection.on("error", () => {});
    const queue = new Queue(SITE_AUDIT_QUEUE, { connection, prefix: `bench-${RUN}` });
    queue.on("error", () => {});
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    connection.disconnect();
  }
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
}

const ms = (value: number) => `${Math.round(value)} ms`.padStart(9);
console.log("");
console.log(
  `${"mode".padEnd(12)}${"1 site".padStart(9)}${`${SITES} sites`.padStart(11)}${"ratio".padStart(8)}   aim < ${AIM}x`,
);
for (const result of results) {
  const ratio = result.many / result.single;
  console.log(
    `${result.mode.padEnd(12)}${ms(result.single)}${ms(result.many).padStart(11)}${`${ratio.toFixed(2)}x`.padStart(8)}   ${ratio < AIM ? "met" : "MISSED"}`,
  );
}
console.log("");
for (const result of results) {
  console.log(
    `${result.mode}: ${result.manyResults}/${SITES} sites returned${result.manyTruncated ? ` (truncated${result.manyResults === MAX_RESULTS ? ": max_results reached" : ""})` : ""};` +
      ` requests reached the sites from ${ms(result.firstArrival).trim()} to ${ms(result.lastArrival).trim()},` +
      ` ${result.peak} in flight at most; last site answered at ${ms(result.lastAnswer).trim()},` +
      ` search answered ${ms(result.many - result.lastAnswer).trim()} later`,
  );
  const ratio = result.many / result.single;
  if (ratio >= AIM || result.manyResults !== SITES) {
    const why: string[] = [];
    if (result.peak < SITES)
      why.push(
        `only ${result.peak} of ${SITES} fetches ran at once (audit concurrency, connection pool per IP:port, or jobs picked up late)`,
      );
    if (result.lastArrival - result.firstArrival > DELAY_MS / 4)
      why.push(
        `the last fetch started ${Math.round(result.lastArrival - result.firstArrival)} ms after the first (enqueueing / job pick-up / DNS)`,
      );
    if (result.many - result.lastAnswer > DELAY_MS / 4)
      why.push(
        `${Math.round(result.many - result.lastAnswer)} ms between the last site's answer and the search's (analysis threads, cache writes, completion events)`,
      );
    console.log(`  why: ${why.length > 0 ? why.join("; ") : "no single cause stands out"}`);
  }
}
if (!(databaseUrl && redisUrl)) {
  console.log(
    "distributed: skipped (set DATABASE_URL and REDIS_URL to run it with 2 audit worker processes)",
  );
}
clearTimeout(watchdog);
