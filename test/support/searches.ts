/**
 * What the POST /v1/searches tests share (they are split by outcome: validation, scan, charging,
 * provider failures): the answer's shape, the ledger read in SQL, and and the world each file starts
 * (`searchesWorld`).
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeEach, expect } from "vitest";
import type { Db } from "../../shared/db/database.ts";
import { adminRequest, startTestApp, type TestApp, type TestWorkspace } from "./app.ts";
import { type FakeGooglePlacesServer, type GooglePlaceJson, syntheticPlaces } from "./fake-google-places.ts";
import { googlePlacesTest } from "./google-places-test.ts";

/** An app under test and the database it runs on. */
export interface Target {
  app: FastifyInstance;
  database: { db: Db };
}

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
export interface SearchBody {
  results: ResultLead[];
  credits_spent: number;
  truncated: boolean;
}

/** A location no other test uses, so its text queries and place ids are its own. */
export function uniqueLocation(label: string): string {
  return `${label} ${randomUUID().slice(0, 8)}`;
}

/**
 * Places with websites and at least 10 reviews each: their opportunity scores are equal (0, nothing
 * checked but the reviews), so the results keep the scan's order, which is what these tests are
 * about (results are ordered by score first).
 */
export function placesFor(location: string, count: number, ratingOf?: (index: number) => number | undefined) {
  const prefix = location.replaceAll(" ", "-");
  return syntheticPlaces(count, ratingOf ? { prefix, ratingOf } : { prefix }).map((place, index) => ({
    ...place,
    userRatingCount: 10 + index,
  }));
}

export function withoutWebsite(place: GooglePlaceJson): GooglePlaceJson {
  const { websiteUri: _dropped, ...rest } = place;
  return rest as GooglePlaceJson;
}

export function expectError(response: LightMyRequestResponse, status: number, code: string): string {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code, message: expect.any(String) } });
  return body.error.message;
}

export async function buyCredits(app: Target, ws: TestWorkspace, credits: number): Promise<void> {
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

export async function balanceOf(app: Target, ws: TestWorkspace): Promise<number> {
  const response = await app.app.inject({ url: "/v1/credits", headers: ws.auth });
  expect(response.statusCode).toBe(200);
  return (response.json() as { balance: number }).balance;
}

/** What the database holds for a workspace: its balance, its ledger and its leads. */
export async function ledgerState(app: Target, ws: TestWorkspace) {
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

export async function placeRows(app: Target, placeIds: string[]) {
  if (placeIds.length === 0) return [];
  return app.database.db
    .selectFrom("places")
    .select(["place_id", "name"])
    .where("place_id", "in", placeIds)
    .orderBy("place_id")
    .execute();
}

export const ids = (body: SearchBody) => body.results.map((result) => result.place_id);
export const query = (location: string, category = "plumber") => ({ location, category });

/** What a searches file runs against: the fake Places server and the app as deployed. */
interface SearchWorld {
  fake: FakeGooglePlacesServer;
  /** The app as deployed: it builds its own Google Places provider from the environment. */
  t: TestApp;
}

/**
 * For the file that calls it: the fake Places server (the fixture) and an app pointed at it,
 * started before its tests, closed after them, the fake's faults and requests forgotten before
 * each test; and the helpers that speak to them (`search` to the file's app unless told another).
 */
export function searchesWorld() {
  const world = {} as SearchWorld;
  // Four files start this world at once where one did: on PGlite each migrates a database of its
  // own, which took over the default 60 s on a machine this loaded, so the start is allowed more.
  googlePlacesTest.beforeAll(async ({ googlePlaces }) => {
    world.fake = googlePlaces;
    world.t = await startTestApp({
      ...googlePlaces.env,
      RATE_LIMIT_SEARCH_PER_MIN: "1000",
      RATE_LIMIT_READ_PER_MIN: "1000",
    });
  }, 180_000);
  afterAll(async () => {
    await world.t?.close();
  });
  beforeEach(() => {
    world.fake.reset();
  });

  /** Programs `places` for "<category> in <location>", the provider's text query. */
  function program(location: string, places: GooglePlaceJson[], category = "plumber"): void {
    world.fake.setPlaces(`${category} in ${location}`, places);
  }

  function search(
    ws: TestWorkspace,
    payload: unknown,
    app: Target = world.t,
  ): Promise<LightMyRequestResponse> {
    return app.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: ws.auth,
      payload: payload as object,
    });
  }

  async function searchOk(ws: TestWorkspace, payload: unknown, app: Target = world.t): Promise<SearchBody> {
    const response = await search(ws, payload, app);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as SearchBody;
  }

  /** Requests the fake received for one text query, in order. */
  function requestsFor(location: string, category = "plumber") {
    const wanted = `${category} in ${location}`.toLowerCase();
    return world.fake.requests.filter(
      (request) =>
        typeof request.body === "object" &&
        request.body !== null &&
        String((request.body as { textQuery?: unknown }).textQuery).toLowerCase() === wanted,
    );
  }

  return { world, program, search, searchOk, requestsFor };
}
