/**
 * The suppression list over real HTTP (the app listening on 127.0.0.1, called with fetch), on
 * PostgreSQL and on PGlite: admin routes, a search that neither returns, charges nor counts a
 * suppressed place (the ledger read in SQL), a suppressed lead that reads `skipped` and whose
 * draft is 403 `lead_not_unlocked` before any credit or model call, and removal that restores both;
 * a business on a non-ASCII (IDN) domain covered by an entry typed in Unicode or punycode, and the
 * lead list's SQL pre-selection agreeing with the whole list's rule on websites it cannot parse.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { domainToASCII } from "node:url";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import { listLeads } from "../../../shared/leads/leads.ts";
import { listSuppressions, suppressionListOf } from "../../../shared/suppressions/suppressions.ts";
import {
  ADMIN_TOKEN,
  createWorkspace,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";
import { RICH_EVIDENCE, RICH_SIGNALS } from "../../support/drafting.ts";
import { type FakeGooglePlacesServer, googlePlace } from "../../support/fake-google-places.ts";
import { type FakeOpenAiServer, startFakeOpenAi } from "../../support/fake-openai.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import { modelCatalogue } from "../../support/model-catalogue.ts";
import { seedLeads } from "../../support/seed.ts";

let places: FakeGooglePlacesServer;
let openai: FakeOpenAiServer;
let t: TestApp;
let baseUrl: string;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  openai = await startFakeOpenAi();
  t = await startTestApp({
    ...places.env,
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_MODEL: "test-model",
    OPENAI_BASE_URL: openai.baseURL,
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    RATE_LIMIT_READ_PER_MIN: "1000",
  });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await openai?.close();
});
beforeEach(() => {
  places.reset();
  openai.reset();
  openai.respondWith(modelCatalogue.wellBehaved);
});

// ---------------------------------------------------------------------------------------------
// helpers

// biome-ignore lint/suspicious/noExplicitAny: test answers are read field by field.
type Json = any;

async function call(
  method: string,
  path: string,
  options: { token: string; body?: unknown },
): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.token}`,
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === "" ? null : (JSON.parse(text) as Json) };
}

const admin = (method: string, path: string, body?: unknown) =>
  call(method, `/admin${path}`, { token: ADMIN_TOKEN, body });
const api = (ws: TestWorkspace, method: string, path: string, body?: unknown) =>
  call(method, `/v1${path}`, { token: ws.key, body });

/** Six places of one query; `tag` keeps place ids apart between tests (the places table is shared). */
function queryPlaces(tag: string) {
  const id = (letter: string) => `supp-${tag}-${letter}`;
  const list = [
    googlePlace(id("a"), `https://${id("a")}.ca/`),
    // Its website is on a suppressed domain (a subdomain of it).
    googlePlace(id("b"), `https://www.${tag}-blocked.ca/`),
    // Its homepage showed an address (a cached audit) that is suppressed.
    googlePlace(id("c"), `https://${id("c")}.ca/`),
    googlePlace(id("d"), `https://${id("d")}.ca/`),
    googlePlace(id("e"), `https://${id("e")}.ca/`),
    googlePlace(id("f"), `https://${id("f")}.ca/`),
  ];
  places.setPlaces(`plumber in ${tag}`, list);
  return { id, query: { queries: [{ location: tag, category: "plumber" }], max_results: 3 } };
}

async function chargedPlaces(ws: TestWorkspace): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom("search_charges")
    .select("place_id")
    .where("workspace_id", "=", ws.workspaceId)
    .orderBy("place_id")
    .execute();
  return rows.map((row) => row.place_id);
}

async function money(ws: TestWorkspace) {
  const db = t.database.db;
  const { balance } = await db
    .selectFrom("workspaces")
    .select("balance")
    .where("id", "=", ws.workspaceId)
    .executeTakeFirstOrThrow();
  const drafts = await db
    .selectFrom("drafts")
    .select("id")
    .where("workspace_id", "=", ws.workspaceId)
    .execute();
  const holds = await db
    .selectFrom("credit_holds")
    .select("id")
    .where("workspace_id", "=", ws.workspaceId)
    .execute();
  return { balance, drafts: drafts.length, holds: holds.length };
}

async function cacheAudit(placeId: string, url: string, email: string | null) {
  await saveAudit(t.database.db, {
    place_id: placeId,
    url,
    outcome: "ok",
    failure: null,
    signals: { ...RICH_SIGNALS, email },
    evidence: RICH_EVIDENCE,
    audited_at: new Date(),
  });
}

// ---------------------------------------------------------------------------------------------

describe("admin suppression routes", () => {
  it("adds one entry of each kind, lists them with who, when and why, and removes them", async () => {
    const ws = await createWorkspace(t.app);
    const path = `/workspaces/${ws.workspaceId}/suppressions`;

    const email = await admin("POST", path, { email: "Owner@Maple-Plumbing.CA", reason: "asked by phone" });
    expect(email.status).toBe(201);
    expect(email.json).toMatchObject({
      kind: "email",
      value: "owner@maple-plumbing.ca",
      reason: "asked by phone",
      added_by: "operator",
    });
    expect(Date.parse(email.json.created_at)).toBeGreaterThan(Date.now() - 60_000);
    const domain = await admin("POST", path, { domain: "https://www.Maple-Plumbing.ca/contact" });
    // Stored as the registrable domain (issue 31 finding 4: a `www.` entry must cover the domain).
    expect(domain.json).toMatchObject({ kind: "domain", value: "maple-plumbing.ca", reason: null });
    const place = await admin("POST", path, { place_id: "ChIJ-place-1" });
    expect(place.json).toMatchObject({ kind: "place", value: "ChIJ-place-1" });

    // The same entry again, whatever its case: kept once, answered 200 with the first.
    const again = await admin("POST", path, { email: "OWNER@maple-plumbing.ca", reason: "again" });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ id: email.json.id, reason: "asked by phone" });

    const listed = await admin("GET", path);
    expect(listed.status).toBe(200);
    expect(listed.json.suppressions.map((entry: { id: string }) => entry.id).sort()).toEqual(
      [email.json.id, domain.json.id, place.json.id].sort(),
    );

    expect((await admin("DELETE", `${path}/${domain.json.id}`)).status).toBe(204);
    expect((await admin("DELETE", `${path}/${domain.json.id}`)).status).toBe(404);
    expect((await admin("GET", path)).json.suppressions).toHaveLength(2);
    // Another workspace's entry is not this one's to remove.
    const other = await createWorkspace(t.app);
    expect(
      (await admin("DELETE", `/workspaces/${other.workspaceId}/suppressions/${email.json.id}`)).status,
    ).toBe(404);
  });

  it.each([
    [{}, "none"],
    [{ email: "a@b.ca", domain: "b.ca" }, "two"],
    [{ email: "not an address" }, "a bad email"],
    [{ domain: "localhost" }, "a bad domain"],
    [{ place_id: "x", extra: 1 }, "an unknown field"],
  ])("answers 400 to a body with %j (%s)", async (body, _why) => {
    const ws = await createWorkspace(t.app);
    const answer = await admin("POST", `/workspaces/${ws.workspaceId}/suppressions`, body);
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe("invalid_request");
  });

  it("answers 404 for a workspace that does not exist", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    expect((await admin("GET", `/workspaces/${missing}/suppressions`)).status).toBe(404);
    expect((await admin("POST", `/workspaces/${missing}/suppressions`, { domain: "a.ca" })).status).toBe(404);
  });
});

describe("a suppressed place", () => {
  it("is never returned, charged or counted toward max_results by a search; removal restores it", async () => {
    const ws = await createWorkspace(t.app);
    const { id, query } = queryPlaces("s1");
    await cacheAudit(id("c"), `https://${id("c")}.ca/`, "office@s1-plumbing.ca");
    const path = `/workspaces/${ws.workspaceId}/suppressions`;
    const byPlace = await admin("POST", path, { place_id: id("a"), reason: "asked not to be contacted" });
    await admin("POST", path, { domain: "S1-blocked.ca" });
    await admin("POST", path, { email: "OFFICE@s1-plumbing.ca" });

    const search = await api(ws, "POST", "/searches", query);
    expect(search.status).toBe(200);
    // max_results 3: the first three places nobody suppressed, not three minus the suppressed.
    expect(search.json.results.map((lead: { place_id: string }) => lead.place_id)).toEqual([
      id("d"),
      id("e"),
      id("f"),
    ]);
    expect(search.json.credits_spent).toBe(3);
    expect(await chargedPlaces(ws)).toEqual([id("d"), id("e"), id("f")]);
    expect((await money(ws)).balance).toBe(7);
    const leads = await t.database.db
      .selectFrom("leads")
      .select("place_id")
      .where("workspace_id", "=", ws.workspaceId)
      .execute();
    expect(leads.map((lead) => lead.place_id).sort()).toEqual([id("d"), id("e"), id("f")]);

    // Removal restores the place: found and charged like any new place.
    expect((await admin("DELETE", `${path}/${byPlace.json.id}`)).status).toBe(204);
    const after = await api(ws, "POST", "/searches", { ...query, max_results: 4 });
    expect(after.json.results.map((lead: { place_id: string }) => lead.place_id)).toEqual([
      id("a"),
      id("d"),
      id("e"),
      id("f"),
    ]);
    expect(after.json.credits_spent).toBe(1);
    expect(await chargedPlaces(ws)).toEqual([id("a"), id("d"), id("e"), id("f")]);
    expect((await money(ws)).balance).toBe(6);
  });

  it("reads skipped as a lead, and its draft is 403 lead_not_unlocked with nothing charged and no model call", async () => {
    const ws = await createWorkspace(t.app);
    const { id, query } = queryPlaces("s2");
    await api(ws, "POST", "/searches", { ...query, max_results: 6 });
    const { json: list } = await api(ws, "GET", "/leads?limit=10");
    const leadOf = (placeId: string) =>
      list.leads.find((lead: { place_id: string }) => lead.place_id === placeId) as { id: string };
    const byPlace = leadOf(id("d"));
    const byEmail = leadOf(id("e"));
    const byDomain = leadOf(id("f"));
    for (const placeId of [id("d"), id("e"), id("f")]) {
      await cacheAudit(placeId, `https://${placeId}.ca/`, `info@${placeId}.ca`);
    }
    const path = `/workspaces/${ws.workspaceId}/suppressions`;
    const entries = [
      await admin("POST", path, { place_id: id("d") }),
      await admin("POST", path, { email: `INFO@${id("e")}.ca` }),
      await admin("POST", path, { domain: `${id("f")}.ca` }),
    ];
    const before = await money(ws);

    for (const lead of [byPlace, byEmail, byDomain]) {
      expect((await api(ws, "GET", `/leads/${lead.id}`)).json.outreach_status).toBe("skipped");
      const draft = await api(ws, "POST", `/leads/${lead.id}/outreach-draft`);
      expect(draft.status).toBe(403);
      expect(draft.json.error.code).toBe("lead_not_unlocked");
    }
    const page = await api(ws, "GET", "/leads?limit=10");
    const statuses = Object.fromEntries(
      page.json.leads.map((lead: { place_id: string; outreach_status: string }) => [
        lead.place_id,
        lead.outreach_status,
      ]),
    );
    expect(statuses).toMatchObject({ [id("a")]: "new", [id("d")]: "skipped", [id("e")]: "skipped" });
    expect(openai.completionCalls()).toBe(0);
    expect(await money(ws)).toEqual(before);

    // Removal restores: the lead reads its stored status again, and drafts like any other.
    for (const entry of entries) await admin("DELETE", `${path}/${entry.json.id}`);
    expect((await api(ws, "GET", `/leads/${byPlace.id}`)).json.outreach_status).toBe("new");
    const draft = await api(ws, "POST", `/leads/${byPlace.id}/outreach-draft`);
    expect(draft.status).toBe(200);
    expect(openai.completionCalls()).toBe(1);
    expect(await money(ws)).toEqual({ balance: before.balance - 1, drafts: 1, holds: 0 });
    expect((await api(ws, "GET", `/leads/${byPlace.id}`)).json.outreach_status).toBe("drafted");
  });
});

describe("a business whose website or address has a non-ASCII (IDN) host", () => {
  it.each([
    ["in Unicode", (host: string) => host],
    ["in punycode", (host: string) => domainToASCII(host)],
    ["as its website, in Unicode", (host: string) => `https://www.${host.toUpperCase()}/menu`],
  ])(
    "is covered by a domain entry typed %s: never returned or charged by a search, skipped in every list, its draft refused",
    async (_typed, typedAs) => {
      const tag = `idn${randomUUID().slice(0, 8)}`;
      const host = `café-${tag}.ca`;
      const id = (letter: string) => `supp-${tag}-${letter}`;
      places.setPlaces(`plumber in ${tag}`, [
        googlePlace(id("idn"), `https://www.${host}/`),
        googlePlace(id("mail"), `https://${id("mail")}.ca/`),
        googlePlace(id("plain"), `https://${id("plain")}.ca/`),
      ]);
      // The second place's homepage shows an address on the IDN domain (as a site writes it).
      await cacheAudit(id("mail"), `https://${id("mail")}.ca/`, `Info@Café-${tag}.ca`);
      const query = { queries: [{ location: tag, category: "plumber" }], max_results: 3 };

      // Listed before the search: the search neither returns nor charges the IDN business.
      const early = await createWorkspace(t.app);
      const earlyEntry = await admin("POST", `/workspaces/${early.workspaceId}/suppressions`, {
        domain: typedAs(host),
      });
      expect(earlyEntry.status).toBe(201);
      expect(earlyEntry.json.value).toBe(domainToASCII(host));
      const search = await api(early, "POST", "/searches", query);
      expect(search.status).toBe(200);
      expect(search.json.results.map((lead: { place_id: string }) => lead.place_id)).toEqual([id("plain")]);
      expect(await chargedPlaces(early)).toEqual([id("plain")]);

      // Listed after the search: every reader of the lead says skipped, and drafting is refused.
      const late = await createWorkspace(t.app);
      expect((await api(late, "POST", "/searches", query)).json.credits_spent).toBe(3);
      const entry = await admin("POST", `/workspaces/${late.workspaceId}/suppressions`, {
        domain: typedAs(host),
      });
      expect(entry.status).toBe(201);
      const before = await money(late);
      const { json: list } = await api(late, "GET", "/leads?limit=10");
      const statuses = Object.fromEntries(
        list.leads.map((lead: { place_id: string; outreach_status: string }) => [
          lead.place_id,
          lead.outreach_status,
        ]),
      );
      expect(statuses).toEqual({ [id("idn")]: "skipped", [id("mail")]: "skipped", [id("plain")]: "new" });
      // The status filter's pre-selection (the console's ?status=skipped) keeps both.
      const skipped = await listLeads(t.database.db, late.workspaceId, {
        limit: 10,
        after: null,
        status: "skipped",
      });
      expect(
        skipped.leads
          .filter((lead) => lead.outreach_status === "skipped")
          .map((lead) => lead.place_id)
          .sort(),
      ).toEqual([id("idn"), id("mail")].sort());
      for (const placeId of [id("idn"), id("mail")]) {
        const lead = list.leads.find((row: { place_id: string }) => row.place_id === placeId) as {
          id: string;
        };
        expect((await api(late, "GET", `/leads/${lead.id}`)).json.outreach_status).toBe("skipped");
        const draft = await api(late, "POST", `/leads/${lead.id}/outreach-draft`);
        expect(draft.status).toBe(403);
        expect(draft.json.error.code).toBe("lead_not_unlocked");
      }
      expect(openai.completionCalls()).toBe(0);
      expect(await money(late)).toEqual(before);
    },
  );
});

describe("the lead list's pre-selection in SQL", () => {
  it("finds every entry the whole list's rule matches, for websites SQL cannot read as a URL parser does", async () => {
    const ws = await createWorkspace(t.app);
    const tag = `pre${randomUUID().slice(0, 8)}`;
    const path = `/workspaces/${ws.workspaceId}/suppressions`;
    await admin("POST", path, { domain: `${tag}.ca` });
    await admin("POST", path, { domain: `café-${tag}.ca` });
    const websites: [string, string][] = [
      ["plain", `https://www.${tag}.ca/`],
      ["loud", `HTTPS://WWW.${tag.toUpperCase()}.CA./menu`],
      ["port", `http://${tag}.ca:8080`],
      // A URL parser reads the backslash as the path's start: the host is www.<tag>.ca, not evil.ca.
      ["backslash", `https://www.${tag}.ca\\@evil.ca/`],
      // An http(s) URL without its slashes still names its host.
      ["slashless", `https:www.${tag}.ca/`],
      ["userinfo", `https://someone@www.${tag}.ca/`],
      ["idn", `https://www.Café-${tag}.ca/`],
      ["lookalike", `https://${tag}.ca.evil.com/`],
      ["other", `https://other-${tag}.ca/`],
    ];
    await seedLeads(
      t.database.db,
      ws.workspaceId,
      websites.map(([name, website]) => ({ place_id: `${tag}-${name}`, website })),
      (index) => new Date(Date.UTC(2026, 10, 1, 12, index)),
    );
    const whole = suppressionListOf(await listSuppressions(t.database.db, ws.workspaceId));
    const expected = Object.fromEntries(
      websites.map(([name, website]) => [
        `${tag}-${name}`,
        whole.matches({ placeId: `${tag}-${name}`, website, email: null }) ? "skipped" : "new",
      ]),
    );
    expect(Object.values(expected).filter((status) => status === "new")).toHaveLength(2);

    const { json: list } = await api(ws, "GET", "/leads?limit=20");
    expect(
      Object.fromEntries(
        list.leads.map((lead: { place_id: string; outreach_status: string }) => [
          lead.place_id,
          lead.outreach_status,
        ]),
      ),
    ).toEqual(expected);
    const skipped = await listLeads(t.database.db, ws.workspaceId, {
      limit: 20,
      after: null,
      status: "skipped",
    });
    expect(
      skipped.leads
        .filter((lead) => lead.outreach_status === "skipped")
        .map((lead) => lead.place_id)
        .sort(),
    ).toEqual(
      Object.entries(expected)
        .filter(([, status]) => status === "skipped")
        .map(([placeId]) => placeId)
        .sort(),
    );
  });
});
