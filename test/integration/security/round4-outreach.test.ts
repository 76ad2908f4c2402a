/**
 * The outreach-data findings of the round-4 outside review (issue 31), over real HTTP against the
 * listening app: do-not-contact domain entries on the registrable domain (item 4), mail DNS
 * checks only for public domains (item 7). Places, homepages and DNS are fakes on loopback.
 */
import { afterAll, describe, expect, it } from "vitest";
import { adminRequest, createWorkspace } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { type FakeDnsServer, startFakeDns } from "../../support/fake-dns.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { type FakeSitesServer, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { HttpConsoleBrowser } from "../../support/http-console.ts";
import { type HttpTestApp, startHttpTestApp } from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

let t: HttpTestApp;
let dns: FakeDnsServer;
let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;

test.beforeAll(async ({ googlePlaces }) => {
  dns = await startFakeDns({});
  places = googlePlaces;
  sites = await startFakeSites();
  t = await startHttpTestApp({
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    DNS_SERVERS: dns.address,
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    RATE_LIMIT_READ_PER_MIN: "1000",
  });
});
afterAll(async () => {
  await t?.close();
  await sites?.close();
  await dns?.close();
});

const getJson = async (path: string, auth: Record<string, string>) => {
  const response = await fetch(`${t.baseUrl}${path}`, { headers: auth });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("item 4: a do-not-contact domain entry covers the registrable domain", () => {
  it("https://www.acme.ca/contact typed in the console covers acme.ca's lead; @domain is a domain in the console and the admin API", async () => {
    const ws = await createWorkspace(t.app, { name: "Careful agency" });
    const joined = await signedUpMember(t.app, ws.workspaceId, "careful@agency.test");
    const member = new HttpConsoleBrowser(t.baseUrl);
    for (const [name, value] of joined.cookies) member.cookies.set(name, value);
    const [acmeLead, shopLead, otherLead] = await seedLeads(t.database.db, ws.workspaceId, [
      { place_id: "acme-bare", name: "Acme", website: "https://acme.ca/" },
      { place_id: "acme-shop", name: "Acme shop", website: "http://shop.acme.ca/" },
      { place_id: "beta-bare", name: "Beta", website: "https://beta.ca/" },
    ]);
    const page = `/app/w/${ws.workspaceId}/suppressions`;
    const typed = await member.submit(page, page, { value: "https://www.acme.ca/contact", reason: "asked" });
    expect(typed.status).toBe(303);
    const viaAt = await member.submit(page, page, { value: "@beta.ca", reason: "" });
    expect(viaAt.status, viaAt.body.slice(0, 500)).toBe(303);

    const listed = await member.get(page);
    expect(listed.body).toContain("acme.ca");
    expect(listed.body).not.toContain("www.acme.ca");
    for (const leadId of [acmeLead, shopLead, otherLead]) {
      const lead = await getJson(`/v1/leads/${leadId}`, ws.auth);
      expect(lead.body.outreach_status, String(lead.body.website)).toBe("skipped");
      const draft = await fetch(`${t.baseUrl}/v1/leads/${leadId}/outreach-draft`, {
        method: "POST",
        headers: { ...ws.auth, "content-type": "application/json" },
        body: "{}",
      });
      expect(draft.status, String(lead.body.website)).toBe(403);
    }

    // The operator's door takes the same shapes and stores the same entries.
    const admin = await createWorkspace(t.app, { name: "Operator's agency" });
    for (const body of [{ email: "@Gamma.ca" }, { domain: "https://www.delta.ca/about" }]) {
      const added = await adminRequest(
        t.app,
        "POST",
        `/admin/workspaces/${admin.workspaceId}/suppressions`,
        body,
      );
      expect(added.statusCode, added.body).toBe(201);
    }
    const entries = await adminRequest(t.app, "GET", `/admin/workspaces/${admin.workspaceId}/suppressions`);
    const rows = (entries.json() as { suppressions: { kind: string; value: string }[] }).suppressions;
    expect(rows.map((row) => [row.kind, row.value]).sort()).toEqual([
      ["domain", "delta.ca"],
      ["domain", "gamma.ca"],
    ]);
  });
});

describe("item 7: mail DNS checks only for public, resolvable domains", () => {
  it("an address a hostile page gives on home.arpa, .onion, .local or a single label is never looked up", async () => {
    const port = new URL(sites.origin).port;
    const hostile = [
      "printer.home.arpa",
      "abcdefghijklmnop.onion",
      "nas.local",
      "intranet",
      "1.0.0.10.in-addr.arpa",
    ];
    dns.setZone({
      "hostile-site.ca": { A: ["127.0.0.1"] },
      ...Object.fromEntries(hostile.map((name) => [name, { MX: [{ exchange: `mx.${name}`, priority: 5 }] }])),
    });
    const found: string[] = [];
    for (const [index, domain] of hostile.entries()) {
      sites.set(`/hostile-${index}`, {
        html: `<!DOCTYPE html><html><head><title>Old</title></head><body><table width="900"><tr><td><font face="Arial">Welcome</font></td></tr></table><footer><p>Email: <a href="mailto:info@${domain}">info@${domain}</a></p><p>&copy; 2012</p></footer></body></html>`,
      });
      found.push(`http://hostile-site.ca:${port}/hostile-${index}`);
    }
    places.setPlaces(
      "plumber in Hostileville",
      found.map((url, index) => googlePlace(`hostile-${index}`, url)),
    );
    const ws = await createWorkspace(t.app, { name: "DNS agency" });
    const search = await fetch(`${t.baseUrl}/v1/searches`, {
      method: "POST",
      headers: { ...ws.auth, "content-type": "application/json" },
      body: JSON.stringify({
        queries: [{ location: "Hostileville", category: "plumber" }],
        filters: { outdated_website: true },
        max_results: 10,
      }),
    });
    expect(search.status).toBe(200);
    const results = ((await search.json()) as { results: { id: string; email: string | null }[] }).results;
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) {
      const lead = await getJson(`/v1/leads/${result.id}`, ws.auth);
      if (lead.body.email !== null)
        expect(lead.body.email_status, String(lead.body.email)).toBe("undeliverable");
    }
    for (const domain of hostile) expect(dns.count(domain), domain).toBe(0);
    expect(dns.count("hostile-site.ca", "A")).toBeGreaterThan(0);
  });
});
