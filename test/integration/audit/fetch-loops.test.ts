/**
 * The audit stack on fetch loops (AUDIT_FETCH_LOOPS, shared/audit/fetch-loops.ts), over real HTTP
 * and a DNS server on loopback: the audits are those of the stack fetching on its own event loop,
 * field for field, each stored in the cache; the per-IP limit holds across the loops.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditStack, createAuditStack } from "../../../shared/audit/audit-stack.ts";
import { readCurrentAudits } from "../../../shared/audit/cache.ts";
import { loopOf } from "../../../shared/audit/fetch-loops.ts";
import { loadConfig } from "../../../shared/config.ts";
import { createMetrics } from "../../../shared/metrics.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { type FakeDnsServer, startFakeDns } from "../../support/fake-dns.ts";
import { MODERN_HOMEPAGE, OLD_HOMEPAGE } from "../../support/fake-sites.ts";

const HOSTS = Array.from({ length: 6 }, (_, index) => `shop-${index}.loops.test`);
let database: TestDatabase;
let dns: FakeDnsServer;
let server: Server;
let port: number;
let inFlight = 0;
let mostInFlight = 0;
const stacks: AuditStack[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  dns = await startFakeDns(Object.fromEntries(HOSTS.map((host) => [host, { A: ["127.0.0.1"] }])));
  server = createServer((request, response) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const old = (request.headers.host ?? "").startsWith("shop-0") || (request.url ?? "").includes("old");
    setTimeout(() => {
      inFlight -= 1;
      response
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(old ? OLD_HOMEPAGE : MODERN_HOMEPAGE);
    }, 300);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const stack of stacks) await stack.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await dns?.close();
  await database?.close();
});

function stackWith(fetchLoops: number): AuditStack {
  const config = loadConfig({
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    AUDIT_FETCH_LOOPS: String(fetchLoops),
    AUDIT_FETCHES_PER_IP: "2",
    AUDIT_THREADS: "2",
    DNS_SERVERS: dns.address,
    LOG_LEVEL: "silent",
  });
  const stack = createAuditStack(config, {
    db: database.db,
    metrics: createMetrics({ defaultMetrics: false }),
  });
  stacks.push(stack);
  return stack;
}

describe("fetch loops", () => {
  it("give the same audits as fetching on the process's own loop, hold an IP to its limit across loops, and store each", async () => {
    const urls = HOSTS.map((host, index) => `http://${host}:${port}/${index % 2 ? "old" : "new"}`);
    // The six hosts are spread over both loops.
    expect(new Set(urls.map((url) => loopOf({ url }, 2)))).toEqual(new Set([0, 1]));

    const onLoops = stackWith(2);
    expect(onLoops.fetchLoops).toBe(2);
    expect(onLoops.analysisThreads).toBe(2);
    mostInFlight = 0;
    const looped = await Promise.all(
      urls.map((url, index) => onLoops.run({ placeId: `loops-${index}`, url, country: "CA" })),
    );
    // Six sites on one address, AUDIT_FETCHES_PER_IP=2: never more than two requests at once.
    expect(mostInFlight).toBe(2);

    const alone = stackWith(0);
    expect(alone.fetchLoops).toBe(0);
    const local = await Promise.all(
      urls.map((url, index) => alone.run({ placeId: `alone-${index}`, url, country: "CA" })),
    );
    const comparable = (audit: (typeof looped)[number]) => ({ ...audit, place_id: "", audited_at: null });
    expect(looped.map(comparable)).toEqual(local.map(comparable));
    expect(looped.map((audit) => audit.outcome)).toEqual(Array(6).fill("ok"));
    expect(looped.filter((audit) => audit.signals.not_mobile_friendly).length).toBe(4);
    expect(looped[0]?.signals.no_https).toBe(true);
    expect(looped[0]?.audited_at).toBeInstanceOf(Date);

    const stored = await readCurrentAudits(
      database.db,
      looped.map((audit) => ({ placeId: audit.place_id, website: audit.url })),
    );
    expect([...stored.values()].map(comparable)).toEqual(looped.map(comparable));

    const usage = await onLoops.usage();
    expect(usage).toMatchObject({ fetchesInFlight: 0, fetchesWaiting: 0, memoryBytes: 0 });
    expect(usage.memoryLimitBytes).toBe(256 * 1024 * 1024);
  });
});
