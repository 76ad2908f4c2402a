/**
 * Whether a lead's address can receive mail, from DNS only, against a DNS server on loopback the
 * test starts (test/support/fake-dns.ts): each verdict, the day-long cache of one lookup per
 * domain, a DNS that never answers giving `unknown`; then end to end, a live-check search whose
 * every lookup (homepage fetches and mail checks) goes to that server through DNS_SERVERS, with
 * the address's provenance kept across two audits.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnalysisPool } from "../../../shared/audit/analysis-pool.ts";
import { createEmailStatusCheck } from "../../../shared/audit/email-status.ts";
import { createCachingResolver } from "../../../shared/audit/fetch-homepage.ts";
import { createAuditRunner } from "../../../shared/audit/run-audit.ts";
import { createDnsResolver } from "../../../shared/dns-resolver.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { type FakeDnsServer, startFakeDns } from "../../support/fake-dns.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

let dns: FakeDnsServer;

const ZONE = {
  "maple-plumbing.ca": { A: ["127.0.0.1"], MX: [{ exchange: "mail.maple-plumbing.ca", priority: 10 }] },
  // No MX, an address record: its implicit MX.
  "implicit-mx.ca": { A: ["192.0.2.10"] },
  "aaaa-only.ca": { AAAA: ["2001:db8::10"] },
  "other-firm.ca": { MX: [{ exchange: "mx.other-firm.ca", priority: 5 }] },
  "gmail.com": { MX: [{ exchange: "gmail-smtp-in.l.google.com", priority: 5 }] },
  // RFC 7505: one MX, preference 0, the root as exchange.
  "null-mx.ca": { MX: [{ exchange: "", priority: 0 }], A: ["192.0.2.20"] },
  // The name exists, with no mail or address records.
  "no-records.ca": {},
  "broken-dns.ca": { servfail: ["MX" as const] },
  "silent-dns.ca": { hang: ["MX" as const, "A" as const, "AAAA" as const] },
};

beforeAll(async () => {
  dns = await startFakeDns(ZONE);
});
afterAll(async () => {
  await dns?.close();
});

function checker(options: { now?: () => number; timeoutMs?: number } = {}) {
  return createEmailStatusCheck({
    queries: createDnsResolver([dns.address], { timeoutMs: 300, tries: 1 }),
    ...options,
  });
}

describe("email status from DNS", () => {
  const WEBSITE = "https://www.maple-plumbing.ca/";

  it.each([
    ["an MX on the website's own domain", "info@maple-plumbing.ca", "deliverable", "own_domain"],
    ["a subdomain's address of the website's domain", "Info@Maple-Plumbing.ca", "deliverable", "own_domain"],
    ["an implicit MX (A record, no MX)", "info@implicit-mx.ca", "risky", "other_domain"],
    ["a free webmail", "maple.plumbing@gmail.com", "risky", "free_mail"],
    ["a domain not the website's", "info@other-firm.ca", "risky", "other_domain"],
    ["no such domain", "info@gone-away.ca", "undeliverable", "no_domain"],
    ["a null MX", "info@null-mx.ca", "undeliverable", "null_mx"],
    ["a domain with no mail or address records", "info@no-records.ca", "undeliverable", "no_mail"],
    ["a reserved name, never looked up", "info@plumbing.example", "undeliverable", "not_public"],
    ["a DNS failure (SERVFAIL)", "info@broken-dns.ca", "unknown", "dns_failed"],
  ])("%s: %s is %s (%s)", async (_case, email, status, reason) => {
    expect(await checker()(email, WEBSITE)).toEqual({ status, reason });
  });

  it("an implicit MX on the website's own domain, by A or AAAA, is deliverable", async () => {
    const check = checker();
    const own = { status: "deliverable", reason: "own_domain" };
    expect(await check("info@implicit-mx.ca", "https://implicit-mx.ca/")).toEqual(own);
    expect(await check("info@aaaa-only.ca", "http://www.aaaa-only.ca/")).toEqual(own);
  });

  it("a disposable domain is undeliverable without asking DNS", async () => {
    expect(await checker()("someone@mailinator.com", WEBSITE)).toEqual({
      status: "undeliverable",
      reason: "disposable",
    });
    expect(dns.count("mailinator.com")).toBe(0);
  });

  it("a DNS that never answers gives unknown by the check's deadline", async () => {
    const check = createEmailStatusCheck({
      // The resolver would wait far longer than the check: the check's own deadline decides.
      queries: createDnsResolver([dns.address], { timeoutMs: 60_000, tries: 1 }),
      timeoutMs: 200,
    });
    expect(await check("info@silent-dns.ca", WEBSITE)).toEqual({ status: "unknown", reason: "dns_failed" });
  });

  it("asks DNS once per domain a day, shares a lookup in flight, and does not keep a failure", async () => {
    let now = Date.parse("2026-11-24T08:00:00Z");
    const check = checker({ now: () => now });
    const before = dns.count("other-firm.ca", "MX");
    await Promise.all([check("a@other-firm.ca", WEBSITE), check("b@other-firm.ca", WEBSITE)]);
    await check("c@OTHER-FIRM.ca", WEBSITE);
    expect(dns.count("other-firm.ca", "MX") - before).toBe(1);
    now += 23 * 3600 * 1000;
    await check("d@other-firm.ca", WEBSITE);
    expect(dns.count("other-firm.ca", "MX") - before).toBe(1);
    now += 2 * 3600 * 1000;
    await check("e@other-firm.ca", WEBSITE);
    expect(dns.count("other-firm.ca", "MX") - before).toBe(2);

    const failures = dns.count("broken-dns.ca", "MX");
    expect((await check("a@broken-dns.ca", WEBSITE)).status).toBe("unknown");
    expect((await check("b@broken-dns.ca", WEBSITE)).status).toBe("unknown");
    expect(dns.count("broken-dns.ca", "MX") - failures).toBe(2);
  });
});

describe("a live-check search with DNS_SERVERS on a loopback DNS server", () => {
  let places: FakeGooglePlacesServer;
  let sites: FakeSitesServer;
  let t: TestApp;
  const BUDGET_MS = 10_000;

  const page = (email: string, extra = "") => `<!DOCTYPE html><html><head><title>Old</title></head>
<body><table width="900"><tr><td><font face="Arial">Welcome</font></td></tr></table>
<footer><p>Email: <a href="mailto:${email}">${email}</a></p>${extra}<p>&copy; 2012</p></footer></body></html>`;

  test.beforeAll(async ({ googlePlaces }) => {
    places = googlePlaces;
    sites = await startFakeSites();
    t = await startTestApp({
      ...places.env,
      AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
      DNS_SERVERS: dns.address,
      SEARCH_CHECK_BUDGET_MS: String(BUDGET_MS),
      RATE_LIMIT_SEARCH_PER_MIN: "1000",
      RATE_LIMIT_READ_PER_MIN: "1000",
    });
  });
  afterAll(async () => {
    await t?.close();
    await sites?.close();
  });
  beforeEach(() => {
    dns.setZone({
      ...ZONE,
      // The homepages' host names resolve only through the loopback DNS server.
      "silent-mail.ca": { A: ["127.0.0.1"], hang: ["MX", "AAAA"] },
    });
  });

  it("fetches homepages through it, checks each address, and keeps where and when it was found", async () => {
    const port = new URL(sites.origin).port;
    sites.set("/maple", {
      html: page("info@maple-plumbing.ca", "<p>Nous n'acceptons aucune sollicitation commerciale.</p>"),
    });
    sites.set("/silent", { html: page("info@silent-mail.ca") });
    const mapleSite = `http://maple-plumbing.ca:${port}/maple`;
    const silentSite = `http://silent-mail.ca:${port}/silent`;
    places.setPlaces("plumber in Dnsville", [
      googlePlace("dns-maple", mapleSite),
      googlePlace("dns-silent", silentSite),
    ]);
    const ws = await createWorkspace(t.app);

    const search = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: ws.auth,
      payload: {
        queries: [{ location: "Dnsville", category: "plumber" }],
        filters: { outdated_website: true },
        max_results: 5,
      },
    });
    expect(search.statusCode, search.body).toBe(200);
    const body = search.json() as {
      results: Array<{ id: string; place_id: string; email: string }>;
      truncated: boolean;
    };
    // Both homepages were checked within the budget, the one whose mail DNS never answers included.
    expect(body.truncated).toBe(false);
    expect(body.results.map((lead) => [lead.place_id, lead.email])).toEqual([
      ["dns-maple", "info@maple-plumbing.ca"],
      ["dns-silent", "info@silent-mail.ca"],
    ]);
    expect(dns.count("maple-plumbing.ca", "A")).toBeGreaterThan(0);
    expect(dns.count("silent-mail.ca", "A")).toBeGreaterThan(0);
    expect(dns.count("silent-mail.ca", "MX")).toBeGreaterThan(0);

    const detail = async (id: string) =>
      (await t.app.inject({ url: `/v1/leads/${id}`, headers: ws.auth })).json() as Record<string, unknown>;
    const [maple, silent] = body.results;
    const first = await detail(maple!.id);
    expect(first).toMatchObject({
      email: "info@maple-plumbing.ca",
      email_status: "deliverable",
      email_source: {
        url: mapleSite,
        found_in: "mailto",
        solicitation_refused: true,
      },
    });
    const source = first.email_source as { first_seen_at: string; last_seen_at: string };
    expect(source.first_seen_at).toBe(source.last_seen_at);
    expect(await detail(silent!.id)).toMatchObject({
      email_status: "unknown",
      email_source: { found_in: "mailto", solicitation_refused: false },
    });
    // Each audit keeps why its address got its status (the console shows it beside the status).
    const reasons = await t.database.db
      .selectFrom("site_audits")
      .select(["place_id", "evidence"])
      .where("place_id", "in", ["dns-maple", "dns-silent"])
      .orderBy("place_id")
      .execute();
    expect(reasons.map((row) => [row.place_id, row.evidence.email_status_reason])).toEqual([
      ["dns-maple", "own_domain"],
      ["dns-silent", "dns_failed"],
    ]);

    // The same homepage audited again a month later (the analysis pool, DNS through the loopback
    // server): the same address keeps its first sighting, the last one moves.
    const pool = createAnalysisPool({ threads: 1 });
    const resolver = createDnsResolver([dns.address], { timeoutMs: 500, tries: 1 });
    let now = new Date(Date.parse(source.first_seen_at) + 31 * 24 * 3600 * 1000);
    const reaudit = createAuditRunner({
      db: t.database.db,
      pool,
      fetch: {
        allowPrivateNetworks: true,
        userAgent: "email-status test",
        resolve: createCachingResolver({ queries: resolver, maxTtlMs: 1_000, maxEntries: 10 }),
      },
      now: () => now,
      emailStatus: createEmailStatusCheck({ queries: resolver }),
    });
    try {
      const second = await reaudit({ placeId: "dns-maple", url: mapleSite, country: "CA" });
      expect(second.outcome).toBe("ok");
      const again = (await detail(maple!.id)).email_source as typeof source;
      expect(again.first_seen_at).toBe(source.first_seen_at);
      expect(again.last_seen_at).toBe(now.toISOString());

      // A third audit that finds another address starts over.
      sites.set("/maple", { html: page("office@maple-plumbing.ca") });
      now = new Date(now.getTime() + 24 * 3600 * 1000);
      await reaudit({ placeId: "dns-maple", url: mapleSite, country: "CA" });
      const moved = await detail(maple!.id);
      expect(moved).toMatchObject({
        email: "office@maple-plumbing.ca",
        email_status: "deliverable",
        email_source: { first_seen_at: now.toISOString(), last_seen_at: now.toISOString() },
      });
    } finally {
      await pool.close();
    }
  });
});
