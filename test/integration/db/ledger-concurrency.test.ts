/**
 * The ledger under concurrency (DESIGN: "Concurrent identical searches never charge a place twice
 * and never drive the balance below 0"): parallel searches over real HTTP, and a property-based
 * test of random interleavings of searches and purchases against the ledger functions.
 */
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { purchaseCredits } from "../../../shared/credits/ledger.ts";
import type { Db } from "../../../shared/db/database.ts";
import { isApiError } from "../../../shared/errors.ts";
import type { SavedLead } from "../../../shared/leads/leads.ts";
import { chargeAndSaveLeads } from "../../../shared/search/save.ts";
import type { ScannedPlace } from "../../../shared/search/scan.ts";
import { createWorkspace, startTestApp, type TestApp, type TestWorkspace } from "../../support/app.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

let fake: FakeGooglePlacesServer;
let t: TestApp;
let baseUrl: string;

test.beforeAll(async ({ googlePlaces }) => {
  fake = googlePlaces;
  t = await startTestApp({
    ...fake.env,
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    RATE_LIMIT_READ_PER_MIN: "1000",
  });
  // Real sockets, so that on PostgreSQL the requests truly run side by side on the pool.
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => fake.reset());

let locationCounter = 0;
function newLocation(label: string): string {
  locationCounter += 1;
  return `${label} ${locationCounter} ${Math.random().toString(36).slice(2, 8)}`;
}

async function postSearch(
  ws: TestWorkspace,
  body: unknown,
): Promise<{
  status: number;
  body: { results?: { id: string; place_id: string }[]; credits_spent?: number; error?: { code: string } };
}> {
  const response = await fetch(`${baseUrl}/v1/searches`, {
    method: "POST",
    headers: { ...ws.auth, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as never };
}

async function workspaceState(db: Db, workspaceId: string) {
  const { balance } = await db
    .selectFrom("workspaces")
    .select("balance")
    .where("id", "=", workspaceId)
    .executeTakeFirstOrThrow();
  const charges = await db
    .selectFrom("search_charges")
    .select("place_id")
    .where("workspace_id", "=", workspaceId)
    .execute();
  const leads = await db
    .selectFrom("leads")
    .select(["id", "place_id"])
    .where("workspace_id", "=", workspaceId)
    .execute();
  return { balance, charges: charges.map((row) => row.place_id), leads };
}

/** Reads the balance in a loop until stopped; returns the lowest value seen. */
function watchBalance(db: Db, workspaceId: string): { stop(): Promise<number> } {
  let running = true;
  let lowest = Number.POSITIVE_INFINITY;
  const loop = (async () => {
    while (running) {
      const row = await db
        .selectFrom("workspaces")
        .select("balance")
        .where("id", "=", workspaceId)
        .executeTakeFirstOrThrow();
      lowest = Math.min(lowest, row.balance);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return lowest;
    },
  };
}

describe("parallel searches over HTTP", () => {
  it("charges each place exactly once when 20 identical searches race (balance covers them once)", async () => {
    const ws = await createWorkspace(t.app);
    const location = newLocation("Raceville");
    const places = syntheticPlaces(6, { prefix: location.replaceAll(" ", "-") });
    fake.setPlaces(`plumber in ${location}`, places);
    const request = { queries: [{ location, category: "plumber" }], max_results: 25 };

    const watcher = watchBalance(t.database.db, ws.workspaceId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => postSearch(ws, request)));
    const lowest = await watcher.stop();

    for (const response of responses) expect([200, 402]).toContain(response.status);
    // Stronger, from rule 2: once one search charged the six, the others find them already charged
    // and free, so none may be refused.
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const spent = responses.map((response) => response.body.credits_spent ?? 0).sort((a, b) => b - a);
    expect(spent).toEqual([6, ...Array(19).fill(0)]);

    const state = await workspaceState(t.database.db, ws.workspaceId);
    expect(state.charges.sort()).toEqual(places.map((place) => place.id).sort());
    expect(state.balance).toBe(10 - places.length);
    expect(lowest).toBeGreaterThanOrEqual(0);
    expect(state.leads).toHaveLength(places.length);
    expect(new Set(state.leads.map((lead) => lead.place_id)).size).toBe(places.length);

    // Every response names the same six leads, which are the saved ones.
    const savedIds = state.leads.map((lead) => lead.id).sort();
    for (const response of responses) {
      expect(response.body.results?.map((result) => result.id).sort()).toEqual(savedIds);
    }
  });

  it("refuses all 20 with 402 and saves nothing when the balance cannot cover the places even once", async () => {
    const ws = await createWorkspace(t.app);
    const location = newLocation("Brokeville");
    const places = syntheticPlaces(12, { prefix: location.replaceAll(" ", "-") });
    fake.setPlaces(`plumber in ${location}`, places);
    const request = { queries: [{ location, category: "plumber" }], max_results: 12 };

    const watcher = watchBalance(t.database.db, ws.workspaceId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => postSearch(ws, request)));
    const lowest = await watcher.stop();

    for (const response of responses) {
      expect(response.status).toBe(402);
      expect(response.body.error?.code).toBe("insufficient_credits");
    }
    expect(lowest).toBe(10);
    expect(await workspaceState(t.database.db, ws.workspaceId)).toEqual({
      balance: 10,
      charges: [],
      leads: [],
    });
    const placeRows = await t.database.db
      .selectFrom("places")
      .select("place_id")
      .where(
        "place_id",
        "in",
        places.map((place) => place.id),
      )
      .execute();
    expect(placeRows).toEqual([]);
  });

  it("lets exactly as many different searches through as the balance pays for", async () => {
    const ws = await createWorkspace(t.app);
    // 20 searches, each finding 2 places of its own: 10 credits pay for exactly 5 of them.
    const locations = Array.from({ length: 20 }, () => newLocation("Splitville"));
    for (const location of locations) {
      fake.setPlaces(`plumber in ${location}`, syntheticPlaces(2, { prefix: location.replaceAll(" ", "-") }));
    }
    const watcher = watchBalance(t.database.db, ws.workspaceId);
    const responses = await Promise.all(
      locations.map((location) =>
        postSearch(ws, { queries: [{ location, category: "plumber" }], max_results: 2 }),
      ),
    );
    const lowest = await watcher.stop();

    const ok = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 402);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(15);
    expect(ok.every((response) => response.body.credits_spent === 2)).toBe(true);

    const state = await workspaceState(t.database.db, ws.workspaceId);
    expect(state.balance).toBe(0);
    expect(lowest).toBeGreaterThanOrEqual(0);
    expect(state.charges).toHaveLength(10);
    expect(state.leads.map((lead) => lead.place_id).sort()).toEqual([...state.charges].sort());
    const returned = ok.flatMap((response) => response.body.results ?? []);
    expect(returned.map((result) => result.id).sort()).toEqual(state.leads.map((lead) => lead.id).sort());
  });
});

// ---------------------------------------------------------------------------------------------

/** A small pool, larger than the starting balance, so that some runs hit 402. */
const POOL_SIZE = 14;

function scanned(placeId: string): ScannedPlace {
  return {
    candidate: {
      placeId,
      name: `Business ${placeId}`,
      category: "Plumber",
      address: `${placeId} Main St`,
      website: placeId.endsWith("3") ? null : `https://${placeId}.example/`,
      phone: null,
      permanentlyClosed: false,
      country: "CA",
      rating: 4.5,
      userRatingCount: 12,
    },
    category: "Plumber",
    audit: null,
  };
}

type Operation =
  | { kind: "search"; picks: number[]; delayMs: number }
  | { kind: "purchase"; credits: number; delayMs: number };

const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("search" as const),
      picks: fc.uniqueArray(fc.integer({ min: 0, max: POOL_SIZE - 1 }), { minLength: 0, maxLength: 8 }),
      delayMs: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("purchase" as const),
      credits: fc.integer({ min: 1, max: 4 }),
      delayMs: fc.integer({ min: 0, max: 3 }),
    }),
  },
);

describe("ledger property: random concurrent searches and purchases", () => {
  it("keeps balance = 10 + purchases - charges, never negative, each place charged at most once", async () => {
    const db = t.database.db;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operationArb, { minLength: 1, maxLength: 12 }), async (operations) => {
        run += 1;
        const { id: workspaceId } = await db
          .insertInto("workspaces")
          .values({ name: `property run ${run}` })
          .returning("id")
          .executeTakeFirstOrThrow();
        // The pool is shared by every run (places are global), the ledger is per workspace.
        const pool = Array.from({ length: POOL_SIZE }, (_, index) => `ledger-pool-${index}`);

        const watcher = watchBalance(db, workspaceId);
        const outcomes = await Promise.allSettled(
          operations.map(async (operation) => {
            await new Promise((resolve) => setTimeout(resolve, operation.delayMs));
            if (operation.kind === "purchase") {
              return { operation, purchase: await purchaseCredits(db, workspaceId, operation.credits) };
            }
            const places = operation.picks.map((pick) => scanned(pool[pick]!));
            return { operation, search: await chargeAndSaveLeads(db, workspaceId, places) };
          }),
        );
        const lowest = await watcher.stop();

        let purchased = 0;
        let spent = 0;
        const mustBeCharged = new Set<string>();
        const returnedLeads: SavedLead[] = [];
        for (const [index, outcome] of outcomes.entries()) {
          const operation = operations[index]!;
          if (outcome.status === "rejected") {
            // Only a search may fail, and only for want of credits.
            expect(operation.kind).toBe("search");
            expect(isApiError(outcome.reason) ? outcome.reason.code : outcome.reason).toBe(
              "insufficient_credits",
            );
            continue;
          }
          if (operation.kind === "purchase") {
            purchased += operation.credits;
            continue;
          }
          const result = outcome.value.search!;
          spent += result.creditsSpent;
          expect(result.creditsSpent).toBeGreaterThanOrEqual(0);
          expect(result.creditsSpent).toBeLessThanOrEqual(operation.picks.length);
          // Every place asked for comes back as a lead.
          expect([...result.leads.keys()].sort()).toEqual(operation.picks.map((pick) => pool[pick]!).sort());
          for (const lead of result.leads.values()) {
            mustBeCharged.add(lead.place_id);
            returnedLeads.push(lead);
          }
        }

        const state = await workspaceState(db, workspaceId);
        const duplicates = await db
          .selectFrom("search_charges")
          .select(["place_id", db.fn.countAll<string>().as("times")])
          .where("workspace_id", "=", workspaceId)
          .groupBy("place_id")
          .having(db.fn.countAll(), ">", 1)
          .execute();
        const purchaseRows = await db
          .selectFrom("credit_purchases")
          .select("credits")
          .where("workspace_id", "=", workspaceId)
          .execute();

        expect(duplicates).toEqual([]);
        expect(state.balance).toBe(10 + purchased - state.charges.length);
        expect(state.balance).toBeGreaterThanOrEqual(0);
        expect(lowest).toBeGreaterThanOrEqual(0);
        expect(purchaseRows.reduce((sum, row) => sum + row.credits, 0)).toBe(purchased);
        // credits_spent over all calls adds up to the ledger: nothing charged silently or twice.
        expect(spent).toBe(state.charges.length);
        // Charged exactly the places some successful search returned; a 402 left no trace.
        expect(new Set(state.charges)).toEqual(mustBeCharged);
        expect(new Set(state.leads.map((lead) => lead.place_id))).toEqual(mustBeCharged);
        expect(state.leads).toHaveLength(mustBeCharged.size);
        // Every returned lead exists, with the id the call returned.
        const leadIdByPlace = new Map(state.leads.map((lead) => [lead.place_id, lead.id]));
        for (const lead of returnedLeads) expect(leadIdByPlace.get(lead.place_id)).toBe(lead.id);
      }),
      { numRuns: 20 },
    );
  });
});
