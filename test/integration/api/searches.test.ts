/**
 * POST /v1/searches, rule by rule (spec "POST /v1/searches", rules 1-9, errors, limits), through the
 * real route (`inject`) and the real Google Places provider talking HTTP to the fake Places server.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../../api/app.ts";
import { createServices, type Services } from "../../../api/services.ts";
import type { Db } from "../../../shared/db/database.ts";
import { createLogger } from "../../../shared/logger.ts";
import { createGooglePlacesProvider } from "../../../shared/places/google-places.ts";
import type { PlacesProvider, SearchTextOptions, TextSearchQuery } from "../../../shared/places/types.ts";
import {
  adminRequest,
  createWorkspace,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";
import {
  type FakeGooglePlacesServer,
  type GooglePlaceJson,
  startFakeGooglePlaces,
  syntheticPlaces,
} from "../../support/fake-google-places.ts";

/** An app under test and the database it runs on. */
interface Target {
  app: FastifyInstance;
  database: { db: Db };
}

let fake: FakeGooglePlacesServer;
/** The app as deployed: it builds its own Google Places provider from the environment. */
let t: TestApp;
/**
 * A second app on the same database whose provider fails fast (short timeout and backoff), for
 * the failure tests. It shares the database so that only one PGlite instance starts per file.
 */
let failing: Target;
let failingServices: Services | undefined;
/** What `failing`'s provider delegates to; tests swap it (a wrong key) or hook into it. */
let failingTarget: PlacesProvider;
let beforeQuery: ((textQuery: string) => void) | undefined;
let afterPage: ((textQuery: string, pageNumber: number) => void) | undefined;

const RATE_LIMITS = { RATE_LIMIT_SEARCH_PER_MIN: "1000", RATE_LIMIT_READ_PER_MIN: "1000" };

function fastProvider(apiKey: string): PlacesProvider {
  return createGooglePlacesProvider({
    apiKey,
    baseUrl: fake.baseUrl,
    retries: 2,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
    timeoutMs: 250,
  });
}

/** Delegates to `failingTarget` (the real HTTP provider), with hooks between queries and pages. */
const hookedProvider: PlacesProvider = {
  name: "hooked-google-places",
  async *searchText(query: TextSearchQuery, options?: SearchTextOptions) {
    beforeQuery?.(query.textQuery);
    let pageNumber = 0;
    for await (const page of failingTarget.searchText(query, options)) {
      pageNumber += 1;
      yield page;
      afterPage?.(query.textQuery, pageNumber);
    }
  },
};

beforeAll(async () => {
  fake = await startFakeGooglePlaces();
  t = await startTestApp({
    GOOGLE_PLACES_API_KEY: fake.apiKey,
    GOOGLE_PLACES_BASE_URL: fake.baseUrl,
    ...RATE_LIMITS,
  });
  failingTarget = fastProvider(fake.apiKey);
  failingServices = await createServices(t.config, createLogger("silent", "test"), {
    db: t.database.db,
    places: hookedProvider,
  });
  const failingApp = await buildApp({ services: failingServices });
  await failingApp.ready();
  failing = { app: failingApp, database: t.database };
});
afterAll(async () => {
  await failing?.app.close();
  await failingServices?.close(); // leaves the shared database open: it was passed in
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
  failingTarget = fastProvider(fake.apiKey);
  beforeQuery = undefined;
  afterPage = undefined;
});

// ---------------------------------------------------------------------------------------------
// helpers

interface ResultLead {
  id: string;
  place_id: string;
  name: string;
  category: string;
  address: string | null;
  website: string | null;
  email: string | null;
  outreach_status: string;
  added_at: string;
  has_website: boolean | null;
  is_mobile_friendly: boolean | null;
  is_outdated: boolean | null;
}
interface SearchBody {
  results: ResultLead[];
  credits_spent: number;
  truncated: boolean;
}

/** A location no other test uses, so its text queries and place ids are its own. */
function uniqueLocation(label: string): string {
  return `${label} ${randomUUID().slice(0, 8)}`;
}

/** Programs `places` for "<category> in <location>", the provider's text query. */
function program(location: string, places: GooglePlaceJson[], category = "plumber"): void {
  fake.setPlaces(`${category} in ${location}`, places);
}

/**
 * Places with websites and at least 10 reviews each: their opportunity scores are equal (0, nothing
 * checked but the reviews), so the results keep the scan's order, which is what these tests are
 * about (results are ordered by score first).
 */
function placesFor(location: string, count: number, ratingOf?: (index: number) => number | undefined) {
  const prefix = location.replaceAll(" ", "-");
  return syntheticPlaces(count, ratingOf ? { prefix, ratingOf } : { prefix }).map((place, index) => ({
    ...place,
    userRatingCount: 10 + index,
  }));
}

function withoutWebsite(place: GooglePlaceJson): GooglePlaceJson {
  const { websiteUri: _dropped, ...rest } = place;
  return rest as GooglePlaceJson;
}

function search(ws: TestWorkspace, payload: unknown, app: Target = t): Promise<LightMyRequestResponse> {
  return app.app.inject({
    method: "POST",
    url: "/v1/searches",
    headers: ws.auth,
    payload: payload as object,
  });
}

async function searchOk(ws: TestWorkspace, payload: unknown, app: Target = t): Promise<SearchBody> {
  const response = await search(ws, payload, app);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as SearchBody;
}

function expectError(response: LightMyRequestResponse, status: number, code: string): string {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code, message: expect.any(String) } });
  return body.error.message;
}

async function buyCredits(app: Target, ws: TestWorkspace, credits: number): Promise<void> {
  const response = await adminRequest(
    app.app,
    "POST",
    `/admin/workspaces/${ws.workspaceId}/credit-purchases`,
    {
      credits,
    },
  );
  expect(response.statusCode, response.body).toBe(201);
}

async function balanceOf(app: Target, ws: TestWorkspace): Promise<number> {
  const response = await app.app.inject({ url: "/v1/credits", headers: ws.auth });
  expect(response.statusCode).toBe(200);
  return (response.json() as { balance: number }).balance;
}

/** What the database holds for a workspace: its balance, its ledger and its leads. */
async function ledgerState(app: Target, ws: TestWorkspace) {
  const db = app.database.db;
  const { balance } = await db
    .selectFrom("workspaces")
    .select("balance")
    .where("id", "=", ws.workspaceId)
    .executeTakeFirstOrThrow();
  const charges = await db
    .selectFrom("search_charges")
    .select("place_id")
    .where("workspace_id", "=", ws.workspaceId)
    .orderBy("place_id")
    .execute();
  const leads = await db
    .selectFrom("leads")
    .select(["id", "place_id", "added_at"])
    .where("workspace_id", "=", ws.workspaceId)
    .orderBy("place_id")
    .execute();
  return { balance, charged: charges.map((row) => row.place_id), leads };
}

async function placeRows(app: Target, placeIds: string[]) {
  if (placeIds.length === 0) return [];
  return app.database.db
    .selectFrom("places")
    .select(["place_id", "name"])
    .where("place_id", "in", placeIds)
    .orderBy("place_id")
    .execute();
}

/** Requests the fake received for one text query, in order. */
function requestsFor(location: string, category = "plumber") {
  const wanted = `${category} in ${location}`.toLowerCase();
  return fake.requests.filter(
    (request) =>
      typeof request.body === "object" &&
      request.body !== null &&
      String((request.body as { textQuery?: unknown }).textQuery).toLowerCase() === wanted,
  );
}

const ids = (body: SearchBody) => body.results.map((result) => result.place_id);
const query = (location: string, category = "plumber") => ({ location, category });

// ---------------------------------------------------------------------------------------------

describe("POST /v1/searches: validation", () => {
  let ws: TestWorkspace;
  let location: string;
  beforeAll(async () => {
    location = uniqueLocation("Validville");
    program(location, placesFor(location, 3));
  });
  beforeEach(async () => {
    ws = await createWorkspace(t.app);
  });

  /** A 400 (or other error) must not reach the provider nor touch the ledger. */
  async function expectNothingHappened(workspace: TestWorkspace = ws) {
    expect(fake.requests).toHaveLength(0);
    const state = await ledgerState(t, workspace);
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
    await buyCredits(t, ws, 10); // 6 queries must fail on the cap of 5, not on the free-trial cap
    const message = expectError(await search(ws, payload), 400, "invalid_request");
    expect(message).toContain(field);
    expect(fake.requests).toHaveLength(0);
    expect(await balanceOf(t, ws)).toBe(20);
  });

  it("accepts 5 queries from a workspace that bought credits", async () => {
    await buyCredits(t, ws, 10);
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
    fake.reset();

    const threeQueries = { queries: [query(location), query(location), query(location)], max_results: 3 };
    const message = expectError(await search(ws, threeQueries), 400, "invalid_request");
    expect(message).toContain("queries");
    expect(fake.requests).toHaveLength(0);
    expect(await balanceOf(t, ws)).toBe(9);

    await buyCredits(t, ws, 5);
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
    await buyCredits(t, ws, 20);
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
      await t.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth }),
      400,
      "invalid_request",
    );
    expectError(
      await t.app.inject({
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
    const response = await t.app.inject({
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
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...ws.auth, "content-type": "application/json" },
      payload,
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it("answers 401 without a key, before anything else", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      payload: { queries: [], max_results: 0 },
    });
    expectError(response, 401, "invalid_api_key");
    expect(fake.requests).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------

describe("POST /v1/searches: the scan", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace(t.app);
    await buyCredits(t, ws, 500);
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
    const state = await ledgerState(t, ws);
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
    const before = await balanceOf(t, ws);
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
    expect(await balanceOf(t, ws)).toBe(before - 3);
    expect((await ledgerState(t, ws)).charged).toEqual([places[1]!.id, places[4]!.id, places[8]!.id].sort());
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
    expect((await ledgerState(t, ws)).leads).toHaveLength(3);
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

// ---------------------------------------------------------------------------------------------

describe("POST /v1/searches: results and charging", () => {
  it("returns every lead-summary field plus has_website, is_mobile_friendly and is_outdated", async () => {
    const ws = await createWorkspace(t.app);
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
    const ws = await createWorkspace(t.app);
    const location = uniqueLocation("Leadtown");
    program(location, placesFor(location, 3));
    const body = await searchOk(ws, { queries: [query(location)], max_results: 5 });
    for (const result of body.results) {
      const detail = await t.app.inject({ url: `/v1/leads/${result.id}`, headers: ws.auth });
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
    const list = await t.app.inject({ url: "/v1/leads?limit=100", headers: ws.auth });
    const listed = (list.json() as { leads: { id: string }[] }).leads.map((lead) => lead.id).sort();
    expect(listed).toEqual(body.results.map((result) => result.id).sort());

    // Another workspace does not see them.
    const other = await createWorkspace(t.app);
    const foreign = await t.app.inject({ url: `/v1/leads/${body.results[0]!.id}`, headers: other.auth });
    expectError(foreign, 404, "lead_not_found");
  });

  it("charges only new places: credits_spent counts places not charged before", async () => {
    const ws = await createWorkspace(t.app);
    const location = uniqueLocation("Overlap");
    const places = placesFor(location, 6);
    program(location, places.slice(0, 3));
    const first = await searchOk(ws, { queries: [query(location)], max_results: 5 });
    expect(first.credits_spent).toBe(3);
    expect(await balanceOf(t, ws)).toBe(7);

    program(location, places.slice(1, 6)); // two already charged, three new
    const second = await searchOk(ws, { queries: [query(location)], max_results: 5 });
    expect(ids(second)).toEqual(places.slice(1, 6).map((place) => place.id));
    expect(second.credits_spent).toBe(3);
    expect(await balanceOf(t, ws)).toBe(4);
    // A place found again is the same lead.
    expect(second.results[0]!.id).toBe(first.results[1]!.id);
    expect(second.results[0]!.added_at).toBe(first.results[1]!.added_at);
    const state = await ledgerState(t, ws);
    expect(state.charged).toEqual(places.map((place) => place.id).sort());
    expect(state.leads).toHaveLength(6);
  });

  it("charges each workspace for its own leads", async () => {
    const a = await createWorkspace(t.app);
    const b = await createWorkspace(t.app);
    const location = uniqueLocation("Sharedtown");
    program(location, placesFor(location, 4));
    const forA = await searchOk(a, { queries: [query(location)], max_results: 5 });
    const forB = await searchOk(b, { queries: [query(location)], max_results: 5 });
    expect(forA.credits_spent).toBe(4);
    expect(forB.credits_spent).toBe(4);
    expect(forB.results.map((r) => r.id)).not.toEqual(forA.results.map((r) => r.id));
    expect(await balanceOf(t, a)).toBe(6);
    expect(await balanceOf(t, b)).toBe(6);
  });

  it("charges 0 for a repeated identical request and returns the same leads, ids and added_at", async () => {
    const ws = await createWorkspace(t.app);
    const location = uniqueLocation("Repeatville");
    program(location, placesFor(location, 4));
    const request = { queries: [query(location)], max_results: 10 };
    const first = await searchOk(ws, request);
    expect(first.credits_spent).toBe(4);
    const again = await searchOk(ws, request);
    expect(again.credits_spent).toBe(0);
    expect(again.results).toEqual(first.results);
    expect(await balanceOf(t, ws)).toBe(6);
    const state = await ledgerState(t, ws);
    expect(state.charged).toHaveLength(4);
    expect(state.leads).toHaveLength(4);
  });

  it("refreshes a place found again (name, address, website) but keeps its lead", async () => {
    const ws = await createWorkspace(t.app);
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
    const detail = await t.app.inject({ url: `/v1/leads/${first.results[0]!.id}`, headers: ws.auth });
    expect(detail.json()).toMatchObject({
      name: "New name",
      website: "https://new.example/",
      address: "2 New St",
    });
  });

  it("lets already-charged places through for free at zero balance", async () => {
    const ws = await createWorkspace(t.app);
    const location = uniqueLocation("Zerobalance");
    const places = placesFor(location, 10);
    program(location, places);
    const first = await searchOk(ws, { queries: [query(location)], max_results: 10 });
    expect(first.credits_spent).toBe(10); // exactly the balance: allowed
    expect(await balanceOf(t, ws)).toBe(0);

    const again = await searchOk(ws, { queries: [query(location)], max_results: 10 });
    expect(again.credits_spent).toBe(0);
    expect(again.results.map((r) => r.id)).toEqual(first.results.map((r) => r.id));

    const subset = await searchOk(ws, { queries: [query(location)], max_results: 4 });
    expect(subset.credits_spent).toBe(0);
    expect(await balanceOf(t, ws)).toBe(0);
  });

  it("answers 402 when the new places exceed the balance, and changes nothing at all", async () => {
    const ws = await createWorkspace(t.app);
    const location = uniqueLocation("Shortfall");
    const places = placesFor(location, 12);
    program(location, places.slice(0, 4));
    const first = await searchOk(ws, { queries: [query(location)], max_results: 25 });
    expect(first.credits_spent).toBe(4);
    const before = await ledgerState(t, ws);
    expect(before.balance).toBe(6);
    const placesBefore = await placeRows(
      t,
      places.map((place) => place.id),
    );
    expect(placesBefore).toHaveLength(4);

    // The same four (one renamed) plus eight new: 8 > 6.
    program(location, [{ ...places[0]!, displayName: { text: "Renamed meanwhile" } }, ...places.slice(1)]);
    const response = await search(ws, { queries: [query(location)], max_results: 25 });
    const message = expectError(response, 402, "insufficient_credits");
    expect(message).toMatch(/balance/i);

    expect(await ledgerState(t, ws)).toEqual(before);
    expect(
      await placeRows(
        t,
        places.map((place) => place.id),
      ),
    ).toEqual(placesBefore);
    expect(await balanceOf(t, ws)).toBe(6);
    const list = await t.app.inject({ url: "/v1/leads?limit=100", headers: ws.auth });
    expect((list.json() as { leads: unknown[] }).leads).toHaveLength(4);

    // Once the balance covers them, the same request goes through and charges the 8 new ones only.
    await buyCredits(t, ws, 2);
    const after = await searchOk(ws, { queries: [query(location)], max_results: 25 });
    expect(after.credits_spent).toBe(8);
    expect(after.results[0]).toMatchObject({ id: first.results[0]!.id, name: "Renamed meanwhile" });
    expect(await balanceOf(t, ws)).toBe(0);
  });

  it("answers 402 on a fresh workspace whose 10 credits cannot cover 11 new places", async () => {
    const ws = await createWorkspace(t.app);
    const location = uniqueLocation("Eleven");
    const places = placesFor(location, 11);
    program(location, places);
    expectError(
      await search(ws, { queries: [query(location)], max_results: 11 }),
      402,
      "insufficient_credits",
    );
    expect(await ledgerState(t, ws)).toEqual({ balance: 10, charged: [], leads: [] });
    expect(
      await placeRows(
        t,
        places.map((place) => place.id),
      ),
    ).toEqual([]);
  });

  it("charges nothing for candidates filtered out, even when there are many", async () => {
    const ws = await createWorkspace(t.app);
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
    expect(await ledgerState(t, ws)).toMatchObject({
      balance: 8,
      charged: [places[7]!.id, places[33]!.id].sort(),
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("POST /v1/searches: provider failures", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace(failing.app);
    await buyCredits(failing, ws, 100);
  });

  async function expectNothingCharged(workspace: TestWorkspace, placeIds: string[]) {
    expect(await ledgerState(failing, workspace)).toEqual({ balance: 110, charged: [], leads: [] });
    expect(await placeRows(failing, placeIds)).toEqual([]);
  }

  it("retries a transient 500 and then succeeds", async () => {
    const location = uniqueLocation("Flaky");
    program(location, placesFor(location, 2));
    fake.failNext(1, 500);
    const body = await searchOk(ws, { queries: [query(location)], max_results: 5 }, failing);
    expect(body.results).toHaveLength(2);
    expect(body.credits_spent).toBe(2);
  });

  it("answers 500 internal_error when 500s persist, charging and saving nothing", async () => {
    const location = uniqueLocation("Down");
    const places = placesFor(location, 5);
    program(location, places);
    fake.failNext(10, 500);
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    expectError(response, 500, "internal_error");
    expect(fake.requests.length).toBe(3); // 1 attempt + 2 retries
    await expectNothingCharged(
      ws,
      places.map((place) => place.id),
    );
  });

  it("charges nothing when a later query fails after earlier ones succeeded", async () => {
    const first = uniqueLocation("Fine");
    const second = uniqueLocation("Broken");
    const good = placesFor(first, 3);
    program(first, good);
    program(second, placesFor(second, 3));
    beforeQuery = (textQuery) => {
      if (textQuery.includes(second)) fake.failNext(10, 503);
    };
    const response = await search(ws, { queries: [query(first), query(second)], max_results: 25 }, failing);
    expectError(response, 500, "internal_error");
    await expectNothingCharged(
      ws,
      good.map((place) => place.id),
    );
  });

  it("answers 500 internal_error when the provider times out, charging nothing", async () => {
    const location = uniqueLocation("Slow");
    const places = placesFor(location, 5);
    program(location, places);
    fake.setDelay(1_000); // the provider gives up after 250 ms per attempt
    const started = Date.now();
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    fake.setDelay(0);
    expectError(response, 500, "internal_error");
    expect(Date.now() - started).toBeLessThan(5_000);
    await expectNothingCharged(
      ws,
      places.map((place) => place.id),
    );
  });

  it.each([["json" as const], ["shape" as const]])(
    "answers 500 internal_error to a malformed answer (%s), charging nothing",
    async (kind) => {
      const location = uniqueLocation("Garbled");
      const places = placesFor(location, 5);
      program(location, places);
      fake.malformedNext(5, kind);
      const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
      expectError(response, 500, "internal_error");
      await expectNothingCharged(
        ws,
        places.map((place) => place.id),
      );
    },
  );

  it("returns a correct partial scan when the page token expires on page 2", async () => {
    const location = uniqueLocation("Expiry");
    const places = placesFor(location, 45);
    program(location, places);
    afterPage = (_textQuery, pageNumber) => {
      if (pageNumber === 1) fake.expireTokens();
    };
    const body = await searchOk(ws, { queries: [query(location)], max_results: 25 }, failing);
    expect(ids(body)).toEqual(places.slice(0, 20).map((place) => place.id));
    expect(body.credits_spent).toBe(20);
    expect(body.truncated).toBe(true);
    const state = await ledgerState(failing, ws);
    expect(state.balance).toBe(90);
    expect(state.charged).toEqual(
      places
        .slice(0, 20)
        .map((place) => place.id)
        .sort(),
    );
    expect(state.leads).toHaveLength(20);
    // The token was refused once, not retried as if the provider were down.
    expect(fake.requests).toHaveLength(2);
  });

  it("goes on with the next query after a page token expired", async () => {
    const first = uniqueLocation("Expiring");
    const second = uniqueLocation("Afterwards");
    const a = placesFor(first, 30);
    const b = placesFor(second, 2);
    program(first, a);
    program(second, b);
    afterPage = (textQuery, pageNumber) => {
      if (textQuery.includes(first) && pageNumber === 1) fake.expireTokens();
    };
    const body = await searchOk(ws, { queries: [query(first), query(second)], max_results: 25 }, failing);
    expect(ids(body)).toEqual([...a.slice(0, 20), ...b].map((place) => place.id));
    expect(body.truncated).toBe(true);
    expect(body.credits_spent).toBe(22);
  });

  it("never leaks the provider's message or the API key in the error body", async () => {
    const location = uniqueLocation("Leaky");
    program(location, placesFor(location, 2));
    const secret = `backend shard-7f3 exploded near ${fake.apiKey}`;
    fake.failNext(10, 503, { message: secret, reason: "BACKEND_SHARD_DOWN" });
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    expectError(response, 500, "internal_error");
    for (const leaked of ["shard-7f3", "exploded", fake.apiKey, "BACKEND_SHARD_DOWN", "UNAVAILABLE", "503"]) {
      expect(response.body).not.toContain(leaked);
    }
    expect(JSON.stringify(response.headers)).not.toContain(fake.apiKey);
  });

  it("answers 500 internal_error to a rejected API key without echoing the key or Google's text", async () => {
    const wrongKey = `wrong-key-${randomUUID()}`;
    failingTarget = fastProvider(wrongKey);
    const location = uniqueLocation("Badkey");
    const places = placesFor(location, 2);
    program(location, places);
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    expectError(response, 500, "internal_error");
    for (const leaked of [wrongKey, fake.apiKey, "API key not valid", "API_KEY_INVALID"]) {
      expect(response.body).not.toContain(leaked);
    }
    expect(fake.requests).toHaveLength(1); // a rejected key is not retried
    await expectNothingCharged(
      ws,
      places.map((place) => place.id),
    );
  });
});
