/**
 * GET /v1/leads through the whole app next to a bare Fastify route running the same SQL.
 *
 *   node bench/leads-list.bench.ts [--seconds S] [--rounds R] [--connections C] [--only app,bare]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres (the default)
 *
 * On the machine's PostgreSQL it creates a database of its own (dropped at the end), with
 * autovacuum off on the lead tables so that the planner never has fresh statistics, and seeds one
 * workspace of 10,000 leads (25 per added_at, as a search saves them) with their places. It prints
 * the plan of the list query as it runs right after seeding, without ANALYZE, and for contrast the
 * plan of the plain join the query used to be.
 *
 * The servers run in a child process (this file with --serve), the load in this one, so that the
 * two share the machine's two cores instead of one event loop:
 * - app: GET /v1/leads?limit=25 on the app as deployed (buildApp + createServices on PostgreSQL):
 *   authentication, rate limit, validation, the repository function, response serialisation;
 * - bare: a Fastify instance with one route that runs the same compiled SQL on its own pg pool of
 *   the same size and returns the rows.
 * Between the two, where the rest goes: a ladder of routes on a second bare Fastify instance, each
 * adding one piece of the app's path to the one before, so that each rung's loss of throughput is
 * that piece's cost: the operation's repository work (`listLeads` through the app's Kysely and
 * guarded pool: the page, its contact addresses, the do-not-contact list), then the key check
 * (the API key looked up by hash), then the rate limiter (the read bucket, in memory as in a
 * single node without Redis), then validation (the zod querystring schema and the operation's own
 * input parse), then serialisation (the zod response schema); the app's remaining hooks (metrics,
 * request id, cross-origin, unmatched-route and admin guards, rate-limit headers) are what the whole
 * app loses after the last rung.
 * Each round measures every target for S seconds, in alternating order, with C keep-alive
 * connections each looping one request at a time (undici). Requests per second and p99 latency of
 * each, the ratio app / bare (aim: at least 0.6) and each piece's time per request and share.
 * `--only app,bare` measures only those targets (for example to profile one side).
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Fastify, { type FastifyRequest } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { sql } from "kysely";
import pg from "pg";
import { Agent, request } from "undici";
import { buildApp } from "../api/app.ts";
import { createServices, type Services } from "../api/services.ts";
import { bearerTokenOf, type Principal } from "../shared/auth.ts";
import { loadConfig } from "../shared/config.ts";
import { leadPageQuery } from "../shared/leads/leads.ts";
import { createLogger } from "../shared/logger.ts";
import { listLeadsOperation } from "../shared/operations/list-leads.ts";
import { admit, type Caller, perform } from "../shared/operations/operation.ts";

const { values: cli } = parseArgs({
  options: {
    serve: { type: "string" },
    seconds: { type: "string" },
    rounds: { type: "string" },
    connections: { type: "string" },
    only: { type: "string" },
  },
});

const LEADS = 10_000;
const PAGE = 25;
const POOL_SIZE = 10;

/** The ladder's rungs (`ladderRoutes`), in order: each adds its piece to the one before. */
const RUNGS = [
  { target: "repository", piece: "repository (listLeads via Kysely: page, addresses, do-not-contact)" },
  { target: "key", piece: "key check (API key looked up by hash)" },
  { target: "limiter", piece: "rate limiter (read bucket, memory)" },
  { target: "validation", piece: "validation (zod querystring + operation input)" },
  { target: "serialisation", piece: "serialisation (zod response schema)" },
] as const;
type RungTarget = (typeof RUNGS)[number]["target"];

/** What the server process tells the load process once it listens. */
interface Ready {
  appUrl: string;
  bareUrl: string;
  /** The ladder's rungs, each adding one piece to the one before (see `ladderRoutes`). */
  rungs: { target: RungTarget; url: string }[];
  authorization: string;
  plans: { label: string; lines: string[] }[];
}

if (cli.serve) {
  await serve(cli.serve);
} else {
  await measure();
}

// ---------------------------------------------------------------------------------------------
// the server process

async function serve(databaseUrl: string): Promise<void> {
  const adminToken = `bench-admin-${randomUUID()}`;
  const config = loadConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    ADMIN_TOKEN: adminToken,
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_READ_PER_MIN: "100000000",
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
  });
  const services = await createServices(config, createLogger("silent", "bench"));
  const app = await buildApp({ services });
  const db = services.db;

  const admin = async (url: string, payload: object) => {
    const response = await app.inject({
      method: "POST",
      url,
      headers: { authorization: `Bearer ${adminToken}` },
      payload,
    });
    if (response.statusCode !== 201) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json() as Record<string, string>;
  };
  const workspace = await admin("/admin/workspaces", { name: "Leads list bench" });
  const member = await admin(`/admin/workspaces/${workspace.id}/members`, { email: "bench@agency.test" });
  const key = await admin(`/admin/workspaces/${workspace.id}/api-keys`, {
    name: "bench",
    created_by: member.id,
  });
  const workspaceId = String(workspace.id);

  // No statistics, ever, on the tables the query reads: the state right after a bulk insert.
  await sql`alter table leads set (autovacuum_enabled = off)`.execute(db);
  await sql`alter table places set (autovacuum_enabled = off)`.execute(db);
  await sql`
    insert into places (place_id, name, category, address, website, country, rating, user_rating_count)
    select 'bench-place-' || i, 'Business ' || i, 'Plumber', i || ' Main Street, Ottawa',
           'https://business-' || i || '.example', 'CA', 4.2, 25
    from generate_series(1, ${LEADS}) as i`.execute(db);
  await sql`
    insert into leads (workspace_id, place_id, added_at)
    select ${workspaceId}::uuid, 'bench-place-' || i,
           timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => i / 25)
    from generate_series(1, ${LEADS}) as i`.execute(db);

  // The SQL the app runs for the first page (limit + 1 rows: the route asks one more).
  const compiled = leadPageQuery(workspaceId, { limit: PAGE + 1, after: null }).compile(db);
  // EXPLAIN needs the values bound as the app binds them: through pg, on the same SQL text.
  const planClient = new pg.Client({ connectionString: databaseUrl });
  await planClient.connect();
  const planOf = async (text: string, values: readonly unknown[]) => {
    const result = await planClient.query<{ "QUERY PLAN": string }>(
      `explain (analyze, buffers off, costs off, summary on) ${text}`,
      [...values],
    );
    return result.rows.map((row) => row["QUERY PLAN"]);
  };
  const plans = [
    {
      label: "the list query (a walk down the leads_page index, one lead and its place a step)",
      lines: await planOf(compiled.sql, compiled.parameters),
    },
    {
      label: "for contrast, the plain join it replaced",
      lines: await planOf(
        `select leads.id, leads.place_id, places.name, places.category, places.address, places.website,
                leads.email, leads.outreach_status, leads.added_at
         from leads inner join places on places.place_id = leads.place_id
         where leads.workspace_id = $1 order by leads.added_at desc, leads.id desc limit $2`,
        [workspaceId, PAGE + 1],
      ),
    },
    {
      label: "for contrast, a LIMIT subquery on leads, then their places (still planner-dependent)",
      lines: await planOf(
        `select page.id, page.place_id, places.name, places.category, places.address, places.website,
                page.email, page.outreach_status, page.added_at
         from (select * from leads where workspace_id = $1 order by added_at desc, id desc limit $2) as page
         inner join places on places.place_id = page.place_id
         order by page.added_at desc, page.id desc`,
        [workspaceId, PAGE + 1],
      ),
    },
  ];
  await planClient.end();

  // The baseline: the same SQL, nothing around it.
  const barePool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE });
  const bare = Fastify();
  bare.get("/leads", async () => (await barePool.query(compiled.sql, [...compiled.parameters])).rows);

  const ladder = ladderRoutes(services, workspaceId);

  await app.listen({ host: "127.0.0.1", port: 0 });
  await bare.listen({ host: "127.0.0.1", port: 0 });
  await ladder.listen({ host: "127.0.0.1", port: 0 });
  const origin = (server: { address(): AddressInfo | string | null }) =>
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ready: Ready = {
    appUrl: `${origin(app.server)}/v1/leads?limit=${PAGE}`,
    bareUrl: `${origin(bare.server)}/leads`,
    rungs: RUNGS.map(({ target }) => ({ target, url: `${origin(ladder.server)}/${target}?limit=${PAGE}` })),
    authorization: `Bearer ${key.key}`,
    plans,
  };
  process.send?.(ready);
  await new Promise<void>((resolve) => process.once("message", () => resolve()));
  await bare.close();
  await ladder.close();
  await barePool.end();
  await app.close();
  await services.close();
}

// ---------------------------------------------------------------------------------------------
// the ladder: the app's path one piece at a time

/**
 * One bare Fastify instance whose routes each add one piece of GET /v1/leads to the previous
 * route: the difference in throughput between two rungs is that piece's cost.
 */
function ladderRoutes(services: Services, workspaceId: string) {
  const ladder = Fastify().withTypeProvider<ZodTypeProvider>();
  ladder.setValidatorCompiler(validatorCompiler);
  ladder.setSerializerCompiler(serializerCompiler);
  const operation = listLeadsOperation;
  const fixed: Principal = {
    workspaceId,
    rateLimitId: "ladder",
    kind: "api_key",
    spender: { kind: "api_key", id: "ladder" },
  };
  const caller = (principal: Principal): Caller => ({ principal, logger: ladder.log, services });
  const verified = async (request: FastifyRequest) => {
    const token = bearerTokenOf(request.headers.authorization ?? "");
    const verifier = services.bearerVerifiers.find((each) => token !== null && each.accepts(token));
    const principal = token && verifier ? await verifier.verify(token) : null;
    if (!principal) throw new Error("the ladder's key was refused");
    return principal;
  };
  const input = { limit: PAGE, cursor: undefined };

  ladder.get("/repository", async () => operation.run(caller(fixed), input));
  ladder.get("/key", async (request) => operation.run(caller(await verified(request)), input));
  ladder.get("/limiter", async (request) => {
    const principal = await verified(request);
    await admit(operation, principal, services.rateLimiter);
    return operation.run(caller(principal), input);
  });
  ladder.get("/validation", { schema: { querystring: operation.input } }, async (request) => {
    const principal = await verified(request);
    const admission = await admit(operation, principal, services.rateLimiter);
    return perform(operation, caller(principal), admission, request.query);
  });
  ladder.get(
    "/serialisation",
    { schema: { querystring: operation.input, response: { 200: operation.output } } },
    async (request) => {
      const principal = await verified(request);
      const admission = await admit(operation, principal, services.rateLimiter);
      return perform(operation, caller(principal), admission, request.query);
    },
  );
  return ladder;
}

// ---------------------------------------------------------------------------------------------
// the load process

async function measure(): Promise<void> {
  const seconds = Math.max(1, Number(cli.seconds ?? 2));
  const rounds = Math.max(1, Number(cli.rounds ?? 8));
  const connections = Math.max(1, Number(cli.connections ?? 8));
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = `lead_api_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${database}`;

  const watchdog = setTimeout(() => {
    console.error("leads list bench: gave up after 300 s");
    process.exit(1);
  }, 300_000);
  watchdog.unref();

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  let server: ChildProcess | undefined;
  try {
    server = fork(fileURLToPath(import.meta.url), ["--serve", databaseUrl.toString()], { stdio: "inherit" });
    const child = server;
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once("message", (message) => resolve(message as Ready));
      child.once("exit", (code) =>
        reject(new Error(`the server process exited (${code}) before it was ready`)),
      );
    });

    console.log(
      `leads list bench: GET /v1/leads?limit=${PAGE} in a workspace of ${LEADS.toLocaleString("en")} leads, PostgreSQL (own database, no ANALYZE, autovacuum off)`,
    );
    for (const plan of ready.plans) {
      console.log(`plan right after seeding, ${plan.label}:`);
      for (const line of plan.lines) console.log(`    ${line}`);
    }

    const dispatcher = new Agent({ connections, keepAliveTimeout: 30_000 });
    const withKey = { authorization: ready.authorization };
    const allTargets = [
      { target: "bare", url: ready.bareUrl, headers: {} },
      ...ready.rungs.map((rung) => ({ ...rung, headers: withKey })),
      { target: "app", url: ready.appUrl, headers: withKey },
    ];
    const only = cli.only?.split(",").map((name) => name.trim());
    const targets = allTargets.filter((each) => !only || only.includes(each.target));
    const results = new Map(
      targets.map((each) => [each.target, { requests: 0, ms: 0, latencies: [] as number[] }]),
    );

    const run = async (target: (typeof targets)[number], durationMs: number, record: boolean) => {
      const { url, headers } = target;
      const latencies: number[] = [];
      const started = performance.now();
      const end = started + durationMs;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < end) {
            const sent = performance.now();
            const response = await request(url, { dispatcher, headers });
            const body = await response.body.text();
            latencies.push(performance.now() - sent);
            if (response.statusCode !== 200)
              throw new Error(`${target.target}: ${response.statusCode} ${body.slice(0, 200)}`);
          }
        }),
      );
      const elapsed = performance.now() - started;
      const result = results.get(target.target);
      if (!record || !result) return;
      result.requests += latencies.length;
      result.ms += elapsed;
      result.latencies.push(...latencies);
    };

    // Every target answers the same page: check once, then warm each up.
    const pageOf = async (target: (typeof allTargets)[number]) => {
      const json = JSON.parse(
        await (await request(target.url, { dispatcher, headers: target.headers })).body.text(),
      ) as { id: string }[] | { leads: { id: string }[] };
      return Array.isArray(json) ? json.slice(0, PAGE) : json.leads;
    };
    const expected = (await pageOf(allTargets[0]!)).map((lead) => lead.id).join();
    for (const target of allTargets) {
      if ((await pageOf(target)).map((lead) => lead.id).join() !== expected)
        throw new Error(`${target.target} does not answer the same page as the bare route`);
    }
    for (const target of targets) await run(target, 1_000, false);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) await run(target, seconds * 1000, true);
    }
    await dispatcher.close();

    const percentile = (values: number[], p: number) => {
      const sorted = [...values].sort((a, b) => a - b);
      return (
        sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ??
        Number.NaN
      );
    };
    const figures = new Map(
      [...results].map(([target, { requests, ms, latencies }]) => [
        target,
        {
          rps: (requests * 1000) / ms,
          /** The machine's time per request at this load: what each piece adds is read from it. */
          msPerRequest: ms / requests,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          requests,
        },
      ]),
    );
    console.log(
      `load: ${connections} keep-alive connections, one request at a time each; ${rounds} rounds of ${seconds} s per target, alternating order; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    const labels: Record<string, string> = {
      bare: "bare (Fastify route, same SQL, same pool size)",
      ...Object.fromEntries(RUNGS.map((rung) => [rung.target, `  + ${rung.piece}`])),
      app: "app  (GET /v1/leads as deployed)",
    };
    for (const [target, value] of figures) {
      console.log(
        `${(labels[target] ?? target).padEnd(72)} ${value.rps.toFixed(0).padStart(6)} req/s   p50 ${value.p50.toFixed(2)} ms   p99 ${value.p99.toFixed(2)} ms   (n=${value.requests})`,
      );
    }
    const app = figures.get("app");
    const bare = figures.get("bare");
    if (!app || !bare) return;
    const ratio = app.rps / bare.rps;
    console.log(`aim: app / bare throughput at least 0.6 -> ${ratio >= 0.6 ? "met" : "NOT met"}`);
    // Each piece: its rung's time per request minus the previous rung's; the app's hooks are the rest.
    const steps = [...RUNGS.map((rung) => rung.target), "app"];
    const gap = app.msPerRequest - bare.msPerRequest;
    let previous = bare.msPerRequest;
    const shares: string[] = [];
    for (const target of steps) {
      const current = figures.get(target)?.msPerRequest;
      if (current === undefined) continue;
      const added = current - previous;
      const name = target === "app" ? "app hooks" : target;
      shares.push(`${name} ${(added * 1000).toFixed(0)} us (${Math.round((added / gap) * 100)}%)`);
      previous = current;
    }
    console.log(
      `leads list throughput ratio (app / bare): ${ratio.toFixed(2)} (${app.rps.toFixed(0)} / ${bare.rps.toFixed(0)} req/s); p99 app ${app.p99.toFixed(2)} ms vs bare ${bare.p99.toFixed(2)} ms; where the ${(gap * 1000).toFixed(0)} us per request go: ${shares.join(", ")}`,
    );
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once("exit", resolve));
      server.send("stop");
      await exited;
    }
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}
