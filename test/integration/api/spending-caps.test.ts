/**
 * Spending caps per API key (issue 28 item 4): a charge that would pass a key's daily or total
 * cap answers 402 insufficient_credits naming the cap, saves and charges nothing (balance, ledger,
 * leads and spends read in SQL), and leaves the workspace's other keys working. Through the real
 * route and the fake Places server; concurrent charges on one cap on whichever database the
 * project runs (PostgreSQL in `integration`).
 */
import { describe, expect, it } from "vitest";
import { adminRequest, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import {
  buyCredits,
  expectError,
  ledgerState,
  placesFor,
  query,
  searchesWorld,
  uniqueLocation,
} from "../../support/searches.ts";

const { world, program, search, searchOk } = searchesWorld();

async function secondKey(
  ws: TestWorkspace,
  caps: Record<string, number | null> = {},
): Promise<TestWorkspace> {
  const response = await adminRequest(world.t.app, "POST", `/admin/workspaces/${ws.workspaceId}/api-keys`, {
    name: "capped",
    created_by: ws.memberId,
    ...caps,
  });
  expect(response.statusCode, response.body).toBe(201);
  const { id, key } = response.json() as { id: string; key: string };
  return { ...ws, keyId: id, key, auth: { authorization: `Bearer ${key}` } };
}

async function spends(ws: TestWorkspace) {
  return world.t.database.db
    .selectFrom("credit_spends")
    .select(["api_key_id", "credits"])
    .where("workspace_id", "=", ws.workspaceId)
    .execute();
}

async function listedKey(ws: TestWorkspace, keyId: string) {
  const response = await adminRequest(world.t.app, "GET", `/admin/workspaces/${ws.workspaceId}/api-keys`);
  expect(response.statusCode).toBe(200);
  const keys = (response.json() as { api_keys: Array<Record<string, unknown>> }).api_keys;
  return keys.find((key) => key.id === keyId);
}

describe("spending caps per API key", () => {
  it("a capped key's search past its total cap answers 402, nothing saved or charged; another key still works", async () => {
    const ws = await createWorkspace(world.t.app);
    await buyCredits(world.t, ws, 100);
    const capped = await secondKey(ws, { total_credit_cap: 3 });
    expect(await listedKey(ws, capped.keyId)).toMatchObject({
      daily_credit_cap: null,
      total_credit_cap: 3,
      spent_today: 0,
      spent_total: 0,
    });

    const first = uniqueLocation("Captown");
    program(first, placesFor(first, 2));
    expect((await searchOk(capped, { queries: [query(first)], max_results: 5 })).credits_spent).toBe(2);

    const second = uniqueLocation("Captown");
    program(second, placesFor(second, 2));
    const before = await ledgerState(world.t, ws);
    const message = expectError(
      await search(capped, { queries: [query(second)], max_results: 5 }),
      402,
      "insufficient_credits",
    );
    expect(message).toContain("total credit cap of 3");
    expect(message).toContain("spent 2");
    expect(await ledgerState(world.t, ws)).toEqual(before);
    expect(before.balance).toBe(108);
    expect(await spends(ws)).toEqual([{ api_key_id: capped.keyId, credits: 2 }]);

    // The workspace's uncapped key finds the same places and is charged for them.
    expect((await searchOk(ws, { queries: [query(second)], max_results: 5 })).credits_spent).toBe(2);
    expect((await ledgerState(world.t, ws)).balance).toBe(106);
    expect(await listedKey(ws, capped.keyId)).toMatchObject({ spent_today: 2, spent_total: 2 });
    expect(await listedKey(ws, ws.keyId)).toMatchObject({
      spent_today: 2,
      spent_total: 2,
      total_credit_cap: null,
    });

    // Raising the cap (PATCH) lets the capped key spend again; null clears it.
    const patched = await adminRequest(
      world.t.app,
      "PATCH",
      `/admin/workspaces/${ws.workspaceId}/api-keys/${capped.keyId}`,
      { total_credit_cap: null, daily_credit_cap: 50 },
    );
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ total_credit_cap: null, daily_credit_cap: 50, spent_total: 2 });
    const third = uniqueLocation("Captown");
    program(third, placesFor(third, 2));
    expect((await searchOk(capped, { queries: [query(third)], max_results: 5 })).credits_spent).toBe(2);
  });

  it("a daily cap refuses past it and resets at the UTC day (spends moved to yesterday in SQL)", async () => {
    const ws = await createWorkspace(world.t.app);
    await buyCredits(world.t, ws, 100);
    const capped = await secondKey(ws, { daily_credit_cap: 2 });
    const first = uniqueLocation("Daytown");
    program(first, placesFor(first, 2));
    await searchOk(capped, { queries: [query(first)], max_results: 5 });

    const second = uniqueLocation("Daytown");
    program(second, placesFor(second, 1));
    const before = await ledgerState(world.t, ws);
    const message = expectError(
      await search(capped, { queries: [query(second)], max_results: 5 }),
      402,
      "insufficient_credits",
    );
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(message).toContain("daily credit cap of 2");
    expect(message).toContain(`resets at ${tomorrow}T00:00:00.000Z`);
    expect(await ledgerState(world.t, ws)).toEqual(before);

    // Yesterday's spending no longer counts against today's cap; it still counts in the total.
    await world.t.database.db
      .updateTable("credit_spends")
      .set({ spent_at: new Date(Date.now() - 86_400_000 - 60_000) })
      .where("api_key_id", "=", capped.keyId)
      .execute();
    expect((await searchOk(capped, { queries: [query(second)], max_results: 5 })).credits_spent).toBe(1);
    expect(await listedKey(ws, capped.keyId)).toMatchObject({ spent_today: 1, spent_total: 3 });
  });

  it("concurrent searches of one key cannot pass its total cap together", async () => {
    const ws = await createWorkspace(world.t.app);
    await buyCredits(world.t, ws, 100);
    const capped = await secondKey(ws, { total_credit_cap: 4 });
    const locations = Array.from({ length: 6 }, () => uniqueLocation("Racetown"));
    for (const location of locations) program(location, placesFor(location, 2));
    const responses = await Promise.all(
      locations.map((location) => search(capped, { queries: [query(location)], max_results: 5 })),
    );
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([200, 200, 402, 402, 402, 402]);
    const total = (await spends(ws)).reduce((sum, row) => sum + row.credits, 0);
    expect(total).toBe(4);
    const state = await ledgerState(world.t, ws);
    expect(state.balance).toBe(110 - 4);
    expect(state.charged).toHaveLength(4);
    expect(state.leads).toHaveLength(4);
  });

  it("PATCH refuses an unknown key and a negative cap", async () => {
    const ws = await createWorkspace(world.t.app);
    const unknown = await adminRequest(
      world.t.app,
      "PATCH",
      `/admin/workspaces/${ws.workspaceId}/api-keys/00000000-0000-4000-8000-000000000000`,
      { total_credit_cap: 5 },
    );
    expect(unknown.statusCode).toBe(404);
    const negative = await adminRequest(
      world.t.app,
      "PATCH",
      `/admin/workspaces/${ws.workspaceId}/api-keys/${ws.keyId}`,
      { daily_credit_cap: -1 },
    );
    expect(negative.statusCode).toBe(400);
  });
});
