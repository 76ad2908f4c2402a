/**
 * DESIGN "Pitch facts": places the provider reports CLOSED_PERMANENTLY are never returned nor
 * charged and do not count toward max_results; every lead carries the provider's `phone`. Through
 * the real route and the real Google Places provider over HTTP to the fake Places server.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { GOOGLE_PLACES_FIELD_MASK } from "../../../shared/places/google-places.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import {
  type FakeGooglePlacesServer,
  type GooglePlaceJson,
  googlePlace,
} from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

let fake: FakeGooglePlacesServer;
let t: TestApp;

test.beforeAll(async ({ googlePlaces }) => {
  fake = googlePlaces;
  t = await startTestApp({
    ...fake.env,
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    RATE_LIMIT_READ_PER_MIN: "1000",
  });
});
afterAll(async () => {
  await t?.close();
});

const place = (id: string, extra: Partial<GooglePlaceJson>): GooglePlaceJson => ({
  ...googlePlace(id, `https://${id}.example/`),
  ...extra,
});

describe("permanently closed places", () => {
  it("are not returned, not charged (ledger), and the next open places fill max_results", async () => {
    fake.setPlaces("florist in Springfield", [
      place("fl-open-1", { businessStatus: "OPERATIONAL", nationalPhoneNumber: "(217) 555-0101" }),
      place("fl-closed-2", { businessStatus: "CLOSED_PERMANENTLY", nationalPhoneNumber: "(217) 555-0102" }),
      place("fl-open-3", { businessStatus: "CLOSED_TEMPORARILY", nationalPhoneNumber: "(217) 555-0103" }),
      place("fl-closed-4", { businessStatus: "CLOSED_PERMANENTLY" }),
      place("fl-open-5", {}),
      place("fl-open-6", { businessStatus: "OPERATIONAL" }),
    ]);
    const ws = await createWorkspace(t.app);
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: ws.auth,
      payload: { queries: [{ location: "Springfield", category: "florist" }], max_results: 3 },
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.results.map((r: { place_id: string }) => r.place_id)).toEqual([
      "fl-open-1",
      "fl-open-3",
      "fl-open-5",
    ]);
    expect(body.credits_spent).toBe(3);
    expect(body.truncated).toBe(true); // fl-open-6 is left over
    expect(body.results.map((r: { phone: string | null }) => r.phone)).toEqual([
      "(217) 555-0101",
      "(217) 555-0103",
      null,
    ]);

    // The ledger in SQL: one charge per returned place, none for a closed one; no lead, no place row.
    const { rows: charges } = await sql<{ place_id: string }>`
      select place_id from search_charges where workspace_id = ${ws.workspaceId} order by place_id`.execute(
      t.database.db,
    );
    expect(charges.map((row) => row.place_id)).toEqual(["fl-open-1", "fl-open-3", "fl-open-5"]);
    const { rows: closedRows } = await sql<{ n: number }>`
      select (select count(*) from leads where place_id like 'fl-closed-%')::int
           + (select count(*) from places where place_id like 'fl-closed-%')::int as n`.execute(
      t.database.db,
    );
    expect(closedRows[0]?.n).toBe(0);
    const { rows: balance } = await sql<{ balance: number }>`
      select balance from workspaces where id = ${ws.workspaceId}`.execute(t.database.db);
    expect(balance[0]?.balance).toBe(7);

    // The Google request asked for the status and the phone.
    expect(fake.requests.at(-1)?.headers["x-goog-fieldmask"]).toBe(GOOGLE_PLACES_FIELD_MASK);
    expect(GOOGLE_PLACES_FIELD_MASK.split(",")).toEqual(
      expect.arrayContaining(["places.businessStatus", "places.nationalPhoneNumber"]),
    );

    // Lead summary and detail carry the phone too.
    const list = await t.app.inject({ url: "/v1/leads?limit=10", headers: ws.auth });
    const leads = list.json().leads as { id: string; place_id: string; phone: string | null }[];
    const first = leads.find((lead) => lead.place_id === "fl-open-1");
    expect(first?.phone).toBe("(217) 555-0101");
    const detail = await t.app.inject({ url: `/v1/leads/${first?.id}`, headers: ws.auth });
    expect(detail.json().phone).toBe("(217) 555-0101");
  });

  it("a place that closed after it became a lead is no longer returned, and its lead stays", async () => {
    fake.setPlaces("tailor in Springfield", [place("tl-1", {}), place("tl-2", {})]);
    const ws = await createWorkspace(t.app);
    const search = () =>
      t.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: ws.auth,
        payload: { queries: [{ location: "Springfield", category: "tailor" }], max_results: 5 },
      });
    expect((await search()).json().credits_spent).toBe(2);
    fake.setPlaces("tailor in Springfield", [
      place("tl-1", { businessStatus: "CLOSED_PERMANENTLY" }),
      place("tl-2", {}),
    ]);
    const again = (await search()).json();
    expect(again.results.map((r: { place_id: string }) => r.place_id)).toEqual(["tl-2"]);
    expect(again.credits_spent).toBe(0);
    const list = await t.app.inject({ url: "/v1/leads?limit=10", headers: ws.auth });
    expect(list.json().leads).toHaveLength(2);
  });
});
