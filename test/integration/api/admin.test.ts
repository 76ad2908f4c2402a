import { randomUUID } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, createWorkspace, startTestApp, type TestApp } from "../../support/app.ts";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_READ_PER_MIN: "1000" });
});
afterAll(() => t?.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectInvalid(response: LightMyRequestResponse, field?: string) {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status: 400 });
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  const body = response.json() as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });
  if (field) expect(body.error.message).toContain(field);
}

function expectNotFound(response: LightMyRequestResponse) {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status: 404 });
  expect(response.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });
}

async function newWorkspace(body: Record<string, unknown> = { name: "Acme Web" }) {
  const response = await adminRequest(t.app, "POST", "/admin/workspaces", body);
  expect(response.statusCode).toBe(201);
  return response.json() as Record<string, unknown> & { id: string };
}

async function newMember(workspaceId: string, email = `dev-${randomUUID().slice(0, 8)}@agency.test`) {
  const response = await adminRequest(t.app, "POST", `/admin/workspaces/${workspaceId}/members`, { email });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: string; email: string; name: string | null };
}

describe("POST /admin/workspaces", () => {
  it("creates a workspace with 10 credits on a free trial, language en by default", async () => {
    const response = await adminRequest(t.app, "POST", "/admin/workspaces", { name: "Acme Web" });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      id: expect.stringMatching(UUID),
      name: "Acme Web",
      language: "en",
      balance: 10,
      free_trial: true,
    });
  });

  it("takes language fr", async () => {
    expect(await newWorkspace({ name: "Agence Web", language: "fr" })).toMatchObject({
      language: "fr",
      balance: 10,
      free_trial: true,
    });
  });

  it("can be read back", async () => {
    const created = await newWorkspace();
    const response = await adminRequest(t.app, "GET", `/admin/workspaces/${created.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: created.id,
      name: "Acme Web",
      balance: 10,
      free_trial: true,
    });
  });

  it.each([
    ["no name", {}, "name"],
    ["an empty name", { name: "  " }, "name"],
    ["a name that is not a string", { name: 42 }, "name"],
    ["a bad language", { name: "X", language: "de" }, "language"],
    ["an unknown field", { name: "X", balance: 1000 }, "balance"],
    ["another unknown field", { name: "X", free_trial: false }, "free_trial"],
  ])("answers 400 for %s, naming the field", async (_label, body, field) => {
    expectInvalid(await adminRequest(t.app, "POST", "/admin/workspaces", body), field);
  });
});

describe("members", () => {
  it("adds a member: 201 {id, email, name}", async () => {
    const ws = await newWorkspace();
    const response = await adminRequest(t.app, "POST", `/admin/workspaces/${ws.id}/members`, {
      email: "Ana@Agency.test",
      name: "Ana",
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      id: expect.stringMatching(UUID),
      email: "Ana@Agency.test",
      name: "Ana",
    });
  });

  it("refuses a duplicate email with 400, whatever its case", async () => {
    const ws = await newWorkspace();
    await newMember(ws.id, "sam@agency.test");
    for (const email of ["sam@agency.test", "SAM@Agency.Test"]) {
      expectInvalid(
        await adminRequest(t.app, "POST", `/admin/workspaces/${ws.id}/members`, { email }),
        "email",
      );
    }
  });

  it("allows the same email in another workspace", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await newMember(a.id, "shared@agency.test");
    await newMember(b.id, "shared@agency.test");
  });

  it.each([
    ["no email", {}, "email"],
    ["a malformed email", { email: "not-an-email" }, "email"],
    ["an unknown field", { email: "x@agency.test", role: "owner" }, "role"],
  ])("answers 400 for %s", async (_label, body, field) => {
    const ws = await newWorkspace();
    expectInvalid(await adminRequest(t.app, "POST", `/admin/workspaces/${ws.id}/members`, body), field);
  });

  it("removes a member (204); a second removal is 404", async () => {
    const ws = await newWorkspace();
    const member = await newMember(ws.id);
    const url = `/admin/workspaces/${ws.id}/members/${member.id}`;
    expect((await adminRequest(t.app, "DELETE", url)).statusCode).toBe(204);
    expectNotFound(await adminRequest(t.app, "DELETE", url));
  });

  it("a removed member can no longer create keys", async () => {
    const ws = await newWorkspace();
    const member = await newMember(ws.id);
    await adminRequest(t.app, "DELETE", `/admin/workspaces/${ws.id}/members/${member.id}`);
    expectInvalid(
      await adminRequest(t.app, "POST", `/admin/workspaces/${ws.id}/api-keys`, {
        name: "k",
        created_by: member.id,
      }),
      "created_by",
    );
  });
});

describe("API keys", () => {
  it("shows the plaintext ldk_ key only in the create answer", async () => {
    const ws = await newWorkspace();
    const member = await newMember(ws.id);
    const created = await adminRequest(t.app, "POST", `/admin/workspaces/${ws.id}/api-keys`, {
      name: "production server",
      created_by: member.id,
    });
    expect(created.statusCode).toBe(201);
    const key = created.json() as Record<string, string>;
    expect(key).toEqual({
      id: expect.stringMatching(UUID),
      name: "production server",
      key: expect.stringMatching(/^ldk_[A-Za-z0-9_-]{43,}$/),
      created_by: member.id,
      created_at: expect.stringMatching(ISO_MS),
      daily_credit_cap: null,
      total_credit_cap: null,
    });

    const list = await adminRequest(t.app, "GET", `/admin/workspaces/${ws.id}/api-keys`);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(key.key);
    expect(list.body).not.toContain(key.key!.slice(4, 20));
    const [listed] = list.json().api_keys as Record<string, unknown>[];
    expect(listed).toMatchObject({
      id: key.id,
      name: "production server",
      created_by: member.id,
      created_at: key.created_at,
      last_used_at: null,
      revoked_at: null,
    });
    expect(listed).not.toHaveProperty("key");
    expect(listed).not.toHaveProperty("key_hash");

    // The key works.
    const credits = await t.app.inject({
      url: "/v1/credits",
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(credits.statusCode).toBe(200);
  });

  it("makes a different key each time", async () => {
    const ws = await newWorkspace();
    const member = await newMember(ws.id);
    const keys = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const response = await adminRequest(t.app, "POST", `/admin/workspaces/${ws.id}/api-keys`, {
        name: `k${i}`,
        created_by: member.id,
      });
      keys.add(response.json().key);
    }
    expect(keys.size).toBe(3);
    const list = await adminRequest(t.app, "GET", `/admin/workspaces/${ws.id}/api-keys`);
    expect(list.json().api_keys).toHaveLength(3);
  });

  it.each([
    ["no name", (member: string) => ({ created_by: member }), "name"],
    ["no creator", () => ({ name: "k" }), "created_by"],
    ["a creator that is not a uuid", () => ({ name: "k", created_by: "bob" }), "created_by"],
    ["a creator that is not a member", () => ({ name: "k", created_by: randomUUID() }), "created_by"],
    ["an unknown field", (member: string) => ({ name: "k", created_by: member, scopes: ["all"] }), "scopes"],
  ])("answers 400 for %s", async (_label, body, field) => {
    const ws = await newWorkspace();
    const member = await newMember(ws.id);
    expectInvalid(
      await adminRequest(t.app, "POST", `/admin/workspaces/${ws.id}/api-keys`, body(member.id)),
      field,
    );
  });

  it("refuses a member of another workspace as creator", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    const outsider = await newMember(b.id);
    expectInvalid(
      await adminRequest(t.app, "POST", `/admin/workspaces/${a.id}/api-keys`, {
        name: "k",
        created_by: outsider.id,
      }),
      "created_by",
    );
  });

  it("revokes a key (204), shows revoked_at, and 404s for an unknown key", async () => {
    const ws = await createWorkspace(t.app);
    const url = `/admin/workspaces/${ws.workspaceId}/api-keys/${ws.keyId}`;
    expect((await adminRequest(t.app, "DELETE", url)).statusCode).toBe(204);
    const [listed] = (await adminRequest(t.app, "GET", `/admin/workspaces/${ws.workspaceId}/api-keys`)).json()
      .api_keys as { revoked_at: string | null }[];
    expect(listed?.revoked_at).toMatch(ISO_MS);
    expectNotFound(
      await adminRequest(t.app, "DELETE", `/admin/workspaces/${ws.workspaceId}/api-keys/${randomUUID()}`),
    );
  });

  it("cannot revoke another workspace's key", async () => {
    const a = await createWorkspace(t.app);
    const b = await createWorkspace(t.app);
    expectNotFound(
      await adminRequest(t.app, "DELETE", `/admin/workspaces/${b.workspaceId}/api-keys/${a.keyId}`),
    );
    expect((await t.app.inject({ url: "/v1/credits", headers: a.auth })).statusCode).toBe(200);
  });
});

describe("credit purchases", () => {
  it("adds credits and ends the free trial: 201 {balance, free_trial: false}", async () => {
    const ws = await createWorkspace(t.app);
    const url = `/admin/workspaces/${ws.workspaceId}/credit-purchases`;
    const first = await adminRequest(t.app, "POST", url, { credits: 100 });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ balance: 110, free_trial: false });
    const second = await adminRequest(t.app, "POST", url, { credits: 1 });
    expect(second.json()).toEqual({ balance: 111, free_trial: false });

    expect((await t.app.inject({ url: "/v1/credits", headers: ws.auth })).json()).toMatchObject({
      balance: 111,
    });
    const workspace = await adminRequest(t.app, "GET", `/admin/workspaces/${ws.workspaceId}`);
    expect(workspace.json()).toMatchObject({ balance: 111, free_trial: false });
  });

  it("accepts the bounds 1 and 100000", async () => {
    const ws = await createWorkspace(t.app);
    const url = `/admin/workspaces/${ws.workspaceId}/credit-purchases`;
    expect((await adminRequest(t.app, "POST", url, { credits: 1 })).statusCode).toBe(201);
    expect((await adminRequest(t.app, "POST", url, { credits: 100000 })).json()).toEqual({
      balance: 100011,
      free_trial: false,
    });
  });

  it.each([
    ["0", { credits: 0 }],
    ["100001", { credits: 100001 }],
    ["1.5", { credits: 1.5 }],
    ["-5", { credits: -5 }],
    ["a string", { credits: "10" }],
    ["nothing", {}],
    ["an unknown field", { credits: 5, price: 10 }],
  ])("answers 400 for %s and changes nothing", async (_label, body) => {
    const ws = await createWorkspace(t.app);
    const response = await adminRequest(
      t.app,
      "POST",
      `/admin/workspaces/${ws.workspaceId}/credit-purchases`,
      body,
    );
    expectInvalid(response, "price" in body ? "price" : "credits");
    const workspace = await adminRequest(t.app, "GET", `/admin/workspaces/${ws.workspaceId}`);
    expect(workspace.json()).toMatchObject({ balance: 10, free_trial: true });
  });
});

describe("PATCH /admin/workspaces/{id}", () => {
  it("updates language, sender_name, sender_company and the offer per language", async () => {
    const ws = await newWorkspace();
    const response = await adminRequest(t.app, "PATCH", `/admin/workspaces/${ws.id}`, {
      language: "fr",
      sender_name: "Camille Roy",
      sender_company: "Studio Roy",
      offer_en: "a mobile-friendly redesign in two weeks",
      offer_fr: "une refonte adaptée aux téléphones en deux semaines",
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: ws.id,
      name: "Acme Web",
      language: "fr",
      sender_name: "Camille Roy",
      sender_company: "Studio Roy",
      offer_en: "a mobile-friendly redesign in two weeks",
      offer_fr: "une refonte adaptée aux téléphones en deux semaines",
      balance: 10,
      free_trial: true,
    });
  });

  it("changes only the fields sent, and clears one with null", async () => {
    const ws = await newWorkspace();
    const url = `/admin/workspaces/${ws.id}`;
    await adminRequest(t.app, "PATCH", url, {
      sender_name: "Camille",
      offer_en: "a redesign",
      offer_fr: "une refonte",
    });
    const response = await adminRequest(t.app, "PATCH", url, { sender_name: null, offer_fr: null });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      language: "en",
      sender_name: null,
      offer_en: "a redesign",
      offer_fr: null,
    });
  });

  it("answers 200 with the workspace unchanged for an empty body", async () => {
    const ws = await newWorkspace({ name: "Unchanged", language: "fr" });
    const response = await adminRequest(t.app, "PATCH", `/admin/workspaces/${ws.id}`, {});
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: ws.id, name: "Unchanged", language: "fr" });
  });

  it.each([
    ["a bad language", { language: "de" }, "language"],
    ["an empty sender_name", { sender_name: "" }, "sender_name"],
    ["an offer that is not a string", { offer_en: 3 }, "offer_en"],
    ["the single offer of earlier releases (now one per language)", { offer: "a redesign" }, "offer"],
    ["an unknown field", { balance: 999 }, "balance"],
    ["another unknown field", { signature: "Bye" }, "signature"],
  ])("answers 400 for %s, naming the field, and changes nothing", async (_label, body, field) => {
    const ws = await newWorkspace();
    expectInvalid(await adminRequest(t.app, "PATCH", `/admin/workspaces/${ws.id}`, body), field);
    const after = await adminRequest(t.app, "GET", `/admin/workspaces/${ws.id}`);
    expect(after.json()).toMatchObject({
      language: "en",
      balance: 10,
      sender_name: null,
      offer_en: null,
      offer_fr: null,
    });
  });
});

describe("unknown workspace", () => {
  const missing = randomUUID();

  it.each([
    ["GET", `/admin/workspaces/${missing}`, undefined],
    ["PATCH", `/admin/workspaces/${missing}`, { language: "fr" }],
    ["PATCH", `/admin/workspaces/${missing}`, {}],
    ["POST", `/admin/workspaces/${missing}/members`, { email: "a@agency.test" }],
    ["DELETE", `/admin/workspaces/${missing}/members/${randomUUID()}`, undefined],
    ["POST", `/admin/workspaces/${missing}/api-keys`, { name: "k", created_by: randomUUID() }],
    ["GET", `/admin/workspaces/${missing}/api-keys`, undefined],
    ["DELETE", `/admin/workspaces/${missing}/api-keys/${randomUUID()}`, undefined],
    ["POST", `/admin/workspaces/${missing}/credit-purchases`, { credits: 5 }],
  ] as const)("%s %s is 404 not_found", async (method, url, body) => {
    expectNotFound(await adminRequest(t.app, method, url, body));
  });

  it("a workspace id that is not a uuid is 400", async () => {
    expectInvalid(await adminRequest(t.app, "GET", "/admin/workspaces/acme"), "id");
    expectInvalid(
      await adminRequest(t.app, "POST", "/admin/workspaces/acme/credit-purchases", { credits: 5 }),
      "id",
    );
  });

  it("an unknown admin route is 404 not_found", async () => {
    expectNotFound(await adminRequest(t.app, "GET", "/admin/nope"));
    expectNotFound(await adminRequest(t.app, "DELETE", "/admin/workspaces"));
  });
});
