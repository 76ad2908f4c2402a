/**
 * POST /v1/searches, results and charging: every field of a result, new places charged once per
 * workspace, 402 changing nothing (spec "POST /v1/searches", rules 7-9).
 * Through the real route (`inject`) and the real Google Places provider talking HTTP to the fake
 * Places server. The other outcomes are in the `searches-*` files beside this one; what they share
 * (the app, the fake and the helpers) is in test/support/searches.ts.
 */
import { describe, expect, it } from "vitest";
import { createWorkspace } from "../../support/app.ts";
import {
  balanceOf,
  buyCredits,
  expectError,
  ids,
  ledgerState,
  placeRows,
  placesFor,
  query,
  searchesWorld,
  uniqueLocation,
  withoutWebsite,
} from "../../support/searches.ts";

const { world, program, search, searchOk } = searchesWorld();

describe("POST /v1/searches: results and charging", () => {
  it("returns every lead-summary field plus has_website, is_mobile_friendly and is_outdated", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Fieldtown");
    const [withSite, noSite, noType] = placesFor(location, 3);
    const { primaryType: _type, primaryTypeDisplayName: _typeName, ...bare } = noType!;
    program(location, [withSite!, withoutWebsite(noSite!), bare], "electrician");

    const started = Date.now();
    const body = await searchOk(ws, { queries: [{ location, category: "  electrician " }], max_results: 5 });
    expect(body.credits_spent).toBe(3);
    expect(body.results).toHaveLength(3);
    // The place with no website scores 40 (presence): first; the other two tie at 0, in the provider's order.
    const [second, first, third] = body.results;
    const keys = [
      "id",
      "place_id",
      "name",
      "category",
      "address",
      "website",
      "phone",
      "email",
      "outreach_status",
      "added_at",
      "has_website",
      "is_mobile_friendly",
      "is_outdated",
      "opportunity",
    ].sort();
    for (const result of body.results) {
      expect(Object.keys(result).sort()).toEqual(keys);
      expect(result.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(result.added_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(result.added_at)).toBeGreaterThanOrEqual(started - 5_000);
      expect(Date.parse(result.added_at)).toBeLessThanOrEqual(Date.now() + 5_000);
    }
    expect(first).toEqual({
      id: expect.any(String),
      place_id: withSite!.id,
      name: withSite!.displayName!.text,
      category: "Plumber",
      address: withSite!.formattedAddress,
      website: withSite!.websiteUri,
      phone: null,
      email: null,
      outreach_status: "new",
      added_at: expect.any(String),
      has_website: true,
      is_mobile_friendly: null,
      is_outdated: null,
      // Never checked: the site's dimensions unknown, only the reviews (10 of 115 points) known.
      opportunity: {
        score: 0,
        tier: "unchecked",
        reasons: [],
        unknown: ["presence", "security", "mobile", "technology", "freshness", "language"],
        coverage: 0.09,
        version: "2026-12",
      },
    });
    expect(second).toMatchObject({
      place_id: noSite!.id,
      website: null,
      has_website: false,
      opportunity: {
        score: 40,
        tier: "medium",
        reasons: [{ fact: "no_website", points: 40 }],
        unknown: [],
        coverage: 1,
      },
    });
    // No category from the provider: the lead is filed under the query's (trimmed) category.
    expect(third).toMatchObject({ place_id: bare.id, category: "electrician" });
  });

  it("returns ids of saved leads: GET /v1/leads/{id} and the lead list find them", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Leadtown");
    program(location, placesFor(location, 3));
    const body = await searchOk(ws, { queries: [query(location)], max_results: 5 });
    for (const result of body.results) {
      const detail = await world.t.app.inject({ url: `/v1/leads/${result.id}`, headers: ws.auth });
      expect(detail.statusCode, detail.body).toBe(200);
      expect(detail.json()).toMatchObject({
        id: result.id,
        place_id: result.place_id,
        name: result.name,
        category: result.category,
        address: result.address,
        website: result.website,
        email: result.email,
        outreach_status: result.outreach_status,
        added_at: result.added_at,
      });
    }
    const list = await world.t.app.inject({ url: "/v1/leads?limit=100", headers: ws.auth });
    const listed = (list.json() as { leads: { id: string }[] }).leads.map((lead) => lead.id).sort();
    expect(listed).toEqual(body.results.map((result) => result.id).sort());

    // Another workspace does not see them.
    const other = await createWorkspace(world.t.app);
    const foreign = await world.t.app.inject({
      url: `/v1/leads/${body.results[0]!.id}`,
      headers: other.auth,
    });
    expectError(foreign, 404, "lead_not_found");
  });

  it("charges only new places: credits_spent counts places not charged before", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Overlap");
    const places = placesFor(location, 6);
    program(location, places.slice(0, 3));
    const first = await searchOk(ws, { queries: [query(location)], max_results: 5 });
    expect(first.credits_spent).toBe(3);
    expect(await balanceOf(world.t, ws)).toBe(7);

    program(location, places.slice(1, 6)); // two already charged, three new
    const second = await searchOk(ws, { queries: [query(location)], max_results: 5 });
    expect(ids(second)).toEqual(places.slice(1, 6).map((place) => place.id));
    expect(second.credits_spent).toBe(3);
    expect(await balanceOf(world.t, ws)).toBe(4);
    // A place found again is the same lead.
    expect(second.results[0]!.id).toBe(first.results[1]!.id);
    expect(second.results[0]!.added_at).toBe(first.results[1]!.added_at);
    const state = await ledgerState(world.t, ws);
    expect(state.charged).toEqual(places.map((place) => place.id).sort());
    expect(state.leads).toHaveLength(6);
  });

  it("charges each workspace for its own leads", async () => {
    const a = await createWorkspace(world.t.app);
    const b = await createWorkspace(world.t.app);
    const location = uniqueLocation("Sharedtown");
    program(location, placesFor(location, 4));
    const forA = await searchOk(a, { queries: [query(location)], max_results: 5 });
    const forB = await searchOk(b, { queries: [query(location)], max_results: 5 });
    expect(forA.credits_spent).toBe(4);
    expect(forB.credits_spent).toBe(4);
    expect(forB.results.map((r) => r.id)).not.toEqual(forA.results.map((r) => r.id));
    expect(await balanceOf(world.t, a)).toBe(6);
    expect(await balanceOf(world.t, b)).toBe(6);
  });

  it("charges 0 for a repeated identical request and returns the same leads, ids and added_at", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Repeatville");
    program(location, placesFor(location, 4));
    const request = { queries: [query(location)], max_results: 10 };
    const first = await searchOk(ws, request);
    expect(first.credits_spent).toBe(4);
    const again = await searchOk(ws, request);
    expect(again.credits_spent).toBe(0);
    expect(again.results).toEqual(first.results);
    expect(await balanceOf(world.t, ws)).toBe(6);
    const state = await ledgerState(world.t, ws);
    expect(state.charged).toHaveLength(4);
    expect(state.leads).toHaveLength(4);
  });

  it("refreshes a place found again (name, address, website) but keeps its lead", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Renamed");
    const [place] = placesFor(location, 1);
    program(location, [place!]);
    const first = await searchOk(ws, { queries: [query(location)], max_results: 1 });
    program(location, [
      {
        ...place!,
        displayName: { text: "New name" },
        websiteUri: "https://new.example/",
        formattedAddress: "2 New St",
      },
    ]);
    const again = await searchOk(ws, { queries: [query(location)], max_results: 1 });
    expect(again.credits_spent).toBe(0);
    expect(again.results[0]).toMatchObject({
      id: first.results[0]!.id,
      added_at: first.results[0]!.added_at,
      name: "New name",
      website: "https://new.example/",
      address: "2 New St",
    });
    const detail = await world.t.app.inject({ url: `/v1/leads/${first.results[0]!.id}`, headers: ws.auth });
    expect(detail.json()).toMatchObject({
      name: "New name",
      website: "https://new.example/",
      address: "2 New St",
    });
  });

  it("lets already-charged places through for free at zero balance", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Zerobalance");
    const places = placesFor(location, 10);
    program(location, places);
    const first = await searchOk(ws, { queries: [query(location)], max_results: 10 });
    expect(first.credits_spent).toBe(10); // exactly the balance: allowed
    expect(await balanceOf(world.t, ws)).toBe(0);

    const again = await searchOk(ws, { queries: [query(location)], max_results: 10 });
    expect(again.credits_spent).toBe(0);
    expect(again.results.map((r) => r.id)).toEqual(first.results.map((r) => r.id));

    const subset = await searchOk(ws, { queries: [query(location)], max_results: 4 });
    expect(subset.credits_spent).toBe(0);
    expect(await balanceOf(world.t, ws)).toBe(0);
  });

  it("answers 402 when the new places exceed the balance, and changes nothing at all", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Shortfall");
    const places = placesFor(location, 12);
    program(location, places.slice(0, 4));
    const first = await searchOk(ws, { queries: [query(location)], max_results: 25 });
    expect(first.credits_spent).toBe(4);
    const before = await ledgerState(world.t, ws);
    expect(before.balance).toBe(6);
    const placesBefore = await placeRows(
      world.t,
      places.map((place) => place.id),
    );
    expect(placesBefore).toHaveLength(4);

    // The same four (one renamed) plus eight new: 8 > 6.
    program(location, [{ ...places[0]!, displayName: { text: "Renamed meanwhile" } }, ...places.slice(1)]);
    const response = await search(ws, { queries: [query(location)], max_results: 25 });
    const message = expectError(response, 402, "insufficient_credits");
    expect(message).toMatch(/balance/i);

    expect(await ledgerState(world.t, ws)).toEqual(before);
    expect(
      await placeRows(
        world.t,
        places.map((place) => place.id),
      ),
    ).toEqual(placesBefore);
    expect(await balanceOf(world.t, ws)).toBe(6);
    const list = await world.t.app.inject({ url: "/v1/leads?limit=100", headers: ws.auth });
    expect((list.json() as { leads: unknown[] }).leads).toHaveLength(4);

    // Once the balance covers them, the same request goes through and charges the 8 new ones only.
    await buyCredits(world.t, ws, 2);
    const after = await searchOk(ws, { queries: [query(location)], max_results: 25 });
    expect(after.credits_spent).toBe(8);
    expect(after.results[0]).toMatchObject({ id: first.results[0]!.id, name: "Renamed meanwhile" });
    expect(await balanceOf(world.t, ws)).toBe(0);
  });

  it("answers 402 on a fresh workspace whose 10 credits cannot cover 11 new places", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Eleven");
    const places = placesFor(location, 11);
    program(location, places);
    expectError(
      await search(ws, { queries: [query(location)], max_results: 11 }),
      402,
      "insufficient_credits",
    );
    expect(await ledgerState(world.t, ws)).toEqual({ balance: 10, charged: [], leads: [] });
    expect(
      await placeRows(
        world.t,
        places.map((place) => place.id),
      ),
    ).toEqual([]);
  });

  it("charges nothing for candidates filtered out, even when there are many", async () => {
    const ws = await createWorkspace(world.t.app);
    const location = uniqueLocation("Filtered");
    // 40 candidates, only 2 rated high enough: the balance of 10 covers the 2 matches.
    const places = placesFor(location, 40, (index) => (index === 7 || index === 33 ? 4.9 : 3));
    program(location, places);
    const body = await searchOk(ws, {
      queries: [query(location)],
      filters: { min_rating: 4.5 },
      max_results: 25,
    });
    expect(ids(body)).toEqual([places[7]!.id, places[33]!.id]);
    expect(body.credits_spent).toBe(2);
    expect(await ledgerState(world.t, ws)).toMatchObject({
      balance: 8,
      charged: [places[7]!.id, places[33]!.id].sort(),
    });
  });
});
