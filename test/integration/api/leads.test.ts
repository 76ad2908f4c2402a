import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace, startTestApp, type TestApp, type TestWorkspace } from "../../support/app.ts";
import { seedLeads } from "../../support/seed.ts";

let t: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  // Enough requests for every test of this file in one minute.
  t = await startTestApp({ RATE_LIMIT_READ_PER_MIN: "1000" });
  ws = await createWorkspace(t.app);
});
afterAll(() => t?.close());

async function listAll(workspace: TestWorkspace, limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = cursor ? `?limit=${limit}&cursor=${encodeURIComponent(cursor)}` : `?limit=${limit}`;
    const response = await t.app.inject({ url: `/v1/leads${query}`, headers: workspace.auth });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { leads: { id: string }[]; next_cursor: string | null };
    expect(body.leads.length).toBeLessThanOrEqual(limit);
    seen.push(...body.leads.map((lead) => lead.id));
    cursor = body.next_cursor;
    pages += 1;
  } while (cursor && pages < 100);
  return { seen, pages };
}

describe("GET /v1/leads", () => {
  it("is empty for a new workspace", async () => {
    const response = await t.app.inject({ url: "/v1/leads", headers: ws.auth });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ leads: [], next_cursor: null });
  });

  it("pages newest first, stable when many leads share one timestamp", async () => {
    const workspace = await createWorkspace(t.app);
    const shared = new Date("2026-03-01T10:00:00.123Z");
    const older = await seedLeads(
      t.database.db,
      workspace.workspaceId,
      Array.from({ length: 7 }, (_, i) => ({ place_id: `older-${workspace.workspaceId}-${i}` })),
      (i) => new Date(Date.UTC(2026, 0, 1 + i)),
    );
    const tied = await seedLeads(
      t.database.db,
      workspace.workspaceId,
      Array.from({ length: 9 }, (_, i) => ({ place_id: `tied-${workspace.workspaceId}-${i}` })),
      shared,
    );
    const { seen, pages } = await listAll(workspace, 4);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(16);
    // The tied group comes first (newest), ordered by id descending; then the older ones newest first.
    expect(seen.slice(0, 9)).toEqual([...tied].sort().reverse());
    expect(seen.slice(9)).toEqual([...older].reverse());
  });

  it("returns every lead-summary field, timestamps in UTC with milliseconds", async () => {
    const workspace = await createWorkspace(t.app);
    await seedLeads(
      t.database.db,
      workspace.workspaceId,
      [
        {
          place_id: `fields-${workspace.workspaceId}`,
          name: "Café Brûlé",
          address: "1 Rue X",
          website: null,
        },
      ],
      new Date("2026-05-06T07:08:09.010Z"),
    );
    const response = await t.app.inject({ url: "/v1/leads", headers: workspace.auth });
    const [lead] = response.json().leads;
    expect(lead).toEqual({
      id: expect.any(String),
      place_id: `fields-${workspace.workspaceId}`,
      name: "Café Brûlé",
      category: "Plumber",
      address: "1 Rue X",
      website: null,
      phone: null,
      email: null,
      outreach_status: "new",
      added_at: "2026-05-06T07:08:09.010Z",
    });
  });

  it("never shows another workspace's leads", async () => {
    const a = await createWorkspace(t.app);
    const b = await createWorkspace(t.app);
    await seedLeads(t.database.db, a.workspaceId, [{ place_id: `shared-place-${a.workspaceId}` }]);
    const response = await t.app.inject({ url: "/v1/leads", headers: b.auth });
    expect(response.json().leads).toEqual([]);
  });

  it.each([
    ["limit=0", "query.limit"],
    ["limit=101", "query.limit"],
    ["limit=abc", "query.limit"],
    ["limit=2.5", "query.limit"],
    ["cursor=not-a-cursor", "query.cursor"],
    ["cursor=2026-01-01T00:00:00.000Z%7Cnot-a-uuid", "query.cursor"],
    ["cursor=2026-13-01T00:00:00.000Z%7C7d444840-9dc0-11d1-b245-5ffdce74fad2", "query.cursor"],
    ["limt=5", "query.limt"],
  ])("answers 400 invalid_request naming the field for %s", async (query, field) => {
    const response = await t.app.inject({ url: `/v1/leads?${query}`, headers: ws.auth });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe("invalid_request");
    expect(response.json().error.message).toContain(field);
  });

  it("accepts the limits 1 and 100", async () => {
    for (const limit of [1, 100]) {
      const response = await t.app.inject({ url: `/v1/leads?limit=${limit}`, headers: ws.auth });
      expect(response.statusCode).toBe(200);
    }
  });
});

describe("GET /v1/leads/{id}", () => {
  it("returns the detail with null flags when no audit ran, no_website_flag from the provider", async () => {
    const workspace = await createWorkspace(t.app);
    const [withSite, withoutSite] = await seedLeads(t.database.db, workspace.workspaceId, [
      { place_id: `d1-${workspace.workspaceId}` },
      { place_id: `d2-${workspace.workspaceId}`, website: null },
    ]);
    const a = await t.app.inject({ url: `/v1/leads/${withSite}`, headers: workspace.auth });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toMatchObject({
      id: withSite,
      no_website_flag: false,
      not_mobile_friendly_flag: null,
      outdated_website_flag: null,
      last_media_year: null,
    });
    const b = await t.app.inject({ url: `/v1/leads/${withoutSite}`, headers: workspace.auth });
    expect(b.json()).toMatchObject({ no_website_flag: true, not_mobile_friendly_flag: null });
  });

  it("reads the flags and last_media_year from the cached audit of the place", async () => {
    const workspace = await createWorkspace(t.app);
    const placeId = `audited-${workspace.workspaceId}`;
    const [leadId] = await seedLeads(t.database.db, workspace.workspaceId, [{ place_id: placeId }]);
    await t.database.db
      .insertInto("site_audits")
      .values({
        place_id: placeId,
        url: `https://${placeId}.example`,
        outcome: "ok",
        failure: null,
        signals: JSON.stringify({
          no_mobile_viewport: true,
          legacy_site_tech: false,
          stale_copyright: true,
          last_media_year: 2019,
          stale_content: true,
          no_french_version: null,
          not_mobile_friendly: true,
          outdated_website: true,
        }),
        evidence: JSON.stringify({}),
      })
      .execute();
    const response = await t.app.inject({ url: `/v1/leads/${leadId}`, headers: workspace.auth });
    expect(response.json()).toMatchObject({
      no_website_flag: false,
      not_mobile_friendly_flag: true,
      outdated_website_flag: true,
      last_media_year: 2019,
    });
  });

  it("ignores an audit of a website the place no longer lists", async () => {
    const workspace = await createWorkspace(t.app);
    const placeId = `moved-${workspace.workspaceId}`;
    const [leadId] = await seedLeads(t.database.db, workspace.workspaceId, [{ place_id: placeId }]);
    await t.database.db
      .insertInto("site_audits")
      .values({
        place_id: placeId,
        url: `https://old-${placeId}.example`,
        outcome: "ok",
        failure: null,
        signals: JSON.stringify({ not_mobile_friendly: true, outdated_website: true, last_media_year: 2015 }),
        evidence: JSON.stringify({}),
      })
      .execute();
    const response = await t.app.inject({ url: `/v1/leads/${leadId}`, headers: workspace.auth });
    expect(response.json()).toMatchObject({
      no_website_flag: false,
      not_mobile_friendly_flag: null,
      outdated_website_flag: null,
      last_media_year: null,
    });
  });

  it("answers 400 for a non-uuid id and 404 lead_not_found for another workspace's lead", async () => {
    const a = await createWorkspace(t.app);
    const b = await createWorkspace(t.app);
    const [leadId] = await seedLeads(t.database.db, a.workspaceId, [
      { place_id: `private-${a.workspaceId}` },
    ]);
    const bad = await t.app.inject({ url: "/v1/leads/12345", headers: b.auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("id"),
    });
    const other = await t.app.inject({ url: `/v1/leads/${leadId}`, headers: b.auth });
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe("lead_not_found");
  });
});

describe("GET /v1/credits", () => {
  it("starts every workspace at 10 credits", async () => {
    const response = await t.app.inject({ url: "/v1/credits", headers: ws.auth });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ balance: 10 });
  });
});
