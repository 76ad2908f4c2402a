/**
 * The scheduled OAuth clean-up (shared/oauth/cleanup.ts), measured: what a flood of
 * unauthenticated registrations and consent requests leaves, and how long deleting it takes.
 *
 *   node bench/oauth-cleanup.bench.ts [--rows N]
 *
 * On embedded in-memory PGlite: inserts N never-approved clients a day old, each with one stale
 * consent request, plus N approved clients that must stay; times the inserts (the baseline: what
 * the flood itself cost the database) and then one clean-up run, and checks what is left.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { createDatabase } from "../shared/db/database.ts";
import { migrateToLatest } from "../shared/db/migrate.ts";
import { cleanUpOAuth } from "../shared/oauth/cleanup.ts";

const { values: cli } = parseArgs({ options: { rows: { type: "string" } } });
const ROWS = Math.max(100, Number(cli.rows ?? 5000));
const BATCH = 500;

const db = await createDatabase({ kind: "pglite", dataDir: "memory://" });
await migrateToLatest(db);
const now = new Date();
const dayAgo = new Date(now.getTime() - 25 * 3600_000);

const workspace = await db
  .insertInto("workspaces")
  .values({ name: "bench", language: "en", balance: 10, free_trial: true })
  .returning("id")
  .executeTakeFirstOrThrow();
const member = await db
  .insertInto("members")
  .values({ workspace_id: workspace.id, email: "bench@agency.test" })
  .returning("id")
  .executeTakeFirstOrThrow();
const key = await db
  .insertInto("api_keys")
  .values({
    workspace_id: workspace.id,
    name: "bench",
    key_hash: randomUUID(),
    key_prefix: "ldk_bench",
    created_by: member.id,
  })
  .returning("id")
  .executeTakeFirstOrThrow();

const insertStarted = performance.now();
const keptClients: string[] = [];
for (let offset = 0; offset < ROWS; offset += BATCH) {
  const size = Math.min(BATCH, ROWS - offset);
  const unused = Array.from({ length: size }, () => `unused-${randomUUID()}`);
  const kept = Array.from({ length: size }, () => `kept-${randomUUID()}`);
  keptClients.push(...kept);
  const client = (id: string) => ({
    id,
    client_name: "Flood client",
    redirect_uris: JSON.stringify(["https://flood.example/cb"]),
    scope: "email profile",
    created_at: dayAgo,
  });
  await db
    .insertInto("oauth_clients")
    .values([...unused, ...kept].map(client))
    .execute();
  await db
    .insertInto("oauth_authorization_requests")
    .values(
      unused.map((clientId) => ({
        client_id: clientId,
        redirect_uri: "https://flood.example/cb",
        scope: "email profile",
        state: null,
        code_challenge: "a".repeat(43),
        resource: null,
        csrf_token_hash: randomUUID(),
        browser_binding_hash: randomUUID(),
        created_at: dayAgo,
        expires_at: new Date(dayAgo.getTime() + 600_000),
      })),
    )
    .execute();
  await db
    .insertInto("oauth_grants")
    .values(
      kept.map((clientId) => ({
        client_id: clientId,
        workspace_id: workspace.id,
        approved_with_api_key_id: key.id,
        scope: "email profile",
        resource: null,
        created_at: dayAgo,
      })),
    )
    .execute();
}
const insertMs = performance.now() - insertStarted;

const cleanupStarted = performance.now();
const removed = await cleanUpOAuth(db, { unusedClientTtlSeconds: 24 * 3600 }, now);
const cleanupMs = performance.now() - cleanupStarted;

const left = await db
  .selectFrom("oauth_clients")
  .select((eb) => eb.fn.countAll<string>().as("n"))
  .executeTakeFirstOrThrow();
await db.destroy();

if (removed.clients !== ROWS || removed.authorizationRequests !== ROWS || Number(left.n) !== ROWS) {
  console.error(`oauth clean-up: wrong rows removed ${JSON.stringify(removed)}, ${left.n} clients left`);
  process.exit(1);
}
console.log(
  `flood inserted (baseline): ${ROWS} unused clients + ${ROWS} stale requests + ${ROWS} kept, ${insertMs.toFixed(0)} ms`,
);
console.log(
  `clean-up: removed ${removed.clients} clients and ${removed.authorizationRequests} requests in ${cleanupMs.toFixed(0)} ms` +
    ` (${((2 * ROWS) / (cleanupMs / 1000)).toFixed(0)} rows/s; ${(cleanupMs / insertMs).toFixed(2)}x the insert time), kept ${left.n}`,
);
