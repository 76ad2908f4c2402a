/**
 * The spec's error table and DESIGN.md's check order:
 * cross-origin (403) -> route (404 not_found) -> auth (401) -> rate limit (429)
 * -> body size (413) -> validation (400) -> lead lookup (404 lead_not_found) -> credits (402).
 */
import { randomUUID } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceOverrides } from "../../../api/services.ts";
import {
  adminRequest,
  createWorkspace,
  startSiblingApp,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_READ_PER_MIN: "1000", RATE_LIMIT_SEARCH_PER_MIN: "1000" });
});
afterAll(() => t?.close());

/** A second app on the same database with its own config (own rate limiter). */
const startSibling = (env: Record<string, string>, overrides: Omit<ServiceOverrides, "db"> = {}) =>
  startSiblingApp(t.database.db, env, overrides);

const BODY_LIMIT = 16 * 1024;
const LEAD_ID = "7d444840-9dc0-41d1-b245-5ffdce74fad2";
const VALID_SEARCH = { queries: [{ location: "Ottawa", category: "plumber" }], max_results: 1 };

/** A JSON search body of exactly `bytes` bytes whose only fault is an over-long location. */
function searchBodyOfSize(bytes: number): string {
  const skeleton = JSON.stringify({ queries: [{ location: "", category: "plumber" }], max_results: 1 });
  const body = JSON.stringify({
    queries: [{ location: "x".repeat(bytes - skeleton.length), category: "plumber" }],
    max_results: 1,
  });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

const OVERSIZED = searchBodyOfSize(BODY_LIMIT + 1);
const json = { "content-type": "application/json" };

/** Every error response: the status, a JSON content type, exactly `{error:{code,message}}`, a request id. */
function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status });
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  const body = response.json() as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(response.headers["x-request-id"]).toEqual(expect.any(String));
  return body.error;
}

function expectNoCorsGrant(response: LightMyRequestResponse) {
  const granted = Object.keys(response.headers).filter((name) =>
    name.toLowerCase().startsWith("access-control-allow"),
  );
  expect(granted).toEqual([]);
}

describe("unmatched routes: 404 not_found", () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createWorkspace(t.app);
  });

  const unmatched = [
    ["DELETE", "/v1/credits"],
    ["POST", "/v1/credits"],
    ["GET", "/v1/nope"],
    ["POST", "/v1/leads"],
    ["PUT", "/v1/leads"],
    ["DELETE", `/v1/leads/${LEAD_ID}`],
    ["PATCH", `/v1/leads/${LEAD_ID}`],
    ["GET", `/v1/leads/${LEAD_ID}/outreach-draft`],
    ["GET", "/v1/searches"],
    ["DELETE", "/v1/searches"],
    ["POST", "/v1/docs"],
    ["GET", "/v1"],
    ["GET", "/v1/"],
    ["GET", "/v2/leads"],
    ["OPTIONS", "/v1/leads"],
    ["GET", "/v1/leads/x/y/z"],
  ] as const;

  it.each(unmatched)("%s %s with a valid key", async (method, url) => {
    const response = await t.app.inject({ method, url, headers: ws.auth });
    const error = expectError(response, 404, "not_found");
    expect(error.message).toContain(url.replace(/\/$/, "") || "/");
  });

  it.each(unmatched)("%s %s without a key (route before auth)", async (method, url) => {
    expectError(await t.app.inject({ method, url }), 404, "not_found");
  });

  it.each(unmatched)("%s %s with a junk key", async (method, url) => {
    expectError(
      await t.app.inject({ method, url, headers: { authorization: "Basic xyz" } }),
      404,
      "not_found",
    );
  });

  it("even with an oversized body (route before body size)", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/leads",
      headers: json,
      payload: OVERSIZED,
    });
    expectError(response, 404, "not_found");
  });
});

describe("cross-origin: 403 cross_origin_forbidden before everything else", () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createWorkspace(t.app);
  });

  it.each([
    ["a valid request with a key", "GET", "/v1/credits", true],
    ["a request without a key (before auth)", "GET", "/v1/credits", false],
    ["an unknown path (before 404)", "GET", "/v1/nope", true],
    ["an unknown method (before 404)", "DELETE", "/v1/credits", false],
    ["the search route", "POST", "/v1/searches", true],
    ["the draft route", "POST", `/v1/leads/${LEAD_ID}/outreach-draft`, true],
    ["a lead with a bad id (before validation)", "GET", "/v1/leads/12345", true],
  ] as const)("refuses a request with an Origin header: %s", async (_label, method, url, withKey) => {
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1:3000"]) {
      const response = await t.app.inject({
        method,
        url,
        headers: { origin, ...(withKey ? ws.auth : {}) },
        ...(method === "POST" ? { payload: VALID_SEARCH } : {}),
      });
      expectError(response, 403, "cross_origin_forbidden");
      expectNoCorsGrant(response);
    }
  });

  it.each([
    ["a known route", "/v1/leads"],
    ["the search route", "/v1/searches"],
    ["an unknown path", "/v1/nope"],
  ])("refuses any CORS preflight: %s", async (_label, url) => {
    for (const headers of [
      { origin: "https://app.example", "access-control-request-method": "GET" },
      {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
      // A preflight without Origin is still a preflight.
      { "access-control-request-method": "GET" },
    ]) {
      const response = await t.app.inject({ method: "OPTIONS", url, headers });
      expectError(response, 403, "cross_origin_forbidden");
      expectNoCorsGrant(response);
    }
  });

  it("refuses an oversized cross-origin body with 403, not 413", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...json, ...ws.auth, origin: "https://evil.example" },
      payload: OVERSIZED,
    });
    expectError(response, 403, "cross_origin_forbidden");
  });

  it("does nothing on the server for a refused request (no usage recorded)", async () => {
    const fresh = await createWorkspace(t.app);
    await t.app.inject({ url: "/v1/credits", headers: { ...fresh.auth, origin: "https://evil.example" } });
    await t.services.keyUsage.flush();
    const row = await t.database.db
      .selectFrom("api_keys")
      .select("last_used_at")
      .where("id", "=", fresh.keyId)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).toBeNull();
  });
});

describe("check order on routes with a body", () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createWorkspace(t.app);
  });

  // POST /v1/searches and POST /v1/leads/{id}/outreach-draft are the two routes with a body.
  const bodyRoutes = ["/v1/searches", `/v1/leads/${LEAD_ID}/outreach-draft`];

  it.each(bodyRoutes)("POST %s: oversized body without a key is 401 (auth before body size)", async (url) => {
    for (const headers of [
      json,
      { ...json, authorization: "Basic xyz" },
      { ...json, authorization: `Bearer ldk_${"A".repeat(43)}` },
    ]) {
      const response = await t.app.inject({ method: "POST", url, headers, payload: OVERSIZED });
      expectError(response, 401, "invalid_api_key");
    }
  });

  it.each(bodyRoutes)("POST %s: oversized body with a key is 413 request_too_large", async (url) => {
    const response = await t.app.inject({
      method: "POST",
      url,
      headers: { ...json, ...ws.auth },
      payload: OVERSIZED,
    });
    expectError(response, 413, "request_too_large");
  });

  it.each(bodyRoutes)(
    "POST %s: an oversized body that is not JSON is still 413 (size before parsing)",
    async (url) => {
      const response = await t.app.inject({
        method: "POST",
        url,
        headers: { ...json, ...ws.auth },
        payload: "{".repeat(BODY_LIMIT + 100),
      });
      expectError(response, 413, "request_too_large");
    },
  );

  it("the limit is exactly 16 KB: 16384 bytes pass to validation, 16385 do not", async () => {
    const atLimit = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...json, ...ws.auth },
      payload: searchBodyOfSize(BODY_LIMIT),
    });
    const error = expectError(atLimit, 400, "invalid_request");
    expect(error.message).toContain("location");
    const overLimit = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...json, ...ws.auth },
      payload: searchBodyOfSize(BODY_LIMIT + 1),
    });
    expectError(overLimit, 413, "request_too_large");
  });

  it.each([
    ["broken JSON", json, "{not json"],
    ["a JSON string cut short", json, '{"queries": [{"location": "Ott'],
    ["plain text", { "content-type": "text/plain" }, "find me plumbers"],
    ["a form", { "content-type": "application/x-www-form-urlencoded" }, "max_results=1"],
    ["a JSON array", json, "[]"],
    ["a JSON number", json, "42"],
  ])("POST /v1/searches with %s is 400 invalid_request", async (_label, headers, payload) => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...headers, ...ws.auth },
      payload,
    });
    expectError(response, 400, "invalid_request");
  });

  it("POST /v1/searches without a body is 400 invalid_request", async () => {
    expectError(
      await t.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth }),
      400,
      "invalid_request",
    );
    expectError(
      await t.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: { ...json, ...ws.auth },
        payload: "",
      }),
      400,
      "invalid_request",
    );
  });

  it("POST outreach-draft with broken JSON is 400, before the lead lookup (404)", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: `/v1/leads/${randomUUID()}/outreach-draft`,
      headers: { ...json, ...ws.auth },
      payload: "{locale:",
    });
    expectError(response, 400, "invalid_request");
  });

  it("POST outreach-draft with a bad locale for an unknown lead is 400 (validation before lead lookup)", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: `/v1/leads/${randomUUID()}/outreach-draft`,
      headers: ws.auth,
      payload: { locale: "de" },
    });
    const error = expectError(response, 400, "invalid_request");
    expect(error.message).toContain("locale");
  });

  it("POST outreach-draft with a non-uuid id is 400", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/leads/12345/outreach-draft",
      headers: ws.auth,
    });
    expectError(response, 400, "invalid_request");
  });

  it("POST outreach-draft for an unknown lead at zero balance is 404 lead_not_found, not 402", async () => {
    const broke = await createWorkspace(t.app);
    await t.database.db
      .updateTable("workspaces")
      .set({ balance: 0 })
      .where("id", "=", broke.workspaceId)
      .execute();
    const response = await t.app.inject({
      method: "POST",
      url: `/v1/leads/${randomUUID()}/outreach-draft`,
      headers: broke.auth,
      payload: { locale: "fr" },
    });
    expectError(response, 404, "lead_not_found");
  });

  it.each([
    ["no body at all", {}],
    ["an empty JSON body", { headers: json, payload: "" }],
    ["an empty object", { payload: {} }],
  ])(
    "POST outreach-draft takes an optional body: %s reaches the lead lookup (404)",
    async (_label, extra) => {
      const response = await t.app.inject({
        method: "POST",
        url: `/v1/leads/${randomUUID()}/outreach-draft`,
        ...extra,
        headers: { ...("headers" in extra ? extra.headers : {}), ...ws.auth },
      });
      expectError(response, 404, "lead_not_found");
    },
  );

  it("GET /v1/leads/{id} with a bad id and no key is 401 (auth before validation)", async () => {
    expectError(await t.app.inject({ url: "/v1/leads/12345" }), 401, "invalid_api_key");
    expectError(await t.app.inject({ url: "/v1/leads?limit=101" }), 401, "invalid_api_key");
  });
});

describe("rate limits", () => {
  const READ = 3;
  const SEARCH = 2;
  let limited: Awaited<ReturnType<typeof startSibling>>;

  beforeAll(async () => {
    limited = await startSibling({
      RATE_LIMIT_READ_PER_MIN: String(READ),
      RATE_LIMIT_SEARCH_PER_MIN: String(SEARCH),
    });
  });
  afterAll(() => limited?.close());

  async function secondKey(ws: TestWorkspace) {
    const response = await adminRequest(limited.app, "POST", `/admin/workspaces/${ws.workspaceId}/api-keys`, {
      name: "second",
      created_by: ws.memberId,
    });
    expect(response.statusCode).toBe(201);
    return { authorization: `Bearer ${response.json().key as string}` };
  }

  function expectRateLimited(response: LightMyRequestResponse, limit: number) {
    expectError(response, 429, "rate_limited");
    expect(response.headers["retry-after"]).toBe("60");
    expect(response.headers["ratelimit-limit"]).toBe(String(limit));
    expect(response.headers["ratelimit-remaining"]).toBe("0");
    const reset = Number(response.headers["ratelimit-reset"]);
    expect(reset).toBeGreaterThanOrEqual(0);
    expect(reset).toBeLessThanOrEqual(60);
  }

  async function exhaustReads(auth: Record<string, string>) {
    for (let i = 1; i <= READ; i += 1) {
      const response = await limited.app.inject({ url: "/v1/credits", headers: auth });
      expect(response.statusCode).toBe(200);
      expect(response.headers["ratelimit-limit"]).toBe(String(READ));
      expect(response.headers["ratelimit-remaining"]).toBe(String(READ - i));
    }
  }

  it("answers 429 with Retry-After: 60 once the read bucket is spent, before validation (400)", async () => {
    const ws = await createWorkspace(limited.app);
    await exhaustReads(ws.auth);
    expectRateLimited(await limited.app.inject({ url: "/v1/credits", headers: ws.auth }), READ);
    // Each of these would be a 400 with budget left: the limit is checked first.
    expectRateLimited(await limited.app.inject({ url: "/v1/leads?limit=101", headers: ws.auth }), READ);
    expectRateLimited(await limited.app.inject({ url: "/v1/leads?cursor=junk", headers: ws.auth }), READ);
    expectRateLimited(await limited.app.inject({ url: "/v1/leads/12345", headers: ws.auth }), READ);
  });

  it("a fresh key gives 400 for the same invalid query (the 429 above is not a validation quirk)", async () => {
    const ws = await createWorkspace(limited.app);
    expectError(
      await limited.app.inject({ url: "/v1/leads?limit=101", headers: ws.auth }),
      400,
      "invalid_request",
    );
  });

  it("shares the read bucket with the draft route, and 429 comes before 413 and 400 there", async () => {
    const ws = await createWorkspace(limited.app);
    await exhaustReads(ws.auth);
    const url = `/v1/leads/${randomUUID()}/outreach-draft`;
    expectRateLimited(
      await limited.app.inject({ method: "POST", url, headers: { ...json, ...ws.auth }, payload: OVERSIZED }),
      READ,
    );
    expectRateLimited(
      await limited.app.inject({ method: "POST", url, headers: ws.auth, payload: { locale: "de" } }),
      READ,
    );
  });

  it("answers 401, not 429, to a bad key (auth before rate limit), and bad keys spend nothing", async () => {
    const ws = await createWorkspace(limited.app);
    for (let i = 0; i < READ + 2; i += 1) {
      expectError(
        await limited.app.inject({
          url: "/v1/credits",
          headers: { authorization: `${ws.auth.authorization}x` },
        }),
        401,
        "invalid_api_key",
      );
    }
    await exhaustReads(ws.auth);
  });

  it("spends nothing on unmatched routes or cross-origin refusals", async () => {
    const ws = await createWorkspace(limited.app);
    for (let i = 0; i < READ + 2; i += 1) {
      expectError(await limited.app.inject({ url: "/v1/nope", headers: ws.auth }), 404, "not_found");
      expectError(
        await limited.app.inject({
          url: "/v1/credits",
          headers: { ...ws.auth, origin: "https://x.example" },
        }),
        403,
        "cross_origin_forbidden",
      );
    }
    await exhaustReads(ws.auth);
  });

  it("counts per key: a second key of the same workspace is unaffected", async () => {
    const ws = await createWorkspace(limited.app);
    const other = await secondKey(ws);
    await exhaustReads(ws.auth);
    expectRateLimited(await limited.app.inject({ url: "/v1/credits", headers: ws.auth }), READ);
    const response = await limited.app.inject({ url: "/v1/credits", headers: other });
    expect(response.statusCode).toBe(200);
    expect(response.headers["ratelimit-remaining"]).toBe(String(READ - 1));
  });

  it("keeps the search bucket separate from the read bucket", async () => {
    const ws = await createWorkspace(limited.app);
    await exhaustReads(ws.auth);
    // Reads are spent; the search route still gets past the limiter (its invalid body is a 400).
    for (let i = 1; i <= SEARCH; i += 1) {
      const response = await limited.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: ws.auth,
        payload: {},
      });
      expectError(response, 400, "invalid_request");
      expect(response.headers["ratelimit-limit"]).toBe(String(SEARCH));
      expect(response.headers["ratelimit-remaining"]).toBe(String(SEARCH - i));
    }
    // Now the search bucket is spent too: 429 before 413 and before 400.
    expectRateLimited(
      await limited.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: { ...json, ...ws.auth },
        payload: OVERSIZED,
      }),
      SEARCH,
    );
    expectRateLimited(
      await limited.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth, payload: {} }),
      SEARCH,
    );
  });

  it("a spent search bucket leaves the reads of the same key alone", async () => {
    const ws = await createWorkspace(limited.app);
    for (let i = 0; i < SEARCH; i += 1) {
      await limited.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth, payload: {} });
    }
    expectRateLimited(
      await limited.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: ws.auth,
        payload: VALID_SEARCH,
      }),
      SEARCH,
    );
    await exhaustReads(ws.auth);
  });

  it("counts in the node's memory when the limiter's store fails, and never answers 503 for it", async () => {
    const tag = `test-errors-${randomUUID().slice(0, 8)}`;
    const distributed = await startSibling(
      { REDIS_URL: "redis://127.0.0.1:6379", QUEUE_PREFIX: tag },
      { rateLimitKeyPrefix: tag },
    );
    try {
      const ws = await createWorkspace(distributed.app);
      // Counted in Redis while it is up.
      const counted = await distributed.app.inject({ url: "/v1/credits", headers: ws.auth });
      expect(counted.statusCode).toBe(200);
      expect(counted.headers["ratelimit-remaining"]).toBe("29");
      // The limiter's store goes away: requests are still counted, by this node alone, and answered.
      distributed.services.redis?.disconnect();
      const inMemory = await distributed.app.inject({ url: "/v1/credits", headers: ws.auth });
      expect(inMemory.statusCode).toBe(200);
      expect(Number(inMemory.headers["ratelimit-remaining"])).toBeLessThan(30);
      expectError(
        await distributed.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth, payload: {} }),
        400,
        "invalid_request",
      );
      // Auth still comes first.
      expectError(await distributed.app.inject({ url: "/v1/credits" }), 401, "invalid_api_key");
    } finally {
      await distributed.close();
    }
  });
});

describe("500 internal_error leaks nothing", () => {
  const LEAKS = [
    /relation/i,
    /workspaces/i,
    /select /i,
    /\bfrom\b/i,
    /\bwhere\b/i,
    /postgres/i,
    /pglite/i,
    /kysely/i,
    /driver/i,
    /destroyed/i,
    /ECONN/i,
    /\bat .+:\d+/, // a stack frame
    /\.ts\b/,
    /node_modules/,
    /Error:/,
  ];

  function expectOpaqueInternalError(response: LightMyRequestResponse) {
    const error = expectError(response, 500, "internal_error");
    expect(response.json()).toEqual({ error: { code: "internal_error", message: error.message } });
    for (const leak of LEAKS) expect(error.message).not.toMatch(leak);
  }

  it("when a query fails inside PostgreSQL (a table is gone)", async () => {
    const ws = await createWorkspace(t.app);
    await sql`alter table workspaces rename to workspaces_gone`.execute(t.database.db);
    try {
      const response = await t.app.inject({ url: "/v1/credits", headers: ws.auth });
      expectOpaqueInternalError(response);
    } finally {
      await sql`alter table workspaces_gone rename to workspaces`.execute(t.database.db);
    }
    // The app recovers once the database does.
    expect((await t.app.inject({ url: "/v1/credits", headers: ws.auth })).statusCode).toBe(200);
  });

  describe("when the database connection is gone", () => {
    let broken: TestApp;
    let ws: TestWorkspace;
    beforeAll(async () => {
      broken = await startTestApp();
      ws = await createWorkspace(broken.app);
      await broken.services.db.destroy();
    });
    afterAll(() => broken?.close());

    it.each([
      ["GET", "/v1/credits"],
      ["GET", "/v1/leads"],
      ["GET", `/v1/leads/${LEAD_ID}`],
    ] as const)("%s %s", async (method, url) => {
      expectOpaqueInternalError(await broken.app.inject({ method, url, headers: ws.auth }));
    });

    it("still answers the routes that need no database", async () => {
      expect((await broken.app.inject({ url: "/openapi.json" })).statusCode).toBe(200);
      expect((await broken.app.inject({ url: "/v1/docs" })).statusCode).toBe(200);
      expectError(await broken.app.inject({ url: "/v1/nope" }), 404, "not_found");
      expectError(await broken.app.inject({ url: "/v1/credits" }), 401, "invalid_api_key");
    });
  });
});

describe("request ids", () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createWorkspace(t.app);
  });

  const cases = [
    ["a success", { url: "/v1/credits" }, true, 200],
    ["an auth error", { url: "/v1/credits" }, false, 401],
    ["a 404", { url: "/v1/nope" }, true, 404],
    ["a validation error", { url: "/v1/leads?limit=0" }, true, 400],
    ["a cross-origin refusal", { url: "/v1/credits", headers: { origin: "https://x.example" } }, true, 403],
    ["a public route", { url: "/openapi.json" }, false, 200],
  ] as const;

  it.each(cases)("generates a unique x-request-id on %s", async (_label, request, withKey, status) => {
    const headers = { ...("headers" in request ? request.headers : {}), ...(withKey ? ws.auth : {}) };
    const first = await t.app.inject({ url: request.url, headers });
    const second = await t.app.inject({ url: request.url, headers });
    expect(first.statusCode).toBe(status);
    expect(first.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.headers["x-request-id"]).not.toBe(second.headers["x-request-id"]);
  });

  it.each(cases)("echoes the client's x-request-id on %s", async (_label, request, withKey, status) => {
    const id = `client-${randomUUID()}`;
    const response = await t.app.inject({
      url: request.url,
      headers: {
        ...("headers" in request ? request.headers : {}),
        ...(withKey ? ws.auth : {}),
        "x-request-id": id,
      },
    });
    expect(response.statusCode).toBe(status);
    expect(response.headers["x-request-id"]).toBe(id);
  });

  it("echoes it on 413 too", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v1/searches",
      headers: { ...json, ...ws.auth, "x-request-id": "trace-413" },
      payload: OVERSIZED,
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers["x-request-id"]).toBe("trace-413");
  });
});
