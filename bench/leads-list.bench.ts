/**
 * GET /v1/leads through the whole app next to a bare Fastify route running the same SQL.
 *
 *   node bench/leads-list.bench.ts [--seconds S] [--rounds R] [--connections C]
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
 * Each round measures both for S seconds, in alternating order, with C keep-alive connections
 * each looping one request at a time (undici). Requests per second and p99 latency of each, and
 * the ratio app / bare. Aim: at least 0.6.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Fastify from "fastify";
import { sql } from "kysely";
import pg from "pg";
import { Agent, request } from "undici";
import { buildApp } from "../api/app.ts";
import { createServices } from "../api/services.ts";
import { loadConfig } from "../shared/config.ts";
import { leadPageQuery } from "../shared/leads/leads.ts";
import { createLogger } from "../shared/logger.ts";

const { values: cli } = parseArgs({
  options: {
    serve: { type: "string" },
    seconds: { type: "string" },
    rounds: { type: "string" },
    connections: { type: "string" },
  },
});

const LEADS = 10_000;
const PAGE = 25;
const POOL_SIZE = 10;

/** What the server process tells the load process once it listens. */
interface Ready {
  appUrl: string;
  bareUrl: string;
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

  await app.listen({ host: "127.0.0.1", port: 0 });
  await bare.listen({ host: "127.0.0.1", port: 0 });
  const origin = (server: { address(): AddressInfo | string | null }) =>
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ready: Ready = {
    appUrl: `${origin(app.server)}/v1/leads?limit=${PAGE}`,
    bareUrl: `${origin(bare.server)}/leads`,
    authorization: `Bearer ${key.key}`,
    plans,
  };
  process.send?.(ready);
  await new Promise<void>((resolve) => process.once("message", () => resolve()));
  await bare.close();
  await barePool.end();
  await app.close();
  await services.close();
}

// ---------------------------------------------------------------------------------------------
// the load process

async function measure(): Promise<void> {
  const seconds = Math.max(1, Number(cli.seconds ?? 5));
  const rounds = Math.max(1, Number(cli.rounds ?? 3));
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
    const targets = {
      app: { url: ready.appUrl, headers: { authorization: ready.authorization } },
      bare: { url: ready.bareUrl, headers: {} },
    };
    type Target = keyof typeof targets;
    const results: Record<Target, { requests: number; ms: number; latencies: number[] }> = {
      app: { requests: 0, ms: 0, latencies: [] },
      bare: { requests: 0, ms: 0, latencies: [] },
    };

    const run = async (target: Target, durationMs: number, record: boolean) => {
      const { url, headers } = targets[target];
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
              throw new Error(`${target}: ${response.statusCode} ${body.slice(0, 200)}`);
          }
        }),
      );
      const elapsed = performance.now() - started;
      if (!record) return;
      results[target].requests += latencies.length;
      results[target].ms += elapsed;
      results[target].latencies.push(...latencies);
    };

    // Both answer the same page: check once, then warm both up.
    const first = JSON.parse(
      (await (
        await request(ready.appUrl, { dispatcher, headers: targets.app.headers })
      ).body.text()) as string,
    ) as { leads: { id: string }[] };
    const baseline = JSON.parse(await (await request(ready.bareUrl, { dispatcher })).body.text()) as {
      id: string;
    }[];
    if (first.leads.length !== PAGE || first.leads[0]?.id !== baseline[0]?.id) {
      throw new Error("the app and the bare route do not answer the same page");
    }
    await run("app", 2_000, false);
    await run("bare", 2_000, false);
    for (let round = 0; round < rounds; round++) {
      const order: Target[] = round % 2 === 0 ? ["app", "bare"] : ["bare", "app"];
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
    const figures = (target: Target) => {
      const { requests, ms, latencies } = results[target];
      return {
        rps: (requests * 1000) / ms,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        requests,
      };
    };
    const app = figures("app");
    const bare = figures("bare");
    console.log(
      `load: ${connections} keep-alive connections, one request at a time each; ${rounds} rounds of ${seconds} s per side, alternating order`,
    );
    for (const [label, value] of [
      ["app  (GET /v1/leads: auth, rate limit, validation, serialisation)", app],
      ["bare (Fastify route, same SQL, same pool size)", bare],
    ] as const) {
      console.log(
        `${label.padEnd(68)} ${value.rps.toFixed(0).padStart(6)} req/s   p50 ${value.p50.toFixed(2)} ms   p99 ${value.p99.toFixed(2)} ms   (n=${value.requests})`,
      );
    }
    const ratio = app.rps / bare.rps;
    console.log(`aim: app / bare throughput at least 0.6 -> ${ratio >= 0.6 ? "met" : "NOT met"}`);
    console.log(
      `leads list throughput ratio (app / bare): ${ratio.toFixed(2)}; p99 app ${app.p99.toFixed(2)} ms vs bare ${bare.p99.toFixed(2)} ms`,
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
