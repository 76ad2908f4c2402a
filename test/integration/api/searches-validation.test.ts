/**
 * POST /v1/searches, validation: what is refused before the provider is called (400, 401, 413)
 * and what is accepted at the limits (spec "POST /v1/searches", errors and limits).
 * Through the real route (`inject`) and the real Google Places provider talking HTTP to the fake
 * Places server. The other outcomes are in the `searches-*` files beside this one; what they share
 * (the app, the fake and the helpers) is in test/support/searches.ts.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import {
  balanceOf,
  buyCredits,
  expectError,
  ledgerState,
  placesFor,
  query,
  searchesWorld,
  uniqueLocation,
} from "../../support/searches.ts";

const { world, program, search, searchOk } = searchesWorld();

describe("POST /v1/searches: validation", () => {
  let ws: TestWorkspace;
  let location: string;
  beforeAll(async () => {
    location = uniqueLocation("Validville");
    program(location, placesFor(location, 3));
  });
  beforeEach(async () => {
    ws = await createWorkspace(world.t.app);
  });

  /** A 400 (or other error) must not reach the provider nor touch the ledger. */
  async function expectNothingHappened(workspace: TestWorkspace = ws) {
    expect(world.fake.requests).toHaveLength(0);
    const state = await ledgerState(world.t, workspace);
    expect(state).toEqual({ balance: 10, charged: [], leads: [] });
  }

  it("accepts a well-formed request (the baseline the 400 cases below differ from)", async () => {
    const body = await searchOk(ws, { queries: [query(location)], max_results: 3 });
    expect(body.results).toHaveLength(3);
  });

  it.each([
    ["no queries", { queries: [], max_results: 5 }, "body.queries"],
    [
      "6 queries",
      { queries: Array.from({ length: 6 }, () => ({ location: "A", category: "b" })), max_results: 5 },
      "body.queries",
    ],
    ["queries missing", { max_results: 5 }, "body.queries"],
    ["queries not an array", { queries: { location: "A", category: "b" }, max_results: 5 }, "body.queries"],
  ])("answers 400 for %s", async (_label, payload, field) => {
    await buyCredits(world.t, ws, 10); // 6 queries must fail on the cap of 5, not on the free-trial cap
    const message = expectError(await search(ws, payload), 400, "invalid_request");
    expect(message).toContain(field);
    expect(world.fake.requests).toHaveLength(0);
    expect(await balanceOf(world.t, ws)).toBe(20);
  });

  it("accepts 5 queries from a workspace that bought credits", async () => {
    await buyCredits(world.t, ws, 10);
    const body = await searchOk(ws, {
      queries: Array.from({ length: 5 }, () => query(location)),
      max_results: 25,
    });
    // The same query five times: each place once (3), the provider asked five times.
    expect(body.results).toHaveLength(3);
  });

  it("limits a free-trial workspace to 2 queries, and lifts the limit once it bought credits", async () => {
    const two = await searchOk(ws, { queries: [query(location), query(location)], max_results: 1 });
    expect(two.results).toHaveLength(1);
    world.fake.reset();

    const threeQueries = { queries: [query(location), query(location), query(location)], max_results: 3 };
    const message = expectError(await search(ws, threeQueries), 400, "invalid_request");
    expect(message).toContain("queries");
    expect(world.fake.requests).toHaveLength(0);
    expect(await balanceOf(world.t, ws)).toBe(9);

    await buyCredits(world.t, ws, 5);
    const three = await searchOk(ws, threeQueries);
    expect(three.results).toHaveLength(3);
    expect(three.credits_spent).toBe(2);
  });

  it.each([
    ["location", { location: "", category: "plumber" }],
    ["location", { location: "   \t ", category: "plumber" }],
    ["category", { location: "Montreal", category: "" }],
    ["category", { location: "Montreal", category: "  \n " }],
    ["location", { category: "plumber" }],
    ["category", { location: "Montreal" }],
    ["location", { location: 42, category: "plumber" }],
    ["location", { location: "x".repeat(201), category: "plumber" }],
    ["category", { location: "Montreal", category: "x".repeat(101) }],
  ])("answers 400 naming body.queries[0].%s for %j", async (field, badQuery) => {
    const message = expectError(
      await search(ws, { queries: [badQuery], max_results: 5 }),
      400,
      "invalid_request",
    );
    expect(message).toContain(`body.queries[0].${field}`);
    await expectNothingHappened();
  });

  it("names the query at fault by its index", async () => {
    const message = expectError(
      await search(ws, {
        queries: [query(location), { location: " ", category: "plumber" }],
        max_results: 5,
      }),
      400,
      "invalid_request",
    );
    expect(message).toContain("body.queries[1].location");
  });

  it("accepts strings at the length limits (200 and 100 characters)", async () => {
    const response = await search(ws, {
      queries: [{ location: "l".repeat(200), category: "c".repeat(100) }],
      max_results: 5,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ results: [], credits_spent: 0, truncated: false });
  });

  it.each([[0], [26], [2.5], [-1], ["5"], [null]])("answers 400 for max_results %j", async (maxResults) => {
    const message = expectError(
      await search(ws, { queries: [query(location)], max_results: maxResults }),
      400,
      "invalid_request",
    );
    expect(message).toContain("body.max_results");
    await expectNothingHappened();
  });

  it("answers 400 when max_results is missing", async () => {
    const message = expectError(await search(ws, { queries: [query(location)] }), 400, "invalid_request");
    expect(message).toContain("body.max_results");
    await expectNothingHappened();
  });

  it.each([[1], [25]])("accepts max_results %d", async (maxResults) => {
    await buyCredits(world.t, ws, 20);
    const body = await searchOk(ws, { queries: [query(location)], max_results: maxResults });
    expect(body.results).toHaveLength(Math.min(3, maxResults));
  });

  it.each([[-1], [5.5], ["4"], [null], [true]])("answers 400 for min_rating %j", async (minRating) => {
    const message = expectError(
      await search(ws, { queries: [query(location)], filters: { min_rating: minRating }, max_results: 5 }),
      400,
      "invalid_request",
    );
    expect(message).toContain("body.filters.min_rating");
    await expectNothingHappened();
  });

  it.each([[0], [5]])("accepts min_rating %d", async (minRating) => {
    const response = await search(ws, {
      queries: [query(location)],
      filters: { min_rating: minRating },
      max_results: 5,
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it.each([
    ["top level", { queries: [query("Montreal")], max_results: 5, dry_run: true }, "body.dry_run"],
    [
      "a query",
      { queries: [{ location: "Montreal", category: "plumber", radius_km: 5 }], max_results: 5 },
      "body.queries[0].radius_km",
    ],
    [
      "the filters",
      { queries: [query("Montreal")], filters: { no_websites: true }, max_results: 5 },
      "body.filters.no_websites",
    ],
  ])(
    "answers 400 for an unknown field in %s, naming it, and charges nothing",
    async (_where, payload, field) => {
      const message = expectError(await search(ws, payload), 400, "invalid_request");
      expect(message).toContain(field);
      await expectNothingHappened();
    },
  );

  it.each([
    [
      "filters not an object",
      { queries: [query("Montreal")], filters: "no_website", max_results: 5 },
      "body.filters",
    ],
    [
      "no_website not a boolean",
      { queries: [query("Montreal")], filters: { no_website: "yes" }, max_results: 5 },
      "body.filters.no_website",
    ],
    ["a query that is a string", { queries: ["plumber in Montreal"], max_results: 5 }, "body.queries[0]"],
  ])("answers 400 for %s", async (_label, payload, field) => {
    const message = expectError(await search(ws, payload), 400, "invalid_request");
    expect(message).toContain(field);
    await expectNothingHappened();
  });

  it("answers 400 to a missing body", async () => {
    expectError(
      await world.t.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth }),
      400,
      "invalid_request",
    );
    expectError(
      await world.t.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: { ...ws.auth, "content-type": "application/json" },
        payload: "",
      }),
      400,
      "invalid_request",
    );
    await expectNothingHappened();
  });

  it.each([
    ["truncated JSON", "application/json", '{"queries": [{"location": "Montreal"'],
    ["not JSON at all", "application/json", "queries=Montreal&max_results=5"],
    ["a JSON array", "application/json", "[]"],
    ["a JSON string", "application/json", '"search"'],
    ["a form body", "application/x-www-form-urlencoded", "queries=Montreal&max_results=5"],
    [
      "plain text",
      "text/plain",
      '{"queries":[{"location":"Montreal","category":"plumber"}],"max_results":5}',
    ],
  ])("answers 400 to %s", async (_label, contentType, payload) => {
    const response = await world.t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...ws.auth, "content-type": contentType },
      payload,
    });
    expectError(response, 400, "invalid_request");
    await expectNothingHappened();
  });

  it("answers 413 request_too_large to a body over 16 KB, before validating it", async () => {
    const response = await search(ws, {
      queries: [{ location: "x".repeat(17 * 1024), category: "plumber" }],
      max_results: 5,
    });
    expectError(response, 413, "request_too_large");
    await expectNothingHappened();
  });

  it("accepts a valid body just under 16 KB (padding in whitespace)", async () => {
    const json = JSON.stringify({ queries: [query(location)], max_results: 3 });
    const payload = json + " ".repeat(16 * 1024 - Buffer.byteLength(json) - 1);
    expect(Buffer.byteLength(payload)).toBeLessThan(16 * 1024);
    const response = await world.t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...ws.auth, "content-type": "application/json" },
      payload,
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it("answers 401 without a key, before anything else", async () => {
    const response = await world.t.app.inject({
      method: "POST",
      url: "/v1/searches",
      payload: { queries: [], max_results: 0 },
    });
    expectError(response, 401, "invalid_api_key");
    expect(world.fake.requests).toHaveLength(0);
  });
});
