/**
 * POST /v1/searches, provider failures: retries, timeouts, malformed answers, expired page tokens
 * and a rejected key, each charging nothing (spec "POST /v1/searches", errors).
 * Through the real route (`inject`) and the real Google Places provider talking HTTP to the fake
 * Places server. The other outcomes are in the `searches-*` files beside this one; what they share
 * (the app, the fake and the helpers) is in test/support/searches.ts.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../../api/app.ts";
import { createServices, type Services } from "../../../api/services.ts";
import { createLogger } from "../../../shared/logger.ts";
import { createGooglePlacesProvider } from "../../../shared/places/google-places.ts";
import type { PlacesProvider, SearchTextOptions, TextSearchQuery } from "../../../shared/places/types.ts";
import { createWorkspace, type TestWorkspace } from "../../support/app.ts";
import {
  buyCredits,
  expectError,
  ids,
  ledgerState,
  placeRows,
  placesFor,
  query,
  searchesWorld,
  type Target,
  uniqueLocation,
} from "../../support/searches.ts";

const { world, program, search, searchOk } = searchesWorld();

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

function fastProvider(apiKey: string): PlacesProvider {
  return createGooglePlacesProvider({
    apiKey,
    baseUrl: world.fake.baseUrl,
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
  failingTarget = fastProvider(world.fake.apiKey);
  failingServices = await createServices(world.t.config, createLogger("silent", "test"), {
    db: world.t.database.db,
    places: hookedProvider,
  });
  const failingApp = await buildApp({ services: failingServices });
  await failingApp.ready();
  failing = { app: failingApp, database: world.t.database };
});
afterAll(async () => {
  await failing?.app.close();
  await failingServices?.close(); // leaves the shared database open: it was passed in
});
beforeEach(() => {
  failingTarget = fastProvider(world.fake.apiKey);
  beforeQuery = undefined;
  afterPage = undefined;
});

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
    world.fake.failNext(1, 500);
    const body = await searchOk(ws, { queries: [query(location)], max_results: 5 }, failing);
    expect(body.results).toHaveLength(2);
    expect(body.credits_spent).toBe(2);
  });

  it("answers 500 internal_error when 500s persist, charging and saving nothing", async () => {
    const location = uniqueLocation("Down");
    const places = placesFor(location, 5);
    program(location, places);
    world.fake.failNext(10, 500);
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    expectError(response, 500, "internal_error");
    expect(world.fake.requests.length).toBe(3); // 1 attempt + 2 retries
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
      if (textQuery.includes(second)) world.fake.failNext(10, 503);
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
    world.fake.setDelay(1_000); // the provider gives up after 250 ms per attempt
    const started = Date.now();
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    world.fake.setDelay(0);
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
      world.fake.malformedNext(5, kind);
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
      if (pageNumber === 1) world.fake.expireTokens();
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
    expect(world.fake.requests).toHaveLength(2);
  });

  it("goes on with the next query after a page token expired", async () => {
    const first = uniqueLocation("Expiring");
    const second = uniqueLocation("Afterwards");
    const a = placesFor(first, 30);
    const b = placesFor(second, 2);
    program(first, a);
    program(second, b);
    afterPage = (textQuery, pageNumber) => {
      if (textQuery.includes(first) && pageNumber === 1) world.fake.expireTokens();
    };
    const body = await searchOk(ws, { queries: [query(first), query(second)], max_results: 25 }, failing);
    expect(ids(body)).toEqual([...a.slice(0, 20), ...b].map((place) => place.id));
    expect(body.truncated).toBe(true);
    expect(body.credits_spent).toBe(22);
  });

  it("never leaks the provider's message or the API key in the error body", async () => {
    const location = uniqueLocation("Leaky");
    program(location, placesFor(location, 2));
    const secret = `backend shard-7f3 exploded near ${world.fake.apiKey}`;
    world.fake.failNext(10, 503, { message: secret, reason: "BACKEND_SHARD_DOWN" });
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    expectError(response, 500, "internal_error");
    for (const leaked of [
      "shard-7f3",
      "exploded",
      world.fake.apiKey,
      "BACKEND_SHARD_DOWN",
      "UNAVAILABLE",
      "503",
    ]) {
      expect(response.body).not.toContain(leaked);
    }
    expect(JSON.stringify(response.headers)).not.toContain(world.fake.apiKey);
  });

  it("answers 500 internal_error to a rejected API key without echoing the key or Google's text", async () => {
    const wrongKey = `wrong-key-${randomUUID()}`;
    failingTarget = fastProvider(wrongKey);
    const location = uniqueLocation("Badkey");
    const places = placesFor(location, 2);
    program(location, places);
    const response = await search(ws, { queries: [query(location)], max_results: 5 }, failing);
    expectError(response, 500, "internal_error");
    for (const leaked of [wrongKey, world.fake.apiKey, "API key not valid", "API_KEY_INVALID"]) {
      expect(response.body).not.toContain(leaked);
    }
    expect(world.fake.requests).toHaveLength(1); // a rejected key is not retried
    await expectNothingCharged(
      ws,
      places.map((place) => place.id),
    );
  });
});
