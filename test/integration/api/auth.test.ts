import { createHash } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, adminRequest, createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_READ_PER_MIN: "1000" });
});
afterAll(() => t?.close());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectInvalidKey(response: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}) {
  expect(response.statusCode).toBe(401);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(response.json()).toEqual({ error: { code: "invalid_api_key", message: expect.any(String) } });
}

async function newKey(workspaceId: string, memberId: string, name = "second") {
  const response = await adminRequest(t.app, "POST", `/admin/workspaces/${workspaceId}/api-keys`, {
    name,
    created_by: memberId,
  });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: string; key: string; created_by: string };
}

async function listKeys(workspaceId: string) {
  const response = await adminRequest(t.app, "GET", `/admin/workspaces/${workspaceId}/api-keys`);
  expect(response.statusCode).toBe(200);
  return (
    response.json() as {
      api_keys: { id: string; created_by: string; last_used_at: string | null; revoked_at: string | null }[];
    }
  ).api_keys;
}

describe("API key authentication", () => {
  it("accepts a valid key", async () => {
    const ws = await createWorkspace(t.app);
    const response = await t.app.inject({ url: "/v1/credits", headers: ws.auth });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ balance: 10 });
  });

  it("accepts the scheme name in any case", async () => {
    const ws = await createWorkspace(t.app);
    const response = await t.app.inject({
      url: "/v1/credits",
      headers: { authorization: `bearer ${ws.key}` },
    });
    expect(response.statusCode).toBe(200);
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["Basic", "Basic eHl6OmFiYw=="],
    ["Basic xyz", "Basic xyz"],
    ["Bearer without a token", "Bearer"],
    ["Bearer with a space only", "Bearer "],
    ["Bearer with junk", "Bearer !!not a key!!"],
    ["Bearer with a short token", "Bearer junk"],
    ["a bare key without the scheme", "ldk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["ldk_ too short", "Bearer ldk_abc"],
    ["ldk_ too long", `Bearer ldk_${"A".repeat(44)}`],
    ["well-formed but unknown ldk_ key", `Bearer ldk_${"A".repeat(43)}`],
  ])("answers 401 invalid_api_key for %s", async (_label, authorization) => {
    const headers = authorization === undefined ? {} : { authorization };
    for (const url of ["/v1/credits", "/v1/leads", "/v1/leads/7d444840-9dc0-41d1-b245-5ffdce74fad2"]) {
      expectInvalidKey(await t.app.inject({ url, headers }));
    }
  });

  it("answers 401 for a key with one character changed", async () => {
    const ws = await createWorkspace(t.app);
    const last = ws.key.at(-1) === "A" ? "B" : "A";
    const tampered = `${ws.key.slice(0, -1)}${last}`;
    expectInvalidKey(
      await t.app.inject({ url: "/v1/credits", headers: { authorization: `Bearer ${tampered}` } }),
    );
  });

  it("does not accept the stored hash as a key", async () => {
    const ws = await createWorkspace(t.app);
    expectInvalidKey(
      await t.app.inject({ url: "/v1/credits", headers: { authorization: `Bearer ${sha256(ws.key)}` } }),
    );
  });

  it("does not accept the admin token as an API key", async () => {
    expectInvalidKey(
      await t.app.inject({ url: "/v1/credits", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    );
  });

  it("refuses a revoked key on the very next request, and only that key", async () => {
    const ws = await createWorkspace(t.app);
    const other = await newKey(ws.workspaceId, ws.memberId);
    expect((await t.app.inject({ url: "/v1/credits", headers: ws.auth })).statusCode).toBe(200);

    const revoke = await adminRequest(
      t.app,
      "DELETE",
      `/admin/workspaces/${ws.workspaceId}/api-keys/${ws.keyId}`,
    );
    expect(revoke.statusCode).toBe(204);

    expectInvalidKey(await t.app.inject({ url: "/v1/credits", headers: ws.auth }));
    expectInvalidKey(await t.app.inject({ url: "/v1/leads", headers: ws.auth }));
    const stillWorking = await t.app.inject({
      url: "/v1/credits",
      headers: { authorization: `Bearer ${other.key}` },
    });
    expect(stillWorking.statusCode).toBe(200);

    const listed = (await listKeys(ws.workspaceId)).find((key) => key.id === ws.keyId);
    expect(listed?.revoked_at).toEqual(expect.any(String));
  });

  it("keeps a key working after its creator is removed from the workspace", async () => {
    const ws = await createWorkspace(t.app);
    const removed = await adminRequest(
      t.app,
      "DELETE",
      `/admin/workspaces/${ws.workspaceId}/members/${ws.memberId}`,
    );
    expect(removed.statusCode).toBe(204);

    const response = await t.app.inject({ url: "/v1/credits", headers: ws.auth });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ balance: 10 });
    // The list still says who created it.
    const [key] = await listKeys(ws.workspaceId);
    expect(key).toMatchObject({ id: ws.keyId, created_by: ws.memberId, revoked_at: null });
  });

  it("scopes a key to its own workspace", async () => {
    const a = await createWorkspace(t.app);
    const b = await createWorkspace(t.app);
    await adminRequest(t.app, "POST", `/admin/workspaces/${a.workspaceId}/credit-purchases`, { credits: 5 });
    expect((await t.app.inject({ url: "/v1/credits", headers: a.auth })).json()).toMatchObject({
      balance: 15,
    });
    expect((await t.app.inject({ url: "/v1/credits", headers: b.auth })).json()).toMatchObject({
      balance: 10,
    });
  });
});

describe("key storage", () => {
  it("stores only the SHA-256 hash of a key, never the plaintext, in any table", async () => {
    const ws = await createWorkspace(t.app);
    const second = await newKey(ws.workspaceId, ws.memberId);
    // Use both keys once so that usage bookkeeping has run too.
    for (const key of [ws.key, second.key]) {
      await t.app.inject({ url: "/v1/credits", headers: { authorization: `Bearer ${key}` } });
    }
    await t.services.keyUsage.flush();

    const rows = await t.database.db
      .selectFrom("api_keys")
      .selectAll()
      .where("workspace_id", "=", ws.workspaceId)
      .execute();
    expect(rows).toHaveLength(2);
    for (const [row, plaintext] of [
      [rows.find((r) => r.id === ws.keyId), ws.key],
      [rows.find((r) => r.id === second.id), second.key],
    ] as const) {
      expect(row?.key_hash).toBe(sha256(plaintext));
      const secretPart = plaintext.slice("ldk_".length);
      for (const value of Object.values(row ?? {})) {
        const text = value instanceof Date ? value.toISOString() : String(value);
        expect(text).not.toContain(plaintext);
        // At most a short recognisable prefix may be kept, never the secret itself.
        expect(text).not.toContain(secretPart.slice(0, 16));
      }
    }

    // Every table of the schema, as text: neither key appears anywhere.
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE'
    `.execute(t.database.db);
    expect(tables.rows.map((row) => row.table_name)).toContain("api_keys");
    for (const { table_name } of tables.rows) {
      const dump = await sql<{
        row: string;
      }>`select t::text as row from ${sql.table(table_name)} as t`.execute(t.database.db);
      const text = dump.rows.map((row) => row.row).join("\n");
      for (const plaintext of [ws.key, second.key]) {
        expect(text, `table ${table_name}`).not.toContain(plaintext.slice("ldk_".length, 24));
      }
    }
  });
});

describe("key usage", () => {
  it("lists who created each key and when it was last used; the list flushes pending usage", async () => {
    const ws = await createWorkspace(t.app);
    const [fresh] = await listKeys(ws.workspaceId);
    expect(fresh).toMatchObject({ id: ws.keyId, created_by: ws.memberId, last_used_at: null });

    const before = Date.now();
    expect((await t.app.inject({ url: "/v1/credits", headers: ws.auth })).statusCode).toBe(200);
    const [used] = await listKeys(ws.workspaceId);
    expect(used?.last_used_at).toEqual(expect.any(String));
    const firstUse = Date.parse(used!.last_used_at!);
    expect(firstUse).toBeGreaterThanOrEqual(before);
    expect(firstUse).toBeLessThanOrEqual(Date.now());

    await sleep(20);
    expect((await t.app.inject({ url: "/v1/leads", headers: ws.auth })).statusCode).toBe(200);
    const [usedAgain] = await listKeys(ws.workspaceId);
    expect(Date.parse(usedAgain!.last_used_at!)).toBeGreaterThan(firstUse);
  });

  it("does not write to api_keys during a request; usage is written on flush", async () => {
    const ws = await createWorkspace(t.app);
    const lastUsed = async () =>
      (
        await t.database.db
          .selectFrom("api_keys")
          .select("last_used_at")
          .where("id", "=", ws.keyId)
          .executeTakeFirstOrThrow()
      ).last_used_at;

    expect((await t.app.inject({ url: "/v1/credits", headers: ws.auth })).statusCode).toBe(200);
    expect(await lastUsed()).toBeNull();

    await t.services.keyUsage.flush();
    const flushed = await lastUsed();
    expect(flushed).toBeInstanceOf(Date);
  });

  it("records no usage for a refused request", async () => {
    const ws = await createWorkspace(t.app);
    await adminRequest(t.app, "DELETE", `/admin/workspaces/${ws.workspaceId}/api-keys/${ws.keyId}`);
    expectInvalidKey(await t.app.inject({ url: "/v1/credits", headers: ws.auth }));
    const [key] = await listKeys(ws.workspaceId);
    expect(key?.last_used_at).toBeNull();
  });
});

describe("admin authentication", () => {
  it.each([
    ["a wrong token", { authorization: "Bearer wrong-admin-token-0123456789" }],
    ["no token", {}],
    ["an API key", null],
    ["Basic auth", { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString("base64")}` }],
  ])("answers 401 to %s", async (_label, headers) => {
    const ws = await createWorkspace(t.app);
    for (const [method, url] of [
      ["POST", "/admin/workspaces"],
      ["GET", `/admin/workspaces/${ws.workspaceId}/api-keys`],
      ["POST", `/admin/workspaces/${ws.workspaceId}/credit-purchases`],
    ] as const) {
      const response = await t.app.inject({
        method,
        url,
        headers: headers ?? ws.auth,
        ...(method === "POST" ? { payload: { name: "x", credits: 5 } } : {}),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: { code: "invalid_api_key", message: expect.any(String) } });
    }
    // Nothing was bought.
    expect((await t.app.inject({ url: "/v1/credits", headers: ws.auth })).json()).toMatchObject({
      balance: 10,
    });
  });

  describe("without ADMIN_TOKEN", () => {
    let bare: TestApp;
    beforeAll(async () => {
      bare = await startTestApp({ ADMIN_TOKEN: "" });
    });
    afterAll(() => bare?.close());

    it("treats an empty ADMIN_TOKEN as unset", () => {
      expect(bare.config.adminToken).toBeUndefined();
    });

    it.each([
      ["POST", "/admin/workspaces"],
      ["GET", "/admin/workspaces/7d444840-9dc0-41d1-b245-5ffdce74fad2/api-keys"],
      ["GET", "/admin"],
    ] as const)("answers 404 not_found to %s %s, whatever the token", async (method, url) => {
      for (const authorization of [`Bearer ${ADMIN_TOKEN}`, "Bearer ", undefined]) {
        const response = await bare.app.inject({
          method,
          url,
          headers: authorization === undefined ? {} : { authorization },
          ...(method === "POST" ? { payload: { name: "x" } } : {}),
        });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });
      }
      const workspaces = await bare.database.db.selectFrom("workspaces").select("id").execute();
      expect(workspaces).toEqual([]);
    });
  });
});
