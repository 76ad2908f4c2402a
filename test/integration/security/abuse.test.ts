/**
 * The abuse and cost holes of issue 11, each attacked over real HTTP as a paying customer or a
 * stranger would: every test here failed before the fix.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LIVE_GRANTS_PER_MEMBER } from "../../../shared/oauth/authorization.ts";
import { ADMIN_TOKEN, createWorkspace, type TestWorkspace } from "../../support/app.ts";
import {
  type FakeGooglePlacesServer,
  googlePlace,
  syntheticPlaces,
} from "../../support/fake-google-places.ts";
import { type FakeSitesServer, OLD_HOMEPAGE, startFakeSites } from "../../support/fake-sites.ts";
import { googlePlacesTest as test } from "../../support/google-places-test.ts";
import {
  type HttpTestApp,
  memberSession,
  obtainTokens,
  registerTestClient,
  startHttpTestApp,
} from "../../support/oauth.ts";

const READ = 5;
const FREE_TRIAL_PAGES = 2;
const FREE_TRIAL_CHECKS = 3;
const FREE_TRIAL_DRAFTS = 2;
const OAUTH_REGISTER = 4;
const OAUTH = 6;
const ADMIN_FAILURES = 3;

let places: FakeGooglePlacesServer;
let sites: FakeSitesServer;
let t: HttpTestApp;

test.beforeAll(async ({ googlePlaces }) => {
  places = googlePlaces;
  sites = await startFakeSites();
  t = await startHttpTestApp({
    ...places.env,
    AUDIT_ALLOW_PRIVATE_NETWORKS: "1",
    SEARCH_CHECK_BUDGET_MS: "3000",
    RATE_LIMIT_READ_PER_MIN: String(READ),
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    COST_PROVIDER_PAGES_PER_HOUR: "300",
    COST_LIVE_CHECKS_PER_HOUR: "1500",
    COST_DRAFT_ATTEMPTS_PER_HOUR: "600",
    COST_PROVIDER_PAGES_PER_HOUR_FREE_TRIAL: String(FREE_TRIAL_PAGES),
    COST_LIVE_CHECKS_PER_HOUR_FREE_TRIAL: String(FREE_TRIAL_CHECKS),
    COST_DRAFT_ATTEMPTS_PER_HOUR_FREE_TRIAL: String(FREE_TRIAL_DRAFTS),
  });
});
afterAll(async () => {
  await t?.close();
  await sites?.close();
});

const call = (path: string, init: RequestInit & { auth?: string } = {}) =>
  fetch(`${t.baseUrl}${path}`, {
    ...init,
    headers: {
      ...(init.auth ? { authorization: `Bearer ${init.auth}` } : {}),
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...(init.headers as Record<string, string> | undefined),
    },
  });

async function expectError(response: Response, status: number, code: string): Promise<string> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const body = JSON.parse(text) as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code, message: expect.any(String) } });
  return body.error.message;
}

/** Sends raw bytes and returns the raw answer (for what fetch cannot send). */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8");
    });
    socket.on("end", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}
const port = () => Number(new URL(t.baseUrl).port);
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));

describe("1. one member, one rate limit: OAuth grants share the approving member's bucket", () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createWorkspace(t.app, { name: "grant scripter" });
  });

  it("with a member's grant at 429, a grant made before and a grant made after are 429 too (v1 and mcp)", async () => {
    const session = await memberSession(t.app, ws);
    const before = await obtainTokens(t.baseUrl, { session, workspaceId: ws.workspaceId });
    for (let i = 0; i < READ; i += 1) {
      expect((await call("/v1/credits", { auth: before.access_token })).status).toBe(200);
    }
    const limited = await call("/v1/credits", { auth: before.access_token });
    await expectError(limited, 429, "rate_limited");
    expect(limited.headers.get("retry-after")).toBe("60");

    const after = await obtainTokens(t.baseUrl, { session, workspaceId: ws.workspaceId });
    for (const token of [before.access_token, after.access_token]) {
      await expectError(await call("/v1/credits", { auth: token }), 429, "rate_limited");
      const mcp = await call("/mcp", {
        auth: token,
        method: "POST",
        headers: { accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "get_credit_balance", arguments: {} },
        }),
      });
      const answer = (await mcp.json()) as { result: { isError: boolean; content: { text: string }[] } };
      expect(answer.result.isError).toBe(true);
      expect(answer.result.content[0]?.text).toMatch(/^rate_limited:/);
    }
  });

  it(`keeps at most ${MAX_LIVE_GRANTS_PER_MEMBER} live grants per member: the oldest are revoked`, async () => {
    const other = await createWorkspace(t.app, { name: "many grants" });
    const session = await memberSession(t.app, other);
    const grants = [];
    for (let i = 0; i < MAX_LIVE_GRANTS_PER_MEMBER + 2; i += 1) {
      grants.push(await obtainTokens(t.baseUrl, { session, workspaceId: other.workspaceId }));
    }
    const live = await t.database.db
      .selectFrom("oauth_grants")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("approved_by_member_id", "=", other.memberId)
      .where("revoked_at", "is", null)
      .executeTakeFirstOrThrow();
    expect(Number(live.n)).toBe(MAX_LIVE_GRANTS_PER_MEMBER);
    await expectError(await call("/v1/credits", { auth: grants[0]!.access_token }), 401, "invalid_api_key");
    expect((await call("/v1/credits", { auth: grants.at(-1)!.access_token })).status).toBe(200);
  });
});

describe("2. the hourly cost guard on work the spec does not charge", () => {
  it("a free-trial workspace at balance 0 reads at most its provider pages, then gets 429", async () => {
    const ws = await createWorkspace(t.app, { name: "free rider" });
    await t.database.db
      .updateTable("workspaces")
      .set({ balance: 0 })
      .where("id", "=", ws.workspaceId)
      .execute();
    places.setPlaces("plumber in Pagetown", syntheticPlaces(60, { prefix: "pages" }));
    places.reset();
    const search = () =>
      call("/v1/searches", {
        auth: ws.key,
        method: "POST",
        body: JSON.stringify({ queries: [{ location: "Pagetown", category: "plumber" }], max_results: 25 }),
      });
    const first = await search();
    // Nothing charged (402: new places it cannot pay for), but no more than the hour's pages read.
    expect([200, 402]).toContain(first.status);
    expect(places.requests.length).toBe(FREE_TRIAL_PAGES);
    const second = await search();
    const message = await expectError(second, 429, "rate_limited");
    expect(message).toMatch(/provider pages per hour/);
    expect(second.headers.get("retry-after")).toBe("60");
    expect(places.requests.length).toBe(FREE_TRIAL_PAGES);
  });

  it("live checks stop at the hour's limit: the rest of the answer is truncated, not fetched", async () => {
    const ws = await createWorkspace(t.app, { name: "live rider" });
    const ids = Array.from({ length: 8 }, (_, i) => `cost-live-${i}`);
    for (const id of ids) sites.set(`/${id}`, { html: OLD_HOMEPAGE });
    places.setPlaces(
      "roofer in Livetown",
      ids.map((id) => googlePlace(id, sites.url(`/${id}`))),
    );
    const response = await call("/v1/searches", {
      auth: ws.key,
      method: "POST",
      body: JSON.stringify({
        queries: [{ location: "Livetown", category: "roofer" }],
        filters: { not_mobile_friendly: true },
        max_results: 8,
      }),
    });
    const text = await response.text();
    expect([200, 402], text).toContain(response.status);
    const fetched = ids.filter((id) => sites.hits(`/${id}`) > 0).length;
    expect(fetched).toBe(FREE_TRIAL_CHECKS);
    if (response.status === 200) expect(JSON.parse(text).truncated).toBe(true);
  });

  it("/v1/docs and /openapi.json state the cost limits in force", async () => {
    const docs = await (await call("/v1/docs")).text();
    expect(docs).not.toMatch(/\{\{/);
    expect(docs).toContain(
      `| Live website checks (one homepage fetch each; cached results are free) | 1500 | ${FREE_TRIAL_CHECKS} |`,
    );
    const openapi = (await (await call("/openapi.json")).json()) as Record<string, unknown>;
    expect(openapi["x-cost-limits"]).toEqual({
      per: "workspace",
      window_seconds: 3600,
      paid: { provider_pages: 300, live_checks: 1500, draft_attempts: 600 },
      free_trial: {
        provider_pages: FREE_TRIAL_PAGES,
        live_checks: FREE_TRIAL_CHECKS,
        draft_attempts: FREE_TRIAL_DRAFTS,
      },
    });
  });

  it("draft attempts are limited per hour too (each may cost up to four model requests)", async () => {
    const ws = await createWorkspace(t.app, { name: "draft rider" });
    const lead = "00000000-0000-4000-8000-000000000000";
    for (let i = 0; i < FREE_TRIAL_DRAFTS; i += 1) {
      await expectError(
        await call(`/v1/leads/${lead}/outreach-draft`, { auth: ws.key, method: "POST" }),
        404,
        "lead_not_found",
      );
    }
    await expectError(
      await call(`/v1/leads/${lead}/outreach-draft`, { auth: ws.key, method: "POST" }),
      429,
      "rate_limited",
    );
  });
});

describe("3. unauthenticated growth: /oauth/* limited per address, registrations capped, clean-up", () => {
  it("registration and the other OAuth endpoints answer 429 per address, with Retry-After", async () => {
    const limited = await startHttpTestApp({
      RATE_LIMIT_OAUTH_REGISTER_PER_MIN: String(OAUTH_REGISTER),
      RATE_LIMIT_OAUTH_PER_MIN: String(OAUTH),
    });
    try {
      const register = () =>
        fetch(`${limited.baseUrl}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["https://assistant.example/cb"] }),
        });
      for (let i = 0; i < OAUTH_REGISTER; i += 1) expect((await register()).status).toBe(201);
      const refused = await register();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("60");
      expect(await refused.json()).toEqual({
        error: "temporarily_unavailable",
        error_description: expect.any(String),
      });
      const stored = await limited.database.db
        .selectFrom("oauth_clients")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(OAUTH_REGISTER);

      const token = () =>
        fetch(`${limited.baseUrl}/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=refresh_token&client_id=x&refresh_token=y",
        });
      for (let i = 0; i < OAUTH; i += 1) expect((await token()).status).toBe(401);
      expect((await token()).status).toBe(429);
      const authorize = await fetch(`${limited.baseUrl}/oauth/authorize?client_id=x`);
      expect(authorize.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("behind TRUST_PROXY_HOPS proxies, each forwarded client address has its own count", async () => {
    const proxied = await startHttpTestApp({ RATE_LIMIT_OAUTH_REGISTER_PER_MIN: "1", TRUST_PROXY_HOPS: "1" });
    try {
      const register = (from: string) =>
        fetch(`${proxied.baseUrl}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": from },
          body: JSON.stringify({ redirect_uris: ["https://assistant.example/cb"] }),
        });
      expect((await register("203.0.113.1")).status).toBe(201);
      expect((await register("203.0.113.2")).status).toBe(201);
      expect((await register("203.0.113.1")).status).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it("caps what one registration may store", async () => {
    const long = `https://assistant.example/${"a".repeat(600)}`;
    const tooLong = await call("/oauth/register", {
      method: "POST",
      body: JSON.stringify({ redirect_uris: [long] }),
    });
    expect(tooLong.status).toBe(400);
    const tooMany = await call("/oauth/register", {
      method: "POST",
      body: JSON.stringify({ redirect_uris: Array.from({ length: 6 }, (_, i) => `https://a.example/${i}`) }),
    });
    expect(tooMany.status).toBe(400);
  });

  it("the scheduled clean-up deletes never-approved clients and stale consent requests", async () => {
    const unused = await registerTestClient(t.baseUrl, { redirect_uris: ["https://unused.example/cb"] });
    const ws = await createWorkspace(t.app, { name: "keeps its client" });
    const session = await memberSession(t.app, ws);
    // A signed-in member opens the consent page (which stores the request) and never answers.
    const opened = await fetch(
      `${t.baseUrl}/oauth/authorize?response_type=code&client_id=${unused.client_id}&redirect_uri=${encodeURIComponent("https://unused.example/cb")}&code_challenge=${"a".repeat(43)}&code_challenge_method=S256`,
      { headers: { cookie: session }, redirect: "manual" },
    );
    expect(opened.status).toBe(200);
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    await t.database.db
      .updateTable("oauth_clients")
      .set({ created_at: dayAgo })
      .where("id", "=", unused.client_id)
      .execute();
    const used = await obtainTokens(t.baseUrl, { session, workspaceId: ws.workspaceId });
    await t.database.db
      .updateTable("oauth_clients")
      .set({ created_at: dayAgo })
      .where("id", "=", used.clientId)
      .execute();

    const removed = await t.services.runOAuthCleanup();
    expect(removed.clients).toBeGreaterThanOrEqual(1);
    expect(removed.authorizationRequests).toBeGreaterThanOrEqual(1);
    const left = await t.database.db.selectFrom("oauth_clients").select("id").execute();
    expect(left.map((row) => row.id)).not.toContain(unused.client_id);
    expect(left.map((row) => row.id)).toContain(used.clientId);
    expect((await call("/v1/credits", { auth: used.access_token })).status).toBe(200);
  });
});

describe("5. text PostgreSQL cannot store is 400 invalid_request naming the field", () => {
  it("NUL and lone surrogates in /oauth/*, /admin and /v1 inputs", async () => {
    const ws = await createWorkspace(t.app, { name: "nul sender" });
    const register = await call("/oauth/register", {
      method: "POST",
      body: `{"redirect_uris":["https://a.example/\\u0000"]}`,
    });
    expect(register.status).toBe(400);
    expect(((await register.json()) as { error_description: string }).error_description).toMatch(
      /body\.redirect_uris\[0\]/,
    );
    for (const query of [
      "client_id=%00",
      "client_id=%ED%A0%80",
      "client_id=x&state=%00",
      "client_id=x&resource=%00",
    ]) {
      const response = await fetch(`${t.baseUrl}/oauth/authorize?${query}`);
      expect(response.status, query).toBe(400);
    }
    for (const path of ["/oauth/token", "/oauth/revoke"]) {
      const response = await fetch(`${t.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=refresh_token&refresh_token=x&token=x&client_id=%00",
      });
      expect(response.status, path).toBe(400);
    }
    const basic = await fetch(`${t.baseUrl}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from("%00:").toString("base64")}`,
      },
      body: "grant_type=refresh_token&refresh_token=x",
    });
    expect(basic.status).toBe(401);
    const admin = await call("/admin/workspaces", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: `{"name":"bad \\ud800 name"}`,
    });
    expect(await expectError(admin, 400, "invalid_request")).toMatch(/^body\.name:/);
    const search = await call("/v1/searches", {
      auth: ws.key,
      method: "POST",
      body: `{"queries":[{"location":"Ott\\u0000awa","category":"plumber"}],"max_results":1}`,
    });
    expect(await expectError(search, 400, "invalid_request")).toMatch(/^body\.queries\[0\]\.location:/);
  });

  it("a cursor dated year 0 (or any year no lead can have) is 400", async () => {
    const ws = await createWorkspace(t.app, { name: "cursor" });
    const cursor = encodeURIComponent("0000-01-01T00:00:00.000Z|3f1c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f");
    await expectError(await call(`/v1/leads?cursor=${cursor}`, { auth: ws.key }), 400, "invalid_request");
  });
});

describe("6. cross-origin refusal on the path as the router decodes it", () => {
  it("an encoded /v1, an absolute-form target and a preflight to an encoded path are 403", async () => {
    const ws = await createWorkspace(t.app, { name: "cors" });
    await expectError(
      await call("/%761/credits", { auth: ws.key, headers: { origin: "https://evil.test" } }),
      403,
      "cross_origin_forbidden",
    );
    const preflight = await call("/%761/searches", {
      method: "OPTIONS",
      headers: { origin: "https://evil.test", "access-control-request-method": "POST" },
    });
    await expectError(preflight, 403, "cross_origin_forbidden");
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const absolute = await rawRequest(
      port(),
      `GET http://evil.test/v1/credits HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.test\r\nAuthorization: Bearer ${ws.key}\r\nConnection: close\r\n\r\n`,
    );
    expect(absolute).toMatch(/^HTTP\/1\.1 403/);
    expect(bodyOf(absolute).error.code).toBe("cross_origin_forbidden");
  });
});

describe("7. the parser's and the router's answers are the error object", () => {
  it("a malformed request, oversized headers and an over-long path parameter", async () => {
    const malformed = await rawRequest(port(), "GET /v1/credits HTTP/1.1\r\nHost x\r\n\r\n");
    expect(malformed).toMatch(/^HTTP\/1\.1 400/);
    expect(bodyOf(malformed)).toEqual({ error: { code: "invalid_request", message: expect.any(String) } });

    const big = await rawRequest(
      port(),
      `GET /v1/credits HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(big).toMatch(/^HTTP\/1\.1 431/);
    expect(bodyOf(big)).toEqual({ error: { code: "request_too_large", message: expect.any(String) } });

    const longId = "x".repeat(150);
    const long = await call(`/v1/leads/${longId}`);
    const message = await expectError(long, 400, "invalid_request");
    expect(message).not.toContain(longId);
  });
});

describe("8. smaller holes", () => {
  it("wrong admin tokens are limited per address, and unknown /admin routes ask for the token first", async () => {
    const limited = await startHttpTestApp({ RATE_LIMIT_ADMIN_FAILURES_PER_MIN: String(ADMIN_FAILURES) });
    try {
      const admin = (token: string, path = "/admin/workspaces/00000000-0000-4000-8000-000000000000") =>
        fetch(`${limited.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      await expectError(await admin("wrong", "/admin/no-such-route"), 401, "invalid_api_key");
      for (let i = 1; i < ADMIN_FAILURES; i += 1) {
        await expectError(await admin(`wrong-${i}`), 401, "invalid_api_key");
      }
      const blocked = await admin(ADMIN_TOKEN);
      await expectError(blocked, 429, "rate_limited");
      expect(blocked.headers.get("retry-after")).toBe("60");
    } finally {
      await limited.close();
    }
  });

  it("a freshly registered client is no open redirector: its authorization errors stay on the page", async () => {
    const evil = await registerTestClient(t.baseUrl, { redirect_uris: ["https://evil.test/landing"] });
    const url = `${t.baseUrl}/oauth/authorize?response_type=token&client_id=${evil.client_id}&redirect_uri=${encodeURIComponent("https://evil.test/landing")}`;
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("unsupported_response_type");
  });

  it("/v1 answers carry Cache-Control: no-store and nosniff", async () => {
    const ws = await createWorkspace(t.app, { name: "headers" });
    for (const response of [await call("/v1/credits", { auth: ws.key }), await call("/v1/nothing")]) {
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });
});
