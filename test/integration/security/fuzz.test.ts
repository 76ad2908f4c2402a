/**
 * Random bytes, unicode, huge and nested JSON, duplicate keys and wrong types thrown at every
 * route, /oauth/*, /admin and /mcp, authenticated and not: never a 5xx, always an error object
 * (the RFC 6749 one on /oauth, HTML on the consent page), and the workspace untouched.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import { type HttpTestApp, memberSession, obtainTokens, startHttpTestApp } from "../../support/oauth.ts";
import { seedLeads } from "../../support/seed.ts";

let t: HttpTestApp;
let ws: TestWorkspace;
let accessToken: string;

beforeAll(async () => {
  // No places provider and no LLM: nothing the fuzzer sends may reach a third party.
  t = await startHttpTestApp({ RATE_LIMIT_READ_PER_MIN: "100000", RATE_LIMIT_SEARCH_PER_MIN: "100000" });
  ws = await createWorkspace(t.app, { name: "fuzzed" });
  await seedLeads(t.database.db, ws.workspaceId, [{ place_id: "fuzz-1" }, { place_id: "fuzz-2" }]);
  accessToken = (
    await obtainTokens(t.baseUrl, { session: await memberSession(t.app, ws), workspaceId: ws.workspaceId })
  ).access_token;
});
afterAll(async () => {
  await t?.close();
});

async function snapshot() {
  const db = t.database.db;
  const workspace = await db
    .selectFrom("workspaces")
    .select(["balance", "name", "language", "free_trial"])
    .where("id", "=", ws.workspaceId)
    .executeTakeFirstOrThrow();
  const leads = await db
    .selectFrom("leads")
    .select(["id", "outreach_status", "email"])
    .where("workspace_id", "=", ws.workspaceId)
    .orderBy("id")
    .execute();
  const keys = await db
    .selectFrom("api_keys")
    .select(["id", "revoked_at"])
    .where("workspace_id", "=", ws.workspaceId)
    .orderBy("id")
    .execute();
  return { workspace, leads, keys };
}

const LEAD = "00000000-0000-4000-8000-000000000001";
const routes: { method: string; path: string }[] = [
  { method: "GET", path: "/v1/credits" },
  { method: "GET", path: "/v1/leads" },
  { method: "GET", path: `/v1/leads/${LEAD}` },
  { method: "POST", path: "/v1/searches" },
  { method: "POST", path: `/v1/leads/${LEAD}/outreach-draft` },
  { method: "GET", path: "/v1/nothing" },
  { method: "POST", path: "/oauth/register" },
  { method: "GET", path: "/oauth/authorize" },
  { method: "POST", path: "/oauth/authorize" },
  { method: "POST", path: "/oauth/token" },
  { method: "POST", path: "/oauth/revoke" },
  { method: "POST", path: "/admin/workspaces" },
  { method: "PATCH", path: "/admin/workspaces/00000000-0000-4000-8000-000000000002" },
  { method: "POST", path: "/admin/workspaces/00000000-0000-4000-8000-000000000002/credits" },
  { method: "POST", path: "/mcp" },
];

/** Text with NULs, lone surrogates, control characters and any unicode. */
const nastyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "\u0000",
    "\ud800",
    "\udfff",
    "a\u0000b",
    "\ud83d",
    "%00",
    "%ED%A0%80",
    "__proto__",
    "constructor",
  ),
  fc.string({ maxLength: 20 }),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    nastyText,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(nastyText, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A plausible body of each route with one field replaced by something wrong. */
const plausible = fc.record({
  queries: fc.constant([{ location: "Ottawa", category: "plumber" }]),
  max_results: fc.constant(1),
  locale: fc.constant("en"),
  name: fc.constant("x"),
  redirect_uris: fc.constant(["https://a.example/cb"]),
  jsonrpc: fc.constant("2.0"),
  method: fc.constantFrom("tools/call", "tools/list", "initialize"),
  params: fc.record({
    name: fc.constantFrom("search_leads", "list_leads", "get_lead"),
    arguments: jsonValue,
  }),
});

/** Every route's fields at once, each string one of the nasty ones: reaches past the schemas' types. */
const nastyFields = fc
  .record({
    name: nastyText,
    queries: fc.array(fc.record({ location: nastyText, category: nastyText }), {
      minLength: 1,
      maxLength: 2,
    }),
    max_results: fc.integer({ min: 1, max: 3 }),
    locale: fc.constantFrom("en", "fr"),
    redirect_uris: fc.array(
      nastyText.map((text) => `https://a.example/${text}`),
      { minLength: 1, maxLength: 2 },
    ),
    client_name: nastyText,
    credits: fc.integer({ min: 1, max: 3 }),
    sender_name: nastyText,
  })
  .map((value) => ({ raw: Buffer.from(JSON.stringify(value)), type: "application/json" }));

const bodies = fc.oneof(
  { arbitrary: nastyFields, weight: 4 },
  fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ raw: Buffer.from(bytes), type: "application/json" })),
  jsonValue.map((value) => ({ raw: Buffer.from(JSON.stringify(value) ?? "null"), type: "application/json" })),
  fc.tuple(plausible, fc.string({ maxLength: 12 }), jsonValue).map(([base, key, value]) => ({
    raw: Buffer.from(JSON.stringify({ ...base, [key]: value })),
    type: "application/json",
  })),
  // Duplicate keys (JSON.parse keeps the last; nothing may break on them).
  fc.tuple(nastyText, jsonValue).map(([a, b]) => ({
    raw: Buffer.from(
      `{"name":${JSON.stringify(a)},"name":${JSON.stringify(b) ?? "null"},"queries":1,"queries":[]}`,
    ),
    type: "application/json",
  })),
  // Deep nesting and a body just over the limit.
  fc.integer({ min: 100, max: 5000 }).map((depth) => ({
    raw: Buffer.from(`${"[".repeat(depth)}${"]".repeat(depth)}`),
    type: "application/json",
  })),
  fc.constant({ raw: Buffer.from(`{"name":"${"a".repeat(17 * 1024)}"}`), type: "application/json" }),
  fc.dictionary(nastyText, nastyText, { maxKeys: 5 }).map((form) => ({
    raw: Buffer.from(new URLSearchParams(Object.entries(form)).toString()),
    type: "application/x-www-form-urlencoded",
  })),
);

const queries = fc
  .dictionary(
    fc.constantFrom("limit", "cursor", "client_id", "state", "resource", "redirect_uri", "x"),
    nastyText,
    {
      maxKeys: 3,
    },
  )
  .map((query) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) params.append(name, value);
    return params.toString();
  });

const credentials = fc.constantFrom<"key" | "token" | "admin" | "wrongAdmin" | "none">(
  "key",
  "token",
  "admin",
  "wrongAdmin",
  "none",
);

describe("the whole surface under random input", () => {
  it("never answers 5xx, always answers an error object, and changes nothing", async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        bodies,
        queries,
        credentials,
        async (route, body, query, credential) => {
          const authorization = {
            key: `Bearer ${ws.key}`,
            token: `Bearer ${accessToken}`,
            admin: `Bearer ${ADMIN_TOKEN}`,
            wrongAdmin: `Bearer ${ADMIN_TOKEN}x`,
            none: undefined,
          }[credential];
          const response = await fetch(`${t.baseUrl}${route.path}${query ? `?${query}` : ""}`, {
            method: route.method,
            headers: {
              ...(authorization ? { authorization } : {}),
              ...(route.method === "GET" ? {} : { "content-type": body.type }),
              accept: "application/json, text/event-stream",
            },
            ...(route.method === "GET" ? {} : { body: body.raw }),
          });
          const text = await response.text();
          expect(response.status, `${route.method} ${route.path}: ${text.slice(0, 300)}`).toBeLessThan(500);
          if (response.status < 400) return;
          if (route.path === "/oauth/authorize") {
            expect(response.headers.get("content-type") ?? "").toMatch(/text\/html|application\/json/);
            return;
          }
          const parsed = JSON.parse(text);
          if (route.path.startsWith("/oauth/")) {
            expect(parsed).toEqual({ error: expect.any(String), error_description: expect.any(String) });
          } else if (route.path === "/mcp" && parsed.jsonrpc) {
            expect(parsed.error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
          } else {
            expect(parsed).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(await snapshot()).toEqual(before);
  }, 120_000);
});
