/**
 * Credit holds in the ledger (shared/credits/ledger.ts): a credit set aside before paid work starts
 * (a draft before the model is called). On PostgreSQL and on PGlite: parallel holds never set aside
 * more than the balance; a search charge cannot spend a held credit (over the real search route);
 * a hold is never visible as a lower balance; a lapsed hold counts for nothing; and a random
 * concurrent mix of holds, settlements, releases, charges and purchases keeps the books exact.
 */
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { CreditHold } from "../../../shared/credits/holds.ts";
import {
  debitBalance,
  holdCredits,
  purchaseCredits,
  readBalance,
  releaseHold,
  settleHold,
} from "../../../shared/credits/ledger.ts";
import type { Db } from "../../../shared/db/database.ts";
import { isApiError } from "../../../shared/errors.ts";
import { createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";
import { type FakeGooglePlacesServer, syntheticPlaces } from "../../support/fake-google-places.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";

let places: FakeGooglePlacesServer;
let t: TestApp;
let baseUrl: string;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  t = await startTestApp({
    ...places.env,
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    RATE_LIMIT_READ_PER_MIN: "1000",
  });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => places.reset());

const DRAFT_HOLD = {
  credits: 1,
  purpose: "draft",
  ttlMs: 60_000,
  describeShortfall: (available: number) => `A draft costs 1 credit and the balance is ${available}.`,
};

async function setBalance(db: Db, workspaceId: string, balance: number) {
  await db.updateTable("workspaces").set({ balance }).where("id", "=", workspaceId).execute();
}

async function liveHolds(db: Db, workspaceId: string): Promise<number> {
  const rows = await db
    .selectFrom("credit_holds")
    .select("credits")
    .where("workspace_id", "=", workspaceId)
    .where("expires_at", ">", new Date())
    .execute();
  return rows.reduce((sum, row) => sum + row.credits, 0);
}

/** A 402 from the ledger, or the value. */
async function settled<T>(attempt: Promise<T>): Promise<T | "402"> {
  try {
    return await attempt;
  } catch (error) {
    if (isApiError(error) && error.code === "insufficient_credits") return "402";
    throw error;
  }
}

describe("holds", () => {
  it("ten parallel holds at balance 3: three set aside, seven 402, the balance unchanged until settled", async () => {
    const db = t.database.db;
    const ws = await createWorkspace(t.app);
    await setBalance(db, ws.workspaceId, 3);

    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => settled(holdCredits(db, ws.workspaceId, DRAFT_HOLD))),
    );
    const holds = outcomes.filter((outcome): outcome is CreditHold => outcome !== "402");
    expect(holds).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === "402")).toHaveLength(7);
    // A hold is not a charge: every other route still reads the balance as 3; none of it is available.
    expect(await readBalance(db, ws.workspaceId)).toBe(3);
    expect(await liveHolds(db, ws.workspaceId)).toBe(3);

    const [first, second, third] = holds as [CreditHold, CreditHold, CreditHold];
    await db.transaction().execute((trx) => settleHold(trx, first));
    await db.transaction().execute((trx) => settleHold(trx, second));
    await releaseHold(db, third);
    expect(await readBalance(db, ws.workspaceId)).toBe(1);
    expect(await liveHolds(db, ws.workspaceId)).toBe(0);
  });

  it("a debit cannot spend a held credit; the 402 says why the balance looks higher", async () => {
    const db = t.database.db;
    const ws = await createWorkspace(t.app);
    await setBalance(db, ws.workspaceId, 2);
    const hold = await holdCredits(db, ws.workspaceId, DRAFT_HOLD);

    const refused = await db
      .transaction()
      .execute((trx) => debitBalance(trx, ws.workspaceId, 2))
      .catch((error: unknown) => error);
    expect(isApiError(refused) && refused.code).toBe("insufficient_credits");
    expect((refused as Error).message).toContain(
      "the balance is 1. 1 more credit is held by drafts in progress.",
    );
    expect(await db.transaction().execute((trx) => debitBalance(trx, ws.workspaceId, 1))).toBe(1);
    await db.transaction().execute((trx) => settleHold(trx, hold));
    expect(await readBalance(db, ws.workspaceId)).toBe(0);
  });

  it("a lapsed hold counts for nothing, and settling it charges only what is still available", async () => {
    const db = t.database.db;
    const ws = await createWorkspace(t.app);
    await setBalance(db, ws.workspaceId, 1);
    const lapsed = await holdCredits(db, ws.workspaceId, { ...DRAFT_HOLD, ttlMs: 60_000 });
    // Time passing, without a sleep: the hold's end moved to the past.
    await db
      .updateTable("credit_holds")
      .set({ expires_at: new Date(Date.now() - 1_000) })
      .execute();
    expect(await liveHolds(db, ws.workspaceId)).toBe(0);

    // Someone else may take the credit now...
    const other = await holdCredits(db, ws.workspaceId, DRAFT_HOLD);
    // ...and the late settlement of the lapsed hold then finds nothing available: 402, no debt.
    const late = await db
      .transaction()
      .execute((trx) => settleHold(trx, lapsed))
      .catch((error: unknown) => error);
    expect(isApiError(late) && late.code).toBe("insufficient_credits");
    await db.transaction().execute((trx) => settleHold(trx, other));
    expect(await readBalance(db, ws.workspaceId)).toBe(0);
  });
});

describe("the search route counts live holds", () => {
  it("at balance 1 with the credit held by a draft, a search finding one new place answers 402 and saves nothing", async () => {
    const db = t.database.db;
    const ws = await createWorkspace(t.app);
    await setBalance(db, ws.workspaceId, 1);
    const location = `Holdville ${Math.random().toString(36).slice(2, 8)}`;
    places.setPlaces(`plumber in ${location}`, syntheticPlaces(1, { prefix: location.replaceAll(" ", "-") }));
    const search = () =>
      fetch(`${baseUrl}/v1/searches`, {
        method: "POST",
        headers: { ...ws.auth, "content-type": "application/json" },
        body: JSON.stringify({ queries: [{ location, category: "plumber" }], max_results: 1 }),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));

    const hold = await holdCredits(db, ws.workspaceId, DRAFT_HOLD);
    const refused = await search();
    expect(refused).toMatchObject({ status: 402, body: { error: { code: "insufficient_credits" } } });
    const leads = await db
      .selectFrom("leads")
      .select("id")
      .where("workspace_id", "=", ws.workspaceId)
      .execute();
    expect(leads).toEqual([]);

    await releaseHold(db, hold);
    expect(await search()).toMatchObject({ status: 200, body: { credits_spent: 1 } });
    expect(await readBalance(db, ws.workspaceId)).toBe(0);
  });
});

type Operation =
  | { kind: "hold"; outcome: "settle" | "release" | "abandon" }
  | { kind: "debit"; credits: number }
  | { kind: "purchase"; credits: number };

const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant("hold" as const),
    outcome: fc.constantFrom("settle" as const, "release" as const, "abandon" as const),
  }),
  fc.record({ kind: fc.constant("debit" as const), credits: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("purchase" as const), credits: fc.integer({ min: 1, max: 2 }) }),
);

describe("ledger property: random concurrent holds, settlements, releases, charges and purchases", () => {
  it("keeps balance = 10 + purchases - charges, never below the live holds, never negative", async () => {
    const db = t.database.db;
    await fc.assert(
      fc.asyncProperty(fc.array(operationArb, { minLength: 1, maxLength: 12 }), async (operations) => {
        const ws = await createWorkspace(t.app);
        let charged = 0;
        let purchased = 0;
        let abandoned = 0;
        await Promise.all(
          operations.map(async (operation) => {
            if (operation.kind === "purchase") {
              await purchaseCredits(db, ws.workspaceId, operation.credits);
              purchased += operation.credits;
              return;
            }
            if (operation.kind === "debit") {
              const outcome = await settled(
                db.transaction().execute((trx) => debitBalance(trx, ws.workspaceId, operation.credits)),
              );
              if (outcome !== "402") charged += operation.credits;
              return;
            }
            const hold = await settled(holdCredits(db, ws.workspaceId, DRAFT_HOLD));
            if (hold === "402") return;
            if (operation.outcome === "settle") {
              await db.transaction().execute((trx) => settleHold(trx, hold));
              charged += 1;
            } else if (operation.outcome === "release") {
              await releaseHold(db, hold);
            } else {
              abandoned += 1;
            }
          }),
        );
        const balance = await readBalance(db, ws.workspaceId);
        expect(balance).toBe(10 + purchased - charged);
        // Abandoned holds (a crashed process) still fit inside the balance until they lapse.
        expect(await liveHolds(db, ws.workspaceId)).toBe(abandoned);
        expect(balance).toBeGreaterThanOrEqual(abandoned);
      }),
      { numRuns: 15 },
    );
  });
});
