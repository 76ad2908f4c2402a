/**
 * What POST /v1/searches adds on top of the places provider, without live filters.
 *
 *   node bench/search.bench.ts [--searches N] [--warmup W]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> node bench/search.bench.ts
 *
 * On PostgreSQL it migrates that database and leaves a workspace and its leads behind (names carry a
 * random run id): point it at a scratch database.
 *
 * Starts the fake Google Places server (real HTTP, no added latency), builds the whole app
 * (loadConfig + createServices + buildApp) on embedded in-memory PGlite, or on PostgreSQL when
 * DATABASE_URL is set, listens on 127.0.0.1:0 and runs N searches of max_results 25 over real HTTP.
 * Every tenth search asks for a query never seen (25 new places charged and saved); the others
 * repeat an earlier query (already-charged places: free, leads found again).
 *
 * Two figures, measured interleaved in this one process:
 * - search: the server-side time of each request, Fastify's `reply.elapsedTime`, read from a
 *   `Server-Timing: app;dur=<ms>` header this bench adds with an onSend hook (the client round
 *   trip is printed too, labelled as such);
 * - provider: the same provider calls alone (createGooglePlacesProvider against the same fake,
 *   reading pages until 25 places, as the scan does).
 * The overhead is search p50 - provider p50. Aim: the service adds at most 5 ms at p50.
 * Under 60 s with the defaults: measuring stops at a 45 s budget (`--seconds`) on a slow machine.
 */
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { buildApp } from "../api/app.ts";
import { createServices } from "../api/services.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { createGooglePlacesProvider } from "../shared/places/google-places.ts";
import type { PlacesProvider } from "../shared/places/types.ts";
import { UNLIMITED_ABUSE_GUARDS } from "../test/support/app.ts";
import { startFakeGooglePlaces, syntheticPlaces } from "../test/support/fake-google-places.ts";

const { values: cli } = parseArgs({
  options: { searches: { type: "string" }, warmup: { type: "string" }, seconds: { type: "string" } },
});
const SEARCHES = Math.max(10, Number(cli.searches ?? 200));
const WARMUP = Math.max(0, Number(cli.warmup ?? 20));
/** Whole-run budget: measuring stops early (and says so) so that the bench ends within a minute. */
const BUDGET_SECONDS = Number(cli.seconds ?? 45);
const MAX_RESULTS = 25;
const NEW_QUERY_EVERY = 10;
const AIM_MS = 5;
const ADMIN_TOKEN = `bench-admin-${crypto.randomUUID()}`;
const RUN = crypto.randomUUID().slice(0, 8);
const category = "plumber";

const startedAt = performance.now();
const watchdog = setTimeout(() => {
  console.error("search bench: gave up after 120 s");
  process.exit(1);
}, 120_000);
watchdog.unref();

// ---------------------------------------------------------------------------------------------
// setup

const fake = await startFakeGooglePlaces();
const newQueries = Math.ceil(SEARCHES / NEW_QUERY_EVERY) + Math.ceil(WARMUP / NEW_QUERY_EVERY);
const locations = Array.from({ length: newQueries }, (_, index) => `Benchtown ${RUN} ${index}`);
for (const location of locations) {
  fake.setPlaces(
    `${category} in ${location}`,
    syntheticPlaces(60, { prefix: location.replaceAll(" ", "-") }),
  );
}

const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
const config = loadConfig({
  HOST: "127.0.0.1",
  PORT: "0",
  LOG_LEVEL: "silent",
  ADMIN_TOKEN,
  GOOGLE_PLACES_API_KEY: fake.apiKey,
  GOOGLE_PLACES_BASE_URL: fake.baseUrl,
  RATE_LIMIT_SEARCH_PER_MIN: "1000000",
  ...UNLIMITED_ABUSE_GUARDS,
  RATE_LIMIT_READ_PER_MIN: "1000000",
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: "memory://" }),
});
const services = await createServices(config, createLogger("silent", "bench"));
const app = await buildApp({ services });
// Server-side time per request: Fastify's own clock (`reply.elapsedTime`), from routing to the send.
// Fastify only starts that clock when a logger or an onResponse hook is present: hence the no-op.
app.addHook("onResponse", async () => {});
app.addHook("onSend", async (_request, reply) => {
  reply.header("server-timing", `app;dur=${reply.elapsedTime.toFixed(3)}`);
});
await app.listen({ host: config.host, port: 0 });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 4 });

async function call(
  method: "GET" | "POST",
  path: string,
  body: unknown,
  authorization: string,
): Promise<{ status: number; json: unknown; serverMs: number | null; roundTripMs: number }> {
  const start = performance.now();
  const response = await request(`${baseUrl}${path}`, {
    method,
    dispatcher,
    headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await response.body.json();
  const roundTripMs = performance.now() - start;
  const timing = String(response.headers["server-timing"] ?? "");
  const match = /app;dur=([\d.]+)/.exec(timing);
  return { status: response.statusCode, json, serverMs: match ? Number(match[1]) : null, roundTripMs };
}

async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await call("POST", path, body, `Bearer ${ADMIN_TOKEN}`);
  if (response.status !== 201)
    throw new Error(`${path}: ${response.status} ${JSON.stringify(response.json)}`);
  return response.json as Record<string, unknown>;
}

const workspace = await admin("/admin/workspaces", { name: `Search bench ${RUN}` });
const workspaceId = String(workspace.id);
const member = await admin(`/admin/workspaces/${workspaceId}/members`, { email: `bench-${RUN}@agency.test` });
const apiKey = await admin(`/admin/workspaces/${workspaceId}/api-keys`, {
  name: "bench",
  created_by: member.id,
});
const auth = `Bearer ${String(apiKey.key)}`;
await admin(`/admin/workspaces/${workspaceId}/credit-purchases`, { credits: 100_000 });

const provider: PlacesProvider = createGooglePlacesProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl });

// ---------------------------------------------------------------------------------------------
// the plan: which query each search asks, new or repeated

/** Deterministic pseudo-random numbers (mulberry32), so every run asks the same mix. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(20_260_101);
let nextNew = 0;
function plan(count: number): { location: string; fresh: boolean }[] {
  const steps: { location: string; fresh: boolean }[] = [];
  for (let index = 0; index < count; index++) {
    if (index % NEW_QUERY_EVERY === 0 || nextNew === 0) {
      steps.push({ location: locations[nextNew++]!, fresh: true });
    } else {
      steps.push({ location: locations[Math.floor(random() * nextNew)]!, fresh: false });
    }
  }
  return steps;
}

async function timeSearch(location: string) {
  const response = await call(
    "POST",
    "/v1/searches",
    { queries: [{ location, category }], max_results: MAX_RESULTS },
    auth,
  );
  const body = response.json as { results?: unknown[]; credits_spent?: number };
  if (response.status !== 200 || body.results?.length !== MAX_RESULTS) {
    throw new Error(`search failed: ${response.status} ${JSON.stringify(response.json).slice(0, 300)}`);
  }
  return { ...response, creditsSpent: body.credits_spent ?? 0 };
}

/** The provider calls one such search makes: pages until 25 places (20 + 5: two requests). */
async function timeProvider(location: string): Promise<number> {
  const start = performance.now();
  let found = 0;
  for await (const page of provider.searchText({ textQuery: `${category} in ${location}` })) {
    found += page.length;
    if (found >= MAX_RESULTS) break;
  }
  const elapsed = performance.now() - start;
  if (found < MAX_RESULTS) throw new Error(`provider found only ${found} places`);
  return elapsed;
}

// ---------------------------------------------------------------------------------------------
// run

for (const step of plan(WARMUP)) {
  await timeSearch(step.location);
  await timeProvider(step.location);
}

const server: number[] = [];
const serverNew: number[] = [];
const serverRepeat: number[] = [];
const roundTrip: number[] = [];
const providerAlone: number[] = [];
let creditsSpent = 0;
let freshCount = 0;
const measured = plan(SEARCHES);
let stoppedEarly = false;
for (const [index, step] of measured.entries()) {
  if (index >= 10 && performance.now() - startedAt > BUDGET_SECONDS * 1000) {
    stoppedEarly = true;
    break;
  }
  // Alternate which goes first so that neither always runs on a warmer connection or cache.
  if (index % 2 === 1) providerAlone.push(await timeProvider(step.location));
  const result = await timeSearch(step.location);
  if (index % 2 === 0) providerAlone.push(await timeProvider(step.location));
  if (result.serverMs === null) throw new Error("no Server-Timing header on the search response");
  server.push(result.serverMs);
  (step.fresh ? serverNew : serverRepeat).push(result.serverMs);
  roundTrip.push(result.roundTripMs);
  creditsSpent += result.creditsSpent;
  if (step.fresh) freshCount += 1;
  if (result.creditsSpent !== (step.fresh ? MAX_RESULTS : 0)) {
    throw new Error(`search ${index} spent ${result.creditsSpent} credits, expected ${step.fresh ? 25 : 0}`);
  }
}

// ---------------------------------------------------------------------------------------------
// report

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}
const ms = (value: number) => `${value.toFixed(2)} ms`;
const line = (label: string, values: number[]) =>
  `${label.padEnd(58)} p50 ${ms(percentile(values, 50)).padStart(10)}   p99 ${ms(percentile(values, 99)).padStart(10)}   (n=${values.length})`;

const searchP50 = percentile(server, 50);
const providerP50 = percentile(providerAlone, 50);
const overhead = searchP50 - providerP50;
const ratio = searchP50 / providerP50;

console.log(
  `search bench: POST /v1/searches over HTTP, ${server.length} searches (after ${WARMUP} warm-up), 1 query each, max_results ${MAX_RESULTS}, no live filters`,
);
if (stoppedEarly) {
  console.log(
    `note: stopped after ${server.length} of ${SEARCHES} searches to stay within the ${BUDGET_SECONDS} s budget (--seconds to change)`,
  );
}
console.log(
  `database: ${databaseUrl ? "PostgreSQL (DATABASE_URL)" : "embedded PGlite, in memory"}; places: fake Google Places over HTTP on 127.0.0.1, no added latency`,
);
console.log(
  `mix: ${freshCount} searches found new places (${MAX_RESULTS} new leads charged and saved each), ${server.length - freshCount} repeated an earlier query (already-charged places, 0 credits); ${creditsSpent} credits spent`,
);
console.log(line("search, server time (Fastify reply.elapsedTime)", server));
console.log(line("  of which new places", serverNew));
console.log(line("  of which repeats", serverRepeat));
console.log(line("search, client round trip (HTTP, for reference)", roundTrip));
console.log(line("provider alone (same calls: 2 pages, direct to the fake)", providerAlone));
console.log(
  `aim: the service adds at most ${AIM_MS} ms at p50 -> ${overhead <= AIM_MS ? "met" : "NOT met"} (${ms(overhead)})`,
);
console.log(`total bench time: ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
console.log(`search overhead p50: ${overhead.toFixed(2)} ms (ratio ${ratio.toFixed(2)})`);

await app.close();
await dispatcher.close();
await services.close();
await fake.close();
