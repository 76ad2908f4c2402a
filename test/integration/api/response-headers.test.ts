import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenWhileStarting, type StartingServer } from "../../../api/starting-server.ts";
import { createLogger } from "../../../shared/logger.ts";
import {
  adminRequest,
  createWorkspace,
  type SiblingApp,
  startSiblingApp,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";
import { createTestDatabase } from "../../support/database.ts";
import { seedLead } from "../../support/drafting.ts";
import { type FakeOpenAiServer, startFakeOpenAi } from "../../support/fake-openai.ts";

/**
 * Every header the service sends on an answer of a documented route is declared for that answer
 * (status) in /openapi.json, with a value its schema allows; every header declared required is
 * sent. Each /v1 route is driven through its happy answer and every error answer the test can
 * cause, over real sockets, on nodes in the states that give them: a normal node, one with tiny
 * rate limits (429), one without a places provider (a search's 500), one whose database is gone
 * (500 before anything is counted), an LLM drafter whose model fails (502), and a node still
 * starting (503 with Retry-After).
 */

const PLACES_FIXTURE_FILE = fileURLToPath(new URL("../../../fixtures/places.example.json", import.meta.url));

/** HTTP's own framing and representation metadata, which OpenAPI does not declare per response. */
const FRAMING = new Set([
  "content-type",
  "content-length",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
]);

type Json = Record<string, unknown>;
interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: { type?: string; enum?: string[]; pattern?: string; maxLength?: number; minimum?: number };
}
interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: Json }>;
}
interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses: Record<string, ResponseObject>; "x-rate-limit"?: unknown }>
  >;
  components: { headers: Record<string, HeaderObject>; schemas: Record<string, Json> };
}

let fake: FakeOpenAiServer;
let t: TestApp;
let limited: SiblingApp;
let noProvider: SiblingApp;
let llm: SiblingApp;
let brokenDatabase: SiblingApp;
let starting: StartingServer;
let doc: OpenApiDoc;
let ws: TestWorkspace;
const urls = new Map<unknown, string>();

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  t = await startTestApp({
    RATE_LIMIT_READ_PER_MIN: "1000",
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    PLACES_FIXTURE_FILE,
  });
  limited = await startSiblingApp(t.database.db, {
    RATE_LIMIT_READ_PER_MIN: "1",
    RATE_LIMIT_SEARCH_PER_MIN: "1",
    PLACES_FIXTURE_FILE,
  });
  noProvider = await startSiblingApp(t.database.db, { RATE_LIMIT_SEARCH_PER_MIN: "1000" });
  llm = await startSiblingApp(t.database.db, {
    RATE_LIMIT_READ_PER_MIN: "1000",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_MODEL: "test-model",
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_TIMEOUT_MS: "2000",
  });
  const doomed = await createTestDatabase();
  brokenDatabase = await startSiblingApp(doomed.db, { DATABASE_CONNECT_TIMEOUT_MS: "1000" });
  await doomed.close();
  for (const node of [t, limited, noProvider, llm, brokenDatabase]) urls.set(node, await listen(node.app));
  starting = await listenWhileStarting({ port: 0, host: "127.0.0.1" }, createLogger("silent", "test"));
  urls.set(starting, `http://127.0.0.1:${starting.port}`);
  doc = (await t.app.inject({ url: "/openapi.json" })).json() as OpenApiDoc;
  ws = await createWorkspace(t.app);
});

afterAll(async () => {
  await starting?.close();
  for (const node of [limited, noProvider, llm, brokenDatabase]) await node?.close();
  await t?.close();
  await fake?.close();
});

interface Exchange {
  label: string;
  /** The node to ask; default the normal one. */
  node?: () => unknown;
  method: "GET" | "POST";
  /** The documented path, `{id}` included. */
  path: string;
  /** The URL asked, when it is not the path with a fresh uuid as id. */
  url?: () => string;
  headers?: () => Record<string, string>;
  body?: unknown;
  status: number;
  code?: string;
}

const auth = () => ws.auth;
const json = { "content-type": "application/json" };
const search = { queries: [{ location: "Ottawa", category: "plumber" }], max_results: 1 };

/** What each status of each route means here; `check` runs every exchange and compares. */
const exercised: { method: string; path: string; status: number }[] = [];

async function check(exchange: Exchange): Promise<void> {
  const base = urls.get(exchange.node?.() ?? t)!;
  const url = exchange.url?.() ?? exchange.path.replace("{id}", randomUUID());
  const response = await request(`${base}${url}`, {
    method: exchange.method,
    headers: {
      ...(exchange.body === undefined ? {} : json),
      ...(exchange.headers?.() ?? {}),
    },
    ...(exchange.body === undefined
      ? {}
      : { body: typeof exchange.body === "string" ? exchange.body : JSON.stringify(exchange.body) }),
  });
  const text = await response.body.text();
  expect(response.statusCode, `${exchange.label}: ${text}`).toBe(exchange.status);
  const body = text.startsWith("{") ? (JSON.parse(text) as { error?: { code: string } }) : undefined;
  if (exchange.code) expect(body?.error?.code, exchange.label).toBe(exchange.code);

  const operation = doc.paths[exchange.path]?.[exchange.method.toLowerCase()];
  expect(operation, `${exchange.method} ${exchange.path} is documented`).toBeDefined();
  const declared = operation!.responses[String(response.statusCode)];
  expect(declared, `${exchange.label}: status ${response.statusCode} is documented`).toBeDefined();
  exercised.push({ method: exchange.method.toLowerCase(), path: exchange.path, status: response.statusCode });

  const headers = Object.fromEntries(
    Object.entries(declared!.headers ?? {}).map(([name, header]) => [
      name.toLowerCase(),
      resolveHeader(header),
    ]),
  );
  const sent = Object.entries(response.headers).filter(([name]) => !FRAMING.has(name));
  const undeclared = sent.map(([name]) => name).filter((name) => !(name in headers));
  expect(undeclared, `${exchange.label}: headers sent but not declared for ${response.statusCode}`).toEqual(
    [],
  );
  for (const [name, value] of sent) {
    expectAllowed(headers[name]!, String(value), `${exchange.label}: ${name}`);
  }
  for (const [name, header] of Object.entries(headers)) {
    if (header.required) expect(response.headers[name], `${exchange.label}: required ${name}`).toBeDefined();
  }
  // What the components' words promise: the count on every 2XX and 429 of a limited route, Retry-After on 429.
  if (operation!["x-rate-limit"] && (response.statusCode < 300 || response.statusCode === 429)) {
    for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy"]) {
      expect(response.headers[name], `${exchange.label}: ${name}`).toBeDefined();
    }
  }
  if (response.statusCode === 429) expect(response.headers["retry-after"], exchange.label).toBe("60");

  const askedId = exchange.headers?.()["x-request-id"];
  if (askedId) expect(response.headers["x-request-id"], exchange.label).toBe(askedId);

  // The code is one the document lists for this answer.
  if (body?.error) {
    const schema = resolveSchema(declared!.content!["application/json"]!.schema!);
    const error = resolveSchema((schema.properties as Record<string, Json>).error!);
    const code = (error.properties as Record<string, { enum: string[] }>).code!;
    expect(code.enum, exchange.label).toContain(body.error.code);
  }
}

function resolveHeader(header: HeaderObject): HeaderObject {
  if (!header.$ref) return header;
  const name = header.$ref.replace("#/components/headers/", "");
  const target = doc.components.headers[name];
  expect(target, header.$ref).toBeDefined();
  return target!;
}

function resolveSchema(schema: Json): Json {
  if (typeof schema.$ref !== "string") return schema;
  return doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")]!;
}

function expectAllowed(header: HeaderObject, value: string, label: string): void {
  const schema = header.schema ?? {};
  if (schema.type === "integer") {
    expect(value, label).toMatch(/^\d+$/);
    if (schema.minimum !== undefined) expect(Number(value), label).toBeGreaterThanOrEqual(schema.minimum);
  }
  if (schema.enum) expect(schema.enum, label).toContain(value);
  if (schema.pattern) expect(value, label).toMatch(new RegExp(schema.pattern));
  if (schema.maxLength !== undefined) expect(value.length, label).toBeLessThanOrEqual(schema.maxLength);
}

const origin = () => ({ ...ws.auth, origin: "https://evil.example" });
const V1_READS = [
  { path: "/v1/credits", badQuery: "/v1/credits?verbose=1" },
  { path: "/v1/leads", badQuery: "/v1/leads?limit=0" },
  { path: "/v1/leads/{id}", badQuery: "/v1/leads/not-a-uuid" },
] as const;

/** The answers every /v1 route gives alike, whatever it does. */
function commonAnswers(method: "GET" | "POST", path: string, body?: unknown): Exchange[] {
  const route = `${method} ${path}`;
  return [
    { label: `${route} 401`, method, path, body, status: 401, code: "invalid_api_key" },
    {
      label: `${route} 401 (a wrong key)`,
      method,
      path,
      body,
      headers: () => ({ authorization: "Bearer lk_wrong" }),
      status: 401,
      code: "invalid_api_key",
    },
    {
      label: `${route} 403`,
      method,
      path,
      body,
      headers: origin,
      status: 403,
      code: "cross_origin_forbidden",
    },
    {
      label: `${route} 500 (database gone)`,
      node: () => brokenDatabase,
      method,
      path,
      body,
      headers: auth,
      status: 500,
      code: "internal_error",
    },
    {
      label: `${route} 503 (node starting)`,
      node: () => starting,
      method,
      path,
      body,
      headers: auth,
      status: 503,
      code: "service_unavailable",
    },
    {
      label: `${route} with the client's X-Request-Id`,
      method,
      path,
      body,
      headers: () => ({ ...ws.auth, "x-request-id": "req-123.abc_X" }),
      status: 0,
    },
  ];
}

describe("every header a /v1 answer carries is declared for it", () => {
  it.each(V1_READS)("GET $path: 200, 400, 401, 403, 404, 429, 500, 503", async ({ path, badQuery }) => {
    const leadId = await seedLead(t, ws);
    const url = () => path.replace("{id}", leadId);
    await check({ label: `GET ${path} 200`, method: "GET", path, url, headers: auth, status: 200 });
    await check({
      label: `GET ${path} 400`,
      method: "GET",
      path,
      url: () => badQuery,
      headers: auth,
      status: 400,
    });
    if (path === "/v1/leads/{id}") {
      await check({ label: "GET /v1/leads/{id} 404", method: "GET", path, headers: auth, status: 404 });
    }
    const key = await createWorkspace(limited.app);
    const limitedAuth = () => key.auth;
    await check({
      label: `GET ${path} (limited) 200`,
      node: () => limited,
      method: "GET",
      path: "/v1/credits",
      headers: limitedAuth,
      status: 200,
    });
    await check({
      label: `GET ${path} 429`,
      node: () => limited,
      method: "GET",
      path,
      url: () => path.replace("{id}", randomUUID()),
      headers: limitedAuth,
      status: 429,
      code: "rate_limited",
    });
    for (const exchange of commonAnswers("GET", path)) {
      if (exchange.status === 0) {
        await check({ ...exchange, url, status: 200 });
      } else {
        await check(exchange);
      }
    }
  });

  it("POST /v1/searches: 200, 400, 402, 413, 429, 500 (no provider), and the common answers", async () => {
    const path = "/v1/searches";
    const poor = await createWorkspace(t.app);
    await t.database.db
      .updateTable("workspaces")
      .set({ balance: 0 })
      .where("id", "=", poor.workspaceId)
      .execute();
    const exchanges: Exchange[] = [
      { label: "search 200", method: "POST", path, headers: auth, body: search, status: 200 },
      { label: "search 400 (body)", method: "POST", path, headers: auth, body: { queries: [] }, status: 400 },
      {
        label: "search 400 (query)",
        method: "POST",
        path,
        url: () => `${path}?dry_run=1`,
        headers: auth,
        body: search,
        status: 400,
      },
      {
        label: "search 402",
        method: "POST",
        path,
        headers: () => poor.auth,
        body: search,
        status: 402,
        code: "insufficient_credits",
      },
      {
        label: "search 413",
        method: "POST",
        path,
        headers: auth,
        body: JSON.stringify({ ...search, padding: "x".repeat(20_000) }),
        status: 413,
        code: "request_too_large",
      },
      {
        label: "search 500 (no provider)",
        node: () => noProvider,
        method: "POST",
        path,
        headers: auth,
        body: search,
        status: 500,
      },
      ...commonAnswers("POST", path, search).map((exchange) =>
        exchange.status === 0 ? { ...exchange, status: 200 } : exchange,
      ),
    ];
    for (const exchange of exchanges) await check(exchange);
    const key = await createWorkspace(limited.app);
    await check({
      label: "search (limited) 200",
      node: () => limited,
      method: "POST",
      path,
      headers: () => key.auth,
      body: search,
      status: 200,
    });
    await check({
      label: "search 429",
      node: () => limited,
      method: "POST",
      path,
      headers: () => key.auth,
      body: search,
      status: 429,
    });
  });

  it("POST /v1/leads/{id}/outreach-draft: 200, 400, 402, 404, 413, 422, 429, 502, and the common answers", async () => {
    const path = "/v1/leads/{id}/outreach-draft";
    const leadId = await seedLead(t, ws);
    const at = (id: string) => () => `/v1/leads/${id}/outreach-draft`;
    const poor = await createWorkspace(t.app);
    const poorLead = await seedLead(t, poor);
    await t.database.db
      .updateTable("workspaces")
      .set({ balance: 0 })
      .where("id", "=", poor.workspaceId)
      .execute();
    const unaudited = await seedLead(t, ws, { reviews: 80, audit: null });
    // A lead on the workspace's do-not-contact list: 403 after the request was counted.
    const suppressed = await seedLead(t, ws);
    const { place_id } = await t.database.db
      .selectFrom("leads")
      .select("place_id")
      .where("id", "=", suppressed)
      .executeTakeFirstOrThrow();
    const added = await adminRequest(t.app, "POST", `/admin/workspaces/${ws.workspaceId}/suppressions`, {
      place_id,
    });
    expect(added.statusCode, added.body).toBe(201);
    const llmWorkspace = await createWorkspace(llm.app);
    const llmLead = await seedLead(t, llmWorkspace);
    fake.respondWith({ kind: "malformed" });
    const exchanges: Exchange[] = [
      { label: "draft 200", method: "POST", path, url: at(leadId), headers: auth, status: 200 },
      {
        label: "draft 200 (with a body)",
        method: "POST",
        path,
        url: at(leadId),
        headers: auth,
        body: { locale: "fr" },
        status: 200,
      },
      {
        label: "draft 400",
        method: "POST",
        path,
        url: at(leadId),
        headers: auth,
        body: { locale: "de" },
        status: 400,
      },
      { label: "draft 402", method: "POST", path, url: at(poorLead), headers: () => poor.auth, status: 402 },
      { label: "draft 404", method: "POST", path, headers: auth, status: 404, code: "lead_not_found" },
      {
        label: "draft 403 (do not contact)",
        method: "POST",
        path,
        url: at(suppressed),
        headers: auth,
        status: 403,
        code: "lead_not_unlocked",
      },
      {
        label: "draft 413",
        method: "POST",
        path,
        url: at(leadId),
        headers: auth,
        body: JSON.stringify({ locale: "en", padding: "x".repeat(20_000) }),
        status: 413,
      },
      {
        label: "draft 422",
        method: "POST",
        path,
        url: at(unaudited),
        headers: auth,
        status: 422,
        code: "insufficient_audit_data",
      },
      {
        label: "draft 502",
        node: () => llm,
        method: "POST",
        path,
        url: at(llmLead),
        headers: () => llmWorkspace.auth,
        status: 502,
        code: "generation_failed",
      },
      ...commonAnswers("POST", path).map((exchange) =>
        exchange.status === 0 ? { ...exchange, url: at(leadId), status: 200 } : exchange,
      ),
    ];
    for (const exchange of exchanges) await check(exchange);
    const key = await createWorkspace(limited.app);
    await check({
      label: "draft (limited) credits 200",
      node: () => limited,
      method: "GET",
      path: "/v1/credits",
      headers: () => key.auth,
      status: 200,
    });
    await check({
      label: "draft 429",
      node: () => limited,
      method: "POST",
      path,
      headers: () => key.auth,
      status: 429,
    });
  });

  it("GET /openapi.json and GET /v1/docs: 200, 400, 403, 503, with no rate-limit headers", async () => {
    for (const path of ["/openapi.json", "/v1/docs"]) {
      await check({ label: `${path} 200`, method: "GET", path, status: 200 });
      await check({
        label: `${path} 400`,
        method: "GET",
        path,
        url: () => `${path}?format=yaml`,
        status: 400,
      });
    }
    await check({
      label: "/v1/docs 403",
      method: "GET",
      path: "/v1/docs",
      headers: () => ({ origin: "https://x.example" }),
      status: 403,
    });
    for (const path of ["/openapi.json", "/v1/docs"]) {
      await check({
        label: `${path} 503 (node starting)`,
        node: () => starting,
        method: "GET",
        path,
        status: 503,
      });
    }
  });

  it("drove every documented answer of every route", () => {
    // The reference routes read no database and call nothing: there is no fault to cause their 500.
    const notDriven = new Set(["get /openapi.json 500", "get /v1/docs 500"]);
    const missing = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.keys(operation.responses)
          .map((status) => `${method} ${path} ${status}`)
          .filter((answer) => !notDriven.has(answer))
          .filter((answer) => !exercised.some((e) => `${e.method} ${e.path} ${e.status}` === answer)),
      ),
    );
    expect(missing).toEqual([]);
  });
});
