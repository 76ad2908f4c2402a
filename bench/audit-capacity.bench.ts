/**
 * Audit capacity: many live-check searches at once, each as fast as if it ran alone.
 *
 *   node bench/audit-capacity.bench.ts
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 ...
 *
 * Measured from outside, over HTTP, against real processes: `node api/server.ts` (one API node) and
 * `node workers/audit-worker.ts` (one or two workers) on the machine's PostgreSQL (a scratch database
 * of this run, dropped at the end) and Redis (keys under this run's prefix, removed at the end).
 * Homepages are served by 25 HTTP servers on 25 loopback addresses (127.0.0.2 ... 127.0.0.26; Linux
 * routes all of 127/8 to the loopback interface): the 25 sites of a search are on 25 addresses, as
 * real businesses are on different hosts. Every place id carries this run's id: nothing is cached.
 * Every search is a live-check search (`not_mobile_friendly`), max_results 25, each in a workspace
 * of its own with credits bought; SEARCH_CHECK_BUDGET_MS 30000.
 *
 * The processes run with the default audit settings (AUDIT_CONCURRENCY 1000 audits in flight per
 * process, bodies admitted by AUDIT_FETCH_MEMORY_BUDGET_MB 256), as shipped.
 *
 * Figures, each next to its floor in the same run (the site's own answer time):
 * - single: one search of 25 sites answering after 2 s: wall / 2 s (aim <= 1.1);
 * - 8 at once, one worker: median and slowest wall / 2 s (aim median <= 1.3), matches of 200,
 *   truncated answers (aim 0); 16 at once on one worker; 32 at once on ONE worker (800 fetches in
 *   flight: aim median <= 1.5, 0 truncated), each with the worker's peak resident memory during it
 *   (sampled from /proc every 50 ms) and its main thread's CPU per audit (the kernel's count of the
 *   event loop's thread, /proc/<pid>/task/<pid>/stat, over the audits it finished; aim <= 1.2 ms);
 *   64 at once (1,600 in flight), printed for the next step;
 * - 8 at once in embedded mode (no Redis, PGlite);
 * - fairness: one search of 5 queries (300 candidates, 290 failing the filter) started with 7
 *   searches of 25: the small searches' median / 2 s (aim <= 1.3);
 * - realistic mix: 60 candidates, answer delays log-normal (median 700 ms), 5% never answer, 5%
 *   reset the connection, 27 matching: wall over the time the 25th matching site answered
 *   (aim <= 1.5).
 * About 2 to 3 minutes on a 2-core machine; BENCH_ONLY=single,8,32 runs only those scenarios (of
 * single, 8, 16, 32, 64, fair, mix, embedded). BENCH_NODE_OPTIONS is passed to the API and worker
 * processes as NODE_OPTIONS (for example to profile them).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { googlePlace, startFakeGooglePlaces } from "../test/support/fake-google-places.ts";
import { MODERN_HOMEPAGE, OLD_HOMEPAGE } from "../test/support/fake-sites.ts";
import { type ServerProcess, startServerProcess } from "../test/support/server-process.ts";
import { startAuditWorker, stopAllWorkers, type WorkerProcess } from "../test/support/worker-process.ts";

const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL?.trim() || "redis://127.0.0.1:6379";
const RUN = randomUUID().replaceAll("-", "").slice(0, 10);
const ADMIN_TOKEN = `bench-admin-${RUN}-0123456789`;
const SITE_DELAY_MS = 2_000;
const ADDRESSES = Array.from({ length: 25 }, (_, index) => `127.0.0.${index + 2}`);
const SETTINGS = {
  // e.g. BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the API and the workers.
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  // AUDIT_FETCH_LOOPS=0 (or 1, 4) in the bench's environment compares with the default's loops.
  ...(process.env.AUDIT_FETCH_LOOPS ? { AUDIT_FETCH_LOOPS: process.env.AUDIT_FETCH_LOOPS } : {}),
  AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
  SEARCH_CHECK_BUDGET_MS: "30000",
  RATE_LIMIT_SEARCH_PER_MIN: "100000",
  RATE_LIMIT_READ_PER_MIN: "100000",
};

const watchdog = setTimeout(() => {
  console.error("audit-capacity bench: gave up after 9 minutes");
  void stopAllWorkers(1_000).finally(() => process.exit(1));
}, 540_000);
watchdog.unref();

// ---------------------------------------------------------------------------------------------
// sites: /<behaviour>/<place id>; every answer recorded with its time

type Behaviour =
  | { kind: "old" | "modern"; delayMs: number }
  | { kind: "hang" }
  | { kind: "reset"; delayMs: number };
const behaviours = new Map<string, Behaviour>();
const answeredAt = new Map<string, number>();
/** Date.now() of each site request's arrival and answer, for the "where the time went" line. */
const arrivedWall = new Map<string, number>();
const answeredWall = new Map<string, number>();

function handle(request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse) {
  const id = (request.url ?? "/").split("?")[0]!.split("/").at(-1) ?? "";
  const behaviour = behaviours.get(id);
  arrivedWall.set(id, Date.now());
  if (!behaviour) {
    response.writeHead(404).end();
    return;
  }
  if (behaviour.kind === "hang") return; // never answers; the fetcher's timeout ends it
  const timer = setTimeout(() => {
    answeredAt.set(id, performance.now());
    answeredWall.set(id, Date.now());
    if (behaviour.kind === "reset") {
      request.socket.destroy();
      return;
    }
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(behaviour.kind === "old" ? OLD_HOMEPAGE : MODERN_HOMEPAGE);
  }, behaviour.delayMs);
  response.on("close", () => clearTimeout(timer));
}

const servers: Server[] = [];
const origins: string[] = [];
for (const address of ADDRESSES) {
  const server = createServer(handle);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, address, resolve);
  });
  servers.push(server);
  origins.push(`http://${address}:${(server.address() as AddressInfo).port}`);
}

// ---------------------------------------------------------------------------------------------
// places: the fake Google Places server (real HTTP, as in production), a query per search

const placesServer = await startFakeGooglePlaces();
/** Place ids by query, in provider order; published to the fake server before the API starts. */
const placesByQuery = new Map<string, { id: string; website: string }[]>();
function addPlace(query: string, id: string, index: number, behaviour: Behaviour) {
  behaviours.set(id, behaviour);
  const list = placesByQuery.get(query) ?? [];
  placesByQuery.set(query, list);
  // The i-th site of a search on the (i mod 25)-th address: a search's 25 sites on 25 hosts.
  list.push({ id, website: `${origins[index % origins.length]}/site/${id}` });
}
function publishPlaces() {
  for (const [query, list] of placesByQuery) {
    placesServer.setPlaces(
      `${query} in Benchville`,
      list.map((place) => googlePlace(place.id, place.website)),
    );
  }
}
const placeIdsOf = (query: string) => (placesByQuery.get(query) ?? []).map((place) => place.id);

/** A query of `count` fresh sites answering after 2 s, all matching (old homepages). */
function slowQuery(name: string, count = 25): string {
  for (let index = 0; index < count; index++) {
    addPlace(name, `${RUN}-${name}-${index}`, index, { kind: "old", delayMs: SITE_DELAY_MS });
  }
  return name;
}

/** Seeded PRNG (mulberry32): the same mix every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// processes, HTTP, workspaces

let api: ServerProcess | undefined;
let workers: WorkerProcess[] = [];
let dataFolder: string | undefined;
const databaseName = `leadapi_bench_${RUN}`;
const adminClient = new pg.Client({ connectionString: POSTGRES_URL });

async function http(method: "GET" | "POST", url: string, token: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function workspaceKey(baseUrl: string): Promise<string> {
  const ws = await http("POST", `${baseUrl}/admin/workspaces`, ADMIN_TOKEN, { name: "Bench agency" });
  const id = ws.json.id as string;
  const member = await http("POST", `${baseUrl}/admin/workspaces/${id}/members`, ADMIN_TOKEN, {
    email: `owner-${id.slice(0, 8)}@bench.test`,
  });
  await http("POST", `${baseUrl}/admin/workspaces/${id}/credit-purchases`, ADMIN_TOKEN, { credits: 1000 });
  const key = await http("POST", `${baseUrl}/admin/workspaces/${id}/api-keys`, ADMIN_TOKEN, {
    name: "bench",
    created_by: member.json.id,
  });
  if (key.status !== 201) throw new Error(`bench workspace: ${key.status} ${JSON.stringify(key.json)}`);
  return key.json.key as string;
}

interface SearchRun {
  startedAt: number;
  startedWall: number;
  query: string;
  ms: number;
  matches: number;
  truncated: boolean;
}

async function search(baseUrl: string, key: string, queries: string[]): Promise<SearchRun> {
  const startedAt = performance.now();
  const startedWall = Date.now();
  const response = await http("POST", `${baseUrl}/v1/searches`, key, {
    queries: queries.map((category) => ({ location: "Benchville", category })),
    filters: { not_mobile_friendly: true },
    max_results: 25,
  });
  const ms = performance.now() - startedAt;
  if (response.status !== 200) throw new Error(`search: ${response.status} ${JSON.stringify(response.json)}`);
  return {
    startedAt,
    startedWall,
    query: queries[0] ?? "",
    ms,
    matches: (response.json.results as unknown[]).length,
    truncated: response.json.truncated as boolean,
  };
}

/** `count` searches started at the same moment, one workspace each (keys made beforehand). */
async function simultaneous(baseUrl: string, queries: string[][]): Promise<SearchRun[]> {
  const keys = await Promise.all(queries.map(() => workspaceKey(baseUrl)));
  return Promise.all(queries.map((query, index) => search(baseUrl, keys[index]!, query)));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Sum and count of the workers' audit histograms (their own /metrics), to split where time went. */
type Totals = Record<string, { sum: number; count: number }>;
async function workerTotals(): Promise<Totals> {
  const totals: Totals = {};
  for (const worker of workers) {
    const port = worker.linesWith("worker metrics listening on /metrics and /healthz")[0]?.json?.port;
    if (typeof port !== "number") continue;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const line of text.split("\n")) {
      const match =
        /^leadapi_(audit_stage_duration_seconds|audit_queue_wait_seconds)_(sum|count)(?:\{stage="(\w+)"\})? (\S+)$/.exec(
          line,
        );
      if (!match) continue;
      const key = match[3] ?? "queue_wait";
      totals[key] ??= { sum: 0, count: 0 };
      totals[key][match[2] as "sum" | "count"] += Number(match[4]);
    }
  }
  return totals;
}
function describeTotals(before: Totals, after: Totals): string {
  const mean = (key: string) => {
    const count = (after[key]?.count ?? 0) - (before[key]?.count ?? 0);
    const sum = (after[key]?.sum ?? 0) - (before[key]?.sum ?? 0);
    return count > 0 ? `${Math.round((sum / count) * 1000)} ms` : "-";
  };
  return `worker means: queue wait ${mean("queue_wait")}, fetch ${mean("fetch")}, parse ${mean("parse")} (thread wait included)`;
}

/** A process's resident memory now (Linux /proc), in bytes; NaN where it cannot be read. */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

/**
 * CPU seconds of a process's main thread (its event loop: /proc/<pid>/task/<pid>/stat) and of the
 * whole process (every thread: analysis, fetch loops, GC helpers), read by the kernel's accounting,
 * not by the process's own claims. NaN where /proc cannot be read.
 */
const CLOCK_TICKS = 100;
async function cpuSeconds(pid: number): Promise<{ main: number; all: number }> {
  const read = async (file: string) => {
    const stat = await readFile(file, "utf8").catch(() => "");
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  };
  return { main: await read(`/proc/${pid}/task/${pid}/stat`), all: await read(`/proc/${pid}/stat`) };
}

/** Audits the workers finished (their audit_jobs_total), for the CPU per audit. */
async function auditsFinished(): Promise<number> {
  let total = 0;
  for (const worker of workers) {
    const port = worker.linesWith("worker metrics listening on /metrics and /healthz")[0]?.json?.port;
    if (typeof port !== "number") continue;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const match of text.matchAll(/^leadapi_audit_jobs_total\{[^}]*\} (\S+)$/gm))
      total += Number(match[1]);
  }
  return total;
}

/** The workers' peak resident memory while `run` runs, sampled every 50 ms. */
async function withPeakMemory<T>(run: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peak = 0;
  const sample = async () => {
    for (const worker of workers) peak = Math.max(peak, await residentBytes(worker.pid));
  };
  await sample();
  const timer = setInterval(() => void sample(), 50);
  try {
    const result = await run();
    await sample();
    return { result, peakMb: peak / (1024 * 1024) };
  } finally {
    clearInterval(timer);
  }
}

const rows: string[] = [];
async function measured(
  name: string,
  aim: string,
  run: () => Promise<SearchRun[]>,
  check?: (runs: SearchRun[]) => boolean,
): Promise<SearchRun[]> {
  const before = await workerTotals();
  const cpuBefore = await Promise.all(workers.map((worker) => cpuSeconds(worker.pid)));
  const auditsBefore = await auditsFinished();
  const { result: runs, peakMb } = await withPeakMemory(run);
  const cpuAfter = await Promise.all(workers.map((worker) => cpuSeconds(worker.pid)));
  const audits = (await auditsFinished()) - auditsBefore;
  const spent = (pick: "main" | "all") =>
    cpuAfter.reduce((sum, after, index) => sum + after[pick] - (cpuBefore[index]?.[pick] ?? 0), 0);
  const perAudit = (pick: "main" | "all") => (audits > 0 ? ((spent(pick) / audits) * 1000).toFixed(2) : "-");
  const verdict = check ? (check(runs) ? "  MET" : "  MISSED") : "";
  report(
    name,
    runs,
    `${aim}${verdict}; worker peak RSS ${Math.round(peakMb)} MB, main-thread CPU ${perAudit("main")} ms/audit` +
      ` (whole process ${perAudit("all")} ms, ${audits} audits)`,
  );
  if (workers.length > 0) console.log(`    ${describeTotals(before, await workerTotals())}`);
  return runs;
}

/** Median of the searches' walls over the site's own delay at most `ratio`, and none truncated. */
const within = (ratio: number) => (runs: SearchRun[]) =>
  median(runs.map((run) => run.ms)) / SITE_DELAY_MS <= ratio && runs.every((run) => !run.truncated);

function report(name: string, runs: SearchRun[], aim: string) {
  const walls = runs.map((run) => run.ms);
  const matches = runs.reduce((sum, run) => sum + run.matches, 0);
  const truncated = runs.filter((run) => run.truncated).length;
  const line =
    `${name.padEnd(40)} median ${(median(walls) / SITE_DELAY_MS).toFixed(2)}x  slowest ${(Math.max(...walls) / SITE_DELAY_MS).toFixed(2)}x` +
    `  (${Math.round(median(walls))} / ${Math.round(Math.max(...walls))} ms)  matches ${matches}/${runs.length * 25}` +
    `  truncated ${truncated}/${runs.length}   aim ${aim}`;
  rows.push(line);
  console.log(line);
  // Where the time went: site requests' arrivals, the sites' answers, the workers' "audit finished".
  const start = Math.min(...runs.map((run) => run.startedWall));
  const ids = new Set(runs.flatMap((run) => placeIdsOf(run.query)));
  const arrivals = [...ids].map((id) => (arrivedWall.get(id) ?? Number.NaN) - start);
  const answers = [...ids].map((id) => (answeredWall.get(id) ?? Number.NaN) - start);
  const finished = [...workers.flatMap((w) => w.logs), ...(api?.logs ?? [])]
    .filter((l) => l.json?.msg === "audit finished" && ids.has(String(l.json?.place_id)))
    .map((l) => (typeof l.json?.time === "number" ? l.json.time : Date.parse(String(l.json?.time))) - start);
  const fmt = (values: number[]) =>
    values.length === 0 ? "-" : `${Math.round(Math.min(...values))}..${Math.round(Math.max(...values))} ms`;
  console.log(
    `    site requests arrived ${fmt(arrivals)}, answered ${fmt(answers)}; workers logged "audit finished" ${fmt(finished)}; answers ${fmt(runs.map((r) => r.startedWall - start + r.ms))}`,
  );
}

async function startApi(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess(
    {
      ...SETTINGS,
      ADMIN_TOKEN,
      GOOGLE_PLACES_API_KEY: placesServer.apiKey,
      GOOGLE_PLACES_BASE_URL: placesServer.baseUrl,
      LOG_LEVEL: "info",
      ...env,
    },
    { readyTimeoutMs: 90_000 },
  );
}

function startWorkers(count: number, databaseUrl: string, prefix: string): Promise<WorkerProcess[]> {
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      startAuditWorker(
        { ...SETTINGS, DATABASE_URL: databaseUrl, REDIS_URL, QUEUE_PREFIX: prefix, LOG_LEVEL: "info" },
        { name: `bench-worker-${index + 1}`, readyTimeoutMs: 90_000 },
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// scenarios

/** BENCH_ONLY=32,64 runs only those scenarios (single, 8, 16, 32, 64, fair, mix, embedded). */
const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim());
const runs = (scenario: string) => only === undefined || only.includes(scenario);

const warm = slowQuery("warm", 5);
for (const id of placeIdsOf(warm)) behaviours.set(id, { kind: "old", delayMs: 0 });
const single = slowQuery("single");
const eight = Array.from({ length: 8 }, (_, index) => [slowQuery(`eight${index}`)]);
const sixteen = Array.from({ length: 16 }, (_, index) => [slowQuery(`sixteen${index}`)]);
const thirtyTwo = Array.from({ length: 32 }, (_, index) => [slowQuery(`tt${index}`)]);
const sixtyFour = Array.from({ length: 64 }, (_, index) => [slowQuery(`sf${index}`)]);
const embeddedWarm = slowQuery("embwarm", 5);
for (const id of placeIdsOf(embeddedWarm)) behaviours.set(id, { kind: "old", delayMs: 0 });
const embedded = Array.from({ length: 8 }, (_, index) => [slowQuery(`emb${index}`)]);

// Fairness: 5 queries of 60 (290 modern homepages failing the filter, 10 old ones spread out).
const bigQueries = Array.from({ length: 5 }, (_, q) => {
  const name = `big${q}`;
  for (let index = 0; index < 60; index++) {
    const matching = index % 30 === 29;
    addPlace(name, `${RUN}-${name}-${index}`, q * 60 + index, {
      kind: matching ? "old" : "modern",
      delayMs: SITE_DELAY_MS,
    });
  }
  return name;
});
const fairSmall = Array.from({ length: 7 }, (_, index) => [slowQuery(`fair${index}`)]);

// Realistic mix: 60 candidates; 3 never answer, 3 reset, 27 old (matching), 27 modern.
const mixRandom = random(20_261_122);
const mixKinds: ("old" | "modern" | "hang" | "reset")[] = [
  ...Array<"hang">(3).fill("hang"),
  ...Array<"reset">(3).fill("reset"),
  ...Array<"old">(27).fill("old"),
  ...Array<"modern">(27).fill("modern"),
];
for (let index = mixKinds.length - 1; index > 0; index--) {
  const other = Math.floor(mixRandom() * (index + 1));
  [mixKinds[index], mixKinds[other]] = [mixKinds[other]!, mixKinds[index]!];
}
const logNormalDelay = () => {
  // Box-Muller; median 700 ms, sigma 0.8 (most between 300 ms and 1.6 s, a tail to several seconds).
  const normal = Math.sqrt(-2 * Math.log(1 - mixRandom())) * Math.cos(2 * Math.PI * mixRandom());
  return Math.round(700 * Math.exp(0.8 * normal));
};
const mixIds: { id: string; kind: string }[] = [];
for (const [index, kind] of mixKinds.entries()) {
  const id = `${RUN}-mix-${index}`;
  mixIds.push({ id, kind });
  addPlace("mix", id, index, kind === "hang" ? { kind } : { kind, delayMs: logNormalDelay() });
}

// ---------------------------------------------------------------------------------------------

console.log(
  `audit capacity: live-check searches of 25 fresh sites answering after ${SITE_DELAY_MS} ms, sites on ${ADDRESSES.length} loopback addresses;` +
    ` default audit settings (concurrency, memory budget, politeness); ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(2)}`,
);
let failed = false;
const prefix = `bench-cap-${RUN}`;
try {
  publishPlaces();
  dataFolder = await mkdtemp(path.join(tmpdir(), "lead-api-bench-"));
  await adminClient.connect().catch((error: unknown) => {
    throw new Error(`PostgreSQL is not reachable at ${POSTGRES_URL} (set BENCH_POSTGRES_URL)`, {
      cause: error,
    });
  });
  await adminClient.query(`create database ${databaseName}`);
  const databaseUrl = new URL(POSTGRES_URL);
  databaseUrl.pathname = `/${databaseName}`;

  // --- distributed: one API node, one worker ---
  api = await startApi({ DATABASE_URL: databaseUrl.href, REDIS_URL, QUEUE_PREFIX: prefix });
  workers = await startWorkers(1, databaseUrl.href, prefix);
  const baseUrl = api.baseUrl;
  await simultaneous(baseUrl, [[warm]]);

  if (runs("single")) {
    await measured(
      "single search, 1 worker",
      "<= 1.1x",
      () => simultaneous(baseUrl, [[single]]),
      within(1.1),
    );
  }
  if (runs("8")) {
    await measured(
      "8 at once, 1 worker",
      "median <= 1.3x, 0 truncated",
      () => simultaneous(baseUrl, eight),
      within(1.3),
    );
  }
  if (runs("16")) {
    await measured("16 at once, 1 worker", "(sizing: none)", () => simultaneous(baseUrl, sixteen));
  }
  if (runs("32")) {
    await measured(
      "32 at once, 1 worker (800 in flight)",
      "median <= 1.5x, 0 truncated",
      () => simultaneous(baseUrl, thirtyTwo),
      within(1.5),
    );
  }
  if (runs("64")) {
    await measured("64 at once, 1 worker (1600 in flight)", "(next step: none yet)", () =>
      simultaneous(baseUrl, sixtyFour),
    );
  }
  if (runs("fair")) await fairness(baseUrl);
  if (runs("mix")) await realisticMix(baseUrl);

  await Promise.all(workers.map((worker) => worker.stop(10_000)));
  workers = [];
  await api.stop(10_000);

  // --- embedded: no Redis, PGlite, audits in the API process ---
  if (runs("embedded")) {
    const dataDir = path.join(dataFolder, "data");
    api = await startApi({ DATA_DIR: dataDir });
    await simultaneous(api.baseUrl, [[embeddedWarm]]);
    report(
      "8 at once, embedded (PGlite)",
      await simultaneous(api.baseUrl, embedded),
      "median <= 1.3x, slowest <= 1.5x, 0 truncated",
    );
  }
} catch (error) {
  failed = true;
  console.error(error);
  if (api) console.error(api.output().split("\n").slice(-20).join("\n"));
} finally {
  await Promise.all(workers.map((worker) => worker.stop(5_000)));
  await stopAllWorkers(1_000);
  await api?.stop(10_000);
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  connection.on("error", () => {});
  const queue = new Queue("site-audit", { connection, prefix });
  queue.on("error", () => {});
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  connection.disconnect();
  await adminClient.query(`drop database if exists ${databaseName} with (force)`).catch(() => {});
  await adminClient.end().catch(() => {});
  if (dataFolder) await rm(dataFolder, { recursive: true, force: true });
  await placesServer.close();
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
}

/** Fairness: the big search first, the 7 small ones right behind it. */
async function fairness(baseUrl: string): Promise<void> {
  const fairKeys = await Promise.all([...fairSmall, bigQueries].map(() => workspaceKey(baseUrl)));
  const big = search(baseUrl, fairKeys[7]!, bigQueries);
  const small = await Promise.all(fairSmall.map((query, index) => search(baseUrl, fairKeys[index]!, query)));
  const bigRun = await big;
  report("fairness: 7 small beside one of 300", small, "median <= 1.3x");
  const bigLine = `  (the 300-candidate search: ${Math.round(bigRun.ms)} ms, ${bigRun.matches} matches, truncated ${bigRun.truncated})`;
  rows.push(bigLine);
  console.log(bigLine);
}

/** Realistic mix: wall over the moment the 25th matching site answered. */
async function realisticMix(baseUrl: string): Promise<void> {
  const mixKey = await workspaceKey(baseUrl);
  const mix = await search(baseUrl, mixKey, ["mix"]);
  const matchingAnswers = mixIds
    .filter((entry) => entry.kind === "old")
    .map((entry) => (answeredAt.get(entry.id) ?? Number.NaN) - mix.startedAt)
    .sort((a, b) => a - b);
  const t25 = matchingAnswers[24] ?? Number.NaN;
  const mixLine =
    `${"realistic mix (60 candidates)".padEnd(40)} wall ${Math.round(mix.ms)} ms / 25th match answered at ${Math.round(t25)} ms` +
    ` = ${(mix.ms / t25).toFixed(2)}x  matches ${mix.matches}/25  truncated ${mix.truncated}   aim <= 1.5x`;
  rows.push(mixLine);
  console.log(mixLine);
}

console.log(
  `\nsummary (wall time / the site's own 2 s answer time; one run; load average now ${loadavg()[0]!.toFixed(2)}):`,
);
for (const row of rows) console.log(`  ${row}`);
clearTimeout(watchdog);
process.exitCode = failed ? 1 : 0;
