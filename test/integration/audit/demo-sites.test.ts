/**
 * The offline demo: with the example places fixture and `AUDIT_DEMO_SITES_DIR=fixtures/sites`, a
 * live-filter search audits the fixture's `.example` homepages without any network (DNS pointed
 * at a closed port, so a lookup would fail), and finds leads with evidence, an email and a draft
 * grounded in them. Off by default, and the fetcher's address checks stay in force beside it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDemoSites } from "../../../shared/audit/demo-sites.ts";
import { fetchHomepage } from "../../../shared/audit/fetch-homepage.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { systemResolve } from "../../support/system-resolve.ts";

const FIXTURE = { PLACES_FIXTURE_FILE: "fixtures/places.example.json" };
/** Nothing answers there: any real DNS lookup fails at once. */
const NO_DNS = { DNS_SERVERS: "127.0.0.1:9" };
const OUTDATED_PLUMBERS = {
  queries: [{ location: "Ottawa", category: "plumber" }],
  filters: { outdated_website: true },
  max_results: 5,
};

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ ...FIXTURE, ...NO_DNS, AUDIT_DEMO_SITES_DIR: "fixtures/sites" });
});
afterAll(() => t?.close());

describe("the offline demo", () => {
  it("a live-filter search audits the demo homepages: flags, evidence, email, and a draft citing them", async () => {
    const ws = await createWorkspace(t.app);
    const search = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: ws.auth,
      payload: OUTDATED_PLUMBERS,
    });
    expect(search.statusCode, search.body).toBe(200);
    const { results, credits_spent, truncated } = search.json();
    expect(truncated).toBe(false);
    // The Ottawa plumbers whose demo homepage looks outdated (jQuery 1.x, old copyright, Flash).
    expect(results.map((lead: { place_id: string }) => lead.place_id).sort()).toEqual([
      "fixture-ottawa-plumber-02",
      "fixture-ottawa-plumber-04",
      "fixture-ottawa-plumber-05",
      "fixture-ottawa-plumber-08",
    ]);
    expect(credits_spent).toBe(4);
    const glebe = results.find((lead: { place_id: string }) => lead.place_id === "fixture-ottawa-plumber-02");
    expect(glebe).toMatchObject({ email: "contact@glebe-pipe-drain.example", is_outdated: true });

    const detail = await t.app.inject({ url: `/v1/leads/${glebe.id}`, headers: ws.auth });
    expect(detail.json()).toMatchObject({
      outdated_website_flag: true,
      not_mobile_friendly_flag: true,
      last_media_year: 2014,
    });
    // The evidence behind the flags, as the console shows it.
    const { rows } = await t.database.db
      .selectFrom("site_audits")
      .select(["evidence", "outcome"])
      .where("place_id", "=", "fixture-ottawa-plumber-02")
      .execute()
      .then((found) => ({ rows: found }));
    expect(rows[0]).toMatchObject({
      outcome: "ok",
      evidence: { jquery_version: "1.8.2", copyright_year: 2013, viewport: null },
    });

    const draft = await t.app.inject({
      method: "POST",
      url: `/v1/leads/${glebe.id}/outreach-draft`,
      headers: ws.auth,
    });
    expect(draft.statusCode, draft.body).toBe(200);
    const { body, facts_used } = draft.json();
    expect(facts_used.length).toBeGreaterThan(0);
    expect(facts_used.every((fact: string) => typeof fact === "string")).toBe(true);
    expect(body).toContain("Glebe Pipe & Drain");
  });

  it("is off by default: the same search finds nothing, since .example sites never resolve", async () => {
    const plain = await startTestApp({ ...FIXTURE, ...NO_DNS });
    try {
      const ws = await createWorkspace(plain.app);
      const search = await plain.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: ws.auth,
        payload: OUTDATED_PLUMBERS,
      });
      expect(search.statusCode).toBe(200);
      expect(search.json()).toEqual({ results: [], credits_spent: 0, truncated: false });
    } finally {
      await plain.close();
    }
  });

  it("answers only a demo host's homepage; every other URL goes through the address checks", async () => {
    const demoSites = loadDemoSites("fixtures/sites");
    const options = {
      allowPrivateNetworks: false,
      userAgent: "demo-test",
      demoSites,
      timeoutMs: 3_000,
      resolve: systemResolve,
    };
    const page = await fetchHomepage("https://glebe-pipe-drain.example/", options);
    expect(page).toMatchObject({ ok: true, status: 200, finalUrl: "https://glebe-pipe-drain.example/" });
    // Not a demo homepage: the ordinary fetch, whose DNS lookup of .example fails.
    const resolveNothing = async () => [] as string[];
    for (const url of ["https://glebe-pipe-drain.example/contact.html", "https://unknown-shop.example/"]) {
      expect(await fetchHomepage(url, { ...options, resolve: resolveNothing }), url).toMatchObject({
        ok: false,
        failure: "dns_failed",
      });
    }
    expect(await fetchHomepage("http://127.0.0.1/", options)).toMatchObject({
      ok: false,
      failure: "blocked_address",
    });
    // And without the option, a demo host is fetched like any other (and never resolves).
    const { demoSites: _off, ...withoutDemo } = options;
    expect(
      await fetchHomepage("https://glebe-pipe-drain.example/", { ...withoutDemo, resolve: resolveNothing }),
    ).toMatchObject({ ok: false, failure: "dns_failed" });
  });

  it("refuses a demo folder holding anything but <host>.example.html files", () => {
    const folder = mkdtempSync(join(tmpdir(), "demo-sites-"));
    writeFileSync(join(folder, "bank.com.html"), "<html></html>");
    expect(() => loadDemoSites(folder)).toThrow(/bank\.com\.html is not named <host>\.example\.html/);
  });
});
