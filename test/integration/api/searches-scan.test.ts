/**
 * POST /v1/searches, the scan: the order of results, min_rating and no_website, max_results and
 * `truncated` (spec "POST /v1/searches", rules 1-6).
 * Through the real route (`inject`) and the real Google Places provider talking HTTP to the fake
 * Places server. The other outcomes are in the `searches-*` files beside this one; what they share
 * (the app, the fake and the helpers) is in test/support/searches.ts.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import {
  balanceOf,
  buyCredits,
  ids,
  ledgerState,
  placesFor,
  query,
  searchesWorld,
  uniqueLocation,
  withoutWebsite,
} from "../../support/searches.ts";

const { world, program, searchOk, requestsFor } = searchesWorld();

describe("POST /v1/searches: the scan", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace(world.t.app);
    await buyCredits(world.t, ws, 500);
  });

  it("keeps queries in order and the provider's order within a query; a place found twice counts once", async () => {
    const first = uniqueLocation("Firsttown");
    const second = uniqueLocation("Secondtown");
    const a = placesFor(first, 4);
    const b = placesFor(second, 3);
    // Provider order deliberately not sorted by id; the second query repeats a[1] between its own.
    const firstOrder = [a[2]!, a[0]!, a[3]!, a[1]!];
    program(first, firstOrder);
    program(second, [b[1]!, a[1]!, b[0]!, a[2]!, b[2]!]);

    const body = await searchOk(ws, { queries: [query(first), query(second)], max_results: 25 });
    expect(ids(body)).toEqual([...firstOrder, b[1]!, b[0]!, b[2]!].map((place) => place.id));
    expect(body.credits_spent).toBe(7);
    expect(body.truncated).toBe(false);
    expect(new Set(body.results.map((result) => result.id)).size).toBe(7);
    const state = await ledgerState(world.t, ws);
    expect(state.charged).toHaveLength(7);
    expect(state.leads).toHaveLength(7);
    expect(state.balance).toBe(510 - 7);
  });

  it("keeps the provider's order across pages", async () => {
    const location = uniqueLocation("Pagetown");
    const places = placesFor(location, 45).reverse();
    program(location, places);
    const body = await searchOk(ws, { queries: [query(location)], max_results: 25 });
    expect(ids(body)).toEqual(places.slice(0, 25).map((place) => place.id));
    expect(requestsFor(location)).toHaveLength(2); // 20 + 5: the third page is never fetched
    expect(body.truncated).toBe(true);
  });

  it("applies min_rating exactly and forwards it to the provider", async () => {
    const location = uniqueLocation("Ratingville");
    const ratings = [4.0, 4.3, 4.5, undefined, 3.9, 5.0, 4.2, 4.19];
    const places = placesFor(location, ratings.length, (index) => ratings[index]);
    program(location, places);

    const body = await searchOk(ws, {
      queries: [query(location)],
      filters: { min_rating: 4.2 },
      max_results: 25,
    });
    const expected = places.filter((_place, index) => (ratings[index] ?? 0) >= 4.2).map((place) => place.id);
    expect(expected).toHaveLength(4);
    expect(ids(body)).toEqual(expected);
    expect(body.credits_spent).toBe(4);

    const sent = requestsFor(location);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      const minRating = (request.body as { minRating?: unknown }).minRating;
      // Forwarded so the provider narrows the scan, but never above what was asked (no lost match).
      expect(typeof minRating).toBe("number");
      expect(minRating as number).toBeGreaterThanOrEqual(4);
      expect(minRating as number).toBeLessThanOrEqual(4.2);
    }
  });

  it("sends no minRating when the filter is not set", async () => {
    const location = uniqueLocation("Norating");
    program(
      location,
      placesFor(location, 2, () => undefined),
    );
    const body = await searchOk(ws, { queries: [query(location)], max_results: 5 });
    expect(body.results).toHaveLength(2); // unrated places pass when no min_rating is asked for
    const sent = requestsFor(location);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).not.toHaveProperty("minRating");
  });

  it("applies no_website, and only matches cost credits", async () => {
    const location = uniqueLocation("Nositeville");
    const places = placesFor(location, 10).map((place, index) =>
      [1, 4, 8].includes(index) ? withoutWebsite(place) : place,
    );
    program(location, places);
    const before = await balanceOf(world.t, ws);
    const body = await searchOk(ws, {
      queries: [query(location)],
      filters: { no_website: true },
      max_results: 25,
    });
    expect(ids(body)).toEqual([places[1]!.id, places[4]!.id, places[8]!.id]);
    expect(body.results.every((result) => result.website === null && result.has_website === false)).toBe(
      true,
    );
    expect(body.credits_spent).toBe(3);
    expect(body.truncated).toBe(false);
    expect(await balanceOf(world.t, ws)).toBe(before - 3);
    expect((await ledgerState(world.t, ws)).charged).toEqual(
      [places[1]!.id, places[4]!.id, places[8]!.id].sort(),
    );
  });

  it("combines min_rating and no_website", async () => {
    const location = uniqueLocation("Combotown");
    const ratings = [5, 3, 4.5, 4.8, 2];
    const places = placesFor(location, 5, (index) => ratings[index]).map((place, index) =>
      index === 2 ? place : withoutWebsite(place),
    );
    program(location, places);
    const body = await searchOk(ws, {
      queries: [query(location)],
      filters: { min_rating: 4, no_website: true },
      max_results: 25,
    });
    expect(ids(body)).toEqual([places[0]!.id, places[3]!.id]);
    expect(body.credits_spent).toBe(2);
  });

  it("stops at max_results without fetching more pages", async () => {
    const location = uniqueLocation("Stoptown");
    const places = placesFor(location, 60);
    program(location, places);
    const body = await searchOk(ws, { queries: [query(location)], max_results: 3 });
    expect(ids(body)).toEqual(places.slice(0, 3).map((place) => place.id));
    expect(body.credits_spent).toBe(3);
    expect(body.truncated).toBe(true);
    expect(requestsFor(location)).toHaveLength(1);
    expect((await ledgerState(world.t, ws)).leads).toHaveLength(3);
  });

  describe("truncated (rule 6)", () => {
    it("is true when a query delivers its cap of 60 (provider has 70), even with few matches", async () => {
      const location = uniqueLocation("Seventy");
      const noSite = new Set([5, 30, 55, 65]); // 65 lies beyond the cap of 60: never seen
      const places = placesFor(location, 70).map((place, index) =>
        noSite.has(index) ? withoutWebsite(place) : place,
      );
      program(location, places);
      const body = await searchOk(ws, {
        queries: [query(location)],
        filters: { no_website: true },
        max_results: 25,
      });
      expect(ids(body)).toEqual([places[5]!.id, places[30]!.id, places[55]!.id]);
      expect(body.truncated).toBe(true);
      expect(body.credits_spent).toBe(3);
      expect(requestsFor(location)).toHaveLength(3); // all 60 read
    });

    it("is true when a query delivers exactly 60", async () => {
      const location = uniqueLocation("Sixty");
      const places = placesFor(location, 60).map((place, index) =>
        index === 59 ? withoutWebsite(place) : place,
      );
      program(location, places);
      const body = await searchOk(ws, {
        queries: [query(location)],
        filters: { no_website: true },
        max_results: 25,
      });
      expect(ids(body)).toEqual([places[59]!.id]);
      expect(body.truncated).toBe(true);
    });

    it("is false when a query delivers 59, all read, fewer matches than max_results", async () => {
      const location = uniqueLocation("Fiftynine");
      const places = placesFor(location, 59).map((place, index) =>
        index === 58 ? withoutWebsite(place) : place,
      );
      program(location, places);
      const body = await searchOk(ws, {
        queries: [query(location)],
        filters: { no_website: true },
        max_results: 25,
      });
      expect(ids(body)).toEqual([places[58]!.id]);
      expect(body.truncated).toBe(false);
      expect(requestsFor(location)).toHaveLength(3);
    });

    it("is true when max_results is reached before the last query runs", async () => {
      const first = uniqueLocation("Enough");
      const second = uniqueLocation("Neverasked");
      program(first, placesFor(first, 5));
      program(second, placesFor(second, 5));
      const body = await searchOk(ws, { queries: [query(first), query(second)], max_results: 5 });
      expect(body.results).toHaveLength(5);
      expect(body.truncated).toBe(true);
      expect(requestsFor(second)).toHaveLength(0); // lazy: the second query was not needed
    });

    it("is true when max_results is reached in the middle of a page", async () => {
      const location = uniqueLocation("Midpage");
      program(location, placesFor(location, 10));
      const body = await searchOk(ws, { queries: [query(location)], max_results: 4 });
      expect(body.results).toHaveLength(4);
      expect(body.truncated).toBe(true);
    });

    it("is false when every query finished with fewer than max_results", async () => {
      const first = uniqueLocation("Fewone");
      const second = uniqueLocation("Fewtwo");
      program(first, placesFor(first, 3));
      program(second, placesFor(second, 4));
      const body = await searchOk(ws, { queries: [query(first), query(second)], max_results: 25 });
      expect(body.results).toHaveLength(7);
      expect(body.truncated).toBe(false);
    });

    it("is false when the last query's last (short) page fills max_results exactly", async () => {
      const location = uniqueLocation("Exactfit");
      program(location, placesFor(location, 5));
      const body = await searchOk(ws, { queries: [query(location)], max_results: 5 });
      expect(body.results).toHaveLength(5);
      expect(body.truncated).toBe(false);
    });

    it("is false for a query with no match at all", async () => {
      const body = await searchOk(ws, { queries: [query(uniqueLocation("Nowhere"))], max_results: 5 });
      expect(body).toEqual({ results: [], credits_spent: 0, truncated: false });
    });
  });
});
