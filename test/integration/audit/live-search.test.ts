import { afterAll, describe, expect, it } from "vitest";
import { readCurrentAudits } from "../../../shared/audit/cache.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import {
  type FakeSitesServer,
  MODERN_HOMEPAGE,
  OLD_HOMEPAGE,
  startFakeSites,
} from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
let t: TestApp;

const place = googlePlace;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  sites = await startFakeSites();
  t = await startTestApp({
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    SEARCH_CHECK_BUDGET_MS: "1500",
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    AUDIT_UNREACHABLE_RETRY_MS: "100",
  });
});
afterAll(async () => {
  await t?.close();
  await sites?.close();
});

const search = (auth: { authorization: string }, category: string, filters: Record<string, boolean>) =>
  t.app.inject({
    method: "POST",
    url: "/v1/searches",
    headers: auth,
    payload: { queries: [{ location: "Springfield", category }], filters, max_results: 10 },
  });

describe("live-website filters (in-process audits)", () => {
  it("returns only the sites that match, charges only those, and fills the flags", async () => {
    sites.set("/a-old", { html: OLD_HOMEPAGE });
    sites.set("/a-modern", { html: MODERN_HOMEPAGE });
    places.setPlaces("roofer in Springfield", [
      place("a-old", sites.url("/a-old")),
      place("a-modern", sites.url("/a-modern")),
      place("a-none", null),
    ]);
    const ws = await createWorkspace(t.app);
    const response = await search(ws.auth, "roofer", { not_mobile_friendly: true });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.results.map((r: { place_id: string }) => r.place_id)).toEqual(["a-old"]);
    expect(body.results[0]).toMatchObject({
      has_website: true,
      is_mobile_friendly: false,
      is_outdated: true,
    });
    expect(body.credits_spent).toBe(1);
    expect(body.truncated).toBe(false);

    const outdated = await search(ws.auth, "roofer", { outdated_website: true });
    expect(outdated.json().results.map((r: { place_id: string }) => r.place_id)).toEqual(["a-old"]);
    expect(outdated.json().credits_spent).toBe(0);
    // The second search answered from the cache: each site was fetched once.
    expect(sites.hits("/a-old")).toBe(1);
    expect(sites.hits("/a-modern")).toBe(1);

    const detail = await t.app.inject({ url: `/v1/leads/${body.results[0].id}`, headers: ws.auth });
    expect(detail.json()).toMatchObject({
      no_website_flag: false,
      not_mobile_friendly_flag: true,
      outdated_website_flag: true,
    });
  });

  it("truncates when sites answer after the budget, then returns them from the cache", async () => {
    sites.set("/b-slow-old", { html: OLD_HOMEPAGE, delayMs: 2500 });
    sites.set("/b-fast-old", { html: OLD_HOMEPAGE });
    places.setPlaces("glazier in Springfield", [
      place("b-slow-old", sites.url("/b-slow-old")),
      place("b-fast-old", sites.url("/b-fast-old")),
    ]);
    const ws = await createWorkspace(t.app);
    const started = Date.now();
    const first = await search(ws.auth, "glazier", { outdated_website: true });
    const elapsed = Date.now() - started;
    expect(first.statusCode).toBe(200);
    expect(first.json().truncated).toBe(true);
    expect(first.json().results.map((r: { place_id: string }) => r.place_id)).toEqual(["b-fast-old"]);
    expect(first.json().credits_spent).toBe(1);
    // Answered at the budget (1.5 s), not when the slow site finished (2.5 s).
    expect(elapsed).toBeLessThan(2400);

    // The audit kept running and filled the cache.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await search(ws.auth, "glazier", { outdated_website: true });
    expect(second.json().truncated).toBe(false);
    expect(second.json().results.map((r: { place_id: string }) => r.place_id)).toEqual([
      "b-slow-old",
      "b-fast-old",
    ]);
    expect(second.json().credits_spent).toBe(1);
    expect(sites.hits("/b-slow-old")).toBe(1);
    const balance = await t.app.inject({ url: "/v1/credits", headers: ws.auth });
    expect(balance.json().balance).toBe(8);
  });

  it("shows the email the audit of the current website found in results, list and detail; a new website clears it", async () => {
    const withAddress = OLD_HOMEPAGE.replace(
      "</body>",
      '<footer>Call or write: <a href="mailto:Info@Springfield-Plumbing.com?subject=Quote">email us</a></footer></body>',
    );
    sites.set("/e-first", { html: withAddress });
    sites.set("/e-second", {
      html: OLD_HOMEPAGE.replace("</body>", "<p>hello [at] newplumbing [dot] ca</p></body>"),
    });
    places.setPlaces("plumber in Springfield", [place("e-plumber", sites.url("/e-first"))]);
    const ws = await createWorkspace(t.app);
    const emailsSeen = async (searchBody: { results: { id: string; email: string | null }[] }) => {
      const leadId = searchBody.results[0]!.id;
      const list = await t.app.inject({ url: "/v1/leads", headers: ws.auth });
      const detail = await t.app.inject({ url: `/v1/leads/${leadId}`, headers: ws.auth });
      return {
        search: searchBody.results[0]!.email,
        list: (list.json() as { leads: { id: string; email: string | null }[] }).leads.find(
          (l) => l.id === leadId,
        )?.email,
        detail: (detail.json() as { email: string | null }).email,
      };
    };

    // No live filter: nothing is audited, so nothing is known yet.
    const unaudited = await search(ws.auth, "plumber", {});
    expect(await emailsSeen(unaudited.json())).toEqual({ search: null, list: null, detail: null });

    const audited = await search(ws.auth, "plumber", { outdated_website: true });
    const address = "info@springfield-plumbing.com";
    expect(await emailsSeen(audited.json())).toEqual({ search: address, list: address, detail: address });
    const evidence = (
      await t.database.db
        .selectFrom("site_audits")
        .select("evidence")
        .where("place_id", "=", "e-plumber")
        .executeTakeFirstOrThrow()
    ).evidence;
    expect(evidence).toMatchObject({ email_found_in: ["mailto"], email_chosen_by: "role_address" });
    // A search without a live filter that changes nothing reads each audit with its lead (one
    // statement): the same address and flags as the live search's.
    const repeated = (await search(ws.auth, "plumber", {})).json();
    expect(repeated.credits_spent).toBe(0);
    expect(repeated.results[0]).toMatchObject({
      email: address,
      is_mobile_friendly: false,
      is_outdated: true,
    });

    // The business now lists another website: the old site's address is no longer shown...
    places.setPlaces("plumber in Springfield", [place("e-plumber", sites.url("/e-second"))]);
    const moved = await search(ws.auth, "plumber", {});
    expect(await emailsSeen(moved.json())).toEqual({ search: null, list: null, detail: null });
    // ...until the new one is audited.
    const reaudited = await search(ws.auth, "plumber", { outdated_website: true });
    const newAddress = "hello@newplumbing.ca";
    expect(await emailsSeen(reaudited.json())).toEqual({
      search: newAddress,
      list: newAddress,
      detail: newAddress,
    });
  });

  it("leaves out sites that cannot be fetched, without flagging them", async () => {
    places.setPlaces("mason in Springfield", [place("c-missing", sites.url("/c-missing"))]);
    const ws = await createWorkspace(t.app);
    const response = await search(ws.auth, "mason", { not_mobile_friendly: true });
    expect(response.json()).toMatchObject({ results: [], credits_spent: 0, truncated: false });
    const audit = await t.database.db
      .selectFrom("site_audits")
      .selectAll()
      .where("place_id", "=", "c-missing")
      .executeTakeFirstOrThrow();
    expect(audit.outcome).toBe("failed");
    expect(audit.signals.not_mobile_friendly).toBeNull();
  });
});

describe("site_unreachable's second attempt", () => {
  it("never holds the search: a site down at the first attempt is unknown, the second fills the cache later", async () => {
    // The second attempt hangs 3 s, twice the check budget: a search that waited for it would run
    // out of budget and say truncated (check_budget).
    sites.set("/u-down", { status: [503, 503], delayMs: [0, 3_000] });
    sites.set("/u-old", { html: OLD_HOMEPAGE });
    places.setPlaces("glazier in Springfield", [
      place("u-down", sites.url("/u-down")),
      place("u-old", sites.url("/u-old")),
    ]);
    const ws = await createWorkspace(t.app);
    const response = await search(ws.auth, "glazier", { not_mobile_friendly: true });
    const body = response.json();
    expect(body.results.map((r: { place_id: string }) => r.place_id)).toEqual(["u-old"]);
    expect(body.truncated).toBe(false);
    expect(body.credits_spent).toBe(1);

    // The audit went on without the search: its second attempt decides, and the cache keeps it.
    const down = { placeId: "u-down", website: sites.url("/u-down") };
    let audit = (await readCurrentAudits(t.database.db, [down])).get("u-down");
    for (
      const until = Date.now() + 20_000;
      audit?.signals.site_unreachable !== true && Date.now() < until;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      audit = (await readCurrentAudits(t.database.db, [down])).get("u-down");
    }
    expect(audit).toMatchObject({
      outcome: "failed",
      failure: "site_unreachable",
      signals: { site_unreachable: true },
      evidence: { attempts: [{ result: "http_503" }, { result: "http_503" }] },
    });
    expect(sites.hits("/u-down")).toBe(2);
  });
});
