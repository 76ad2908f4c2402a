import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminRequest,
  createWorkspace,
  startSiblingApp,
  startTestApp,
  type TestApp,
  type TestWorkspace,
} from "../../support/app.ts";

const PLACES_FIXTURE_FILE = fileURLToPath(new URL("../../../fixtures/places.example.json", import.meta.url));

type Json = Record<string, unknown>;
interface Operation extends Json {
  responses: Record<string, { description: string; content?: Record<string, { schema?: Json }> }>;
  parameters?: { in: string; name: string; required?: boolean; schema: Json }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
  security?: Record<string, string[]>[];
  "x-rate-limit"?: { bucket: string; requests_per_minute: number };
}
interface OpenApiDoc extends Json {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Json>; schemas: Record<string, Json> };
}

let t: TestApp;
let doc: OpenApiDoc;

beforeAll(async () => {
  t = await startTestApp({
    RATE_LIMIT_READ_PER_MIN: "1000",
    RATE_LIMIT_SEARCH_PER_MIN: "1000",
    PLACES_FIXTURE_FILE,
  });
  const response = await t.app.inject({ url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  doc = response.json() as OpenApiDoc;
});
afterAll(() => t?.close());

/** A second app on the same database with its own config. */
const startSibling = (env: Record<string, string>) => startSiblingApp(t.database.db, env);

/** Follows local `#/components/...` references. */
function resolve(schema: Json): Json {
  let current = schema;
  for (let depth = 0; typeof current.$ref === "string" && depth < 10; depth += 1) {
    const path = (current.$ref as string).replace(/^#\//, "").split("/");
    let target: unknown = doc;
    for (const segment of path) target = (target as Json)[segment];
    expect(target, `unresolvable $ref ${current.$ref as string}`).toBeDefined();
    current = target as Json;
  }
  return current;
}

/** The object schema of a nullable body (`anyOf: [object, null]`), or the schema itself. */
function objectBranch(schema: Json): Json {
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (!branches) return schema;
  const object = branches.map(resolve).find((branch) => branch.type === "object");
  expect(object, "an object branch").toBeDefined();
  return object!;
}

function operation(path: string, method: string): Operation {
  const op = doc.paths[path]?.[method];
  expect(op, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
  return op!;
}

/** The routes of the spec, with the error status codes and codes the spec lists for each. */
const SPEC_ROUTES: {
  method: string;
  path: string;
  auth: boolean;
  errors: Record<number, string[]>;
}[] = [
  { method: "get", path: "/openapi.json", auth: false, errors: {} },
  { method: "get", path: "/v1/docs", auth: false, errors: {} },
  {
    method: "get",
    path: "/v1/leads",
    auth: true,
    errors: { 400: ["invalid_request"], 401: ["invalid_api_key"], 429: ["rate_limited"] },
  },
  {
    method: "get",
    path: "/v1/leads/{id}",
    auth: true,
    errors: { 400: ["invalid_request"], 401: ["invalid_api_key"], 404: ["lead_not_found"] },
  },
  { method: "get", path: "/v1/credits", auth: true, errors: { 401: ["invalid_api_key"] } },
  {
    method: "post",
    path: "/v1/searches",
    auth: true,
    errors: {
      400: ["invalid_request"],
      401: ["invalid_api_key"],
      402: ["insufficient_credits"],
      413: ["request_too_large"],
      429: ["rate_limited"],
    },
  },
  {
    method: "post",
    path: "/v1/leads/{id}/outreach-draft",
    auth: true,
    errors: {
      400: ["invalid_request"],
      401: ["invalid_api_key"],
      402: ["insufficient_credits"],
      // DESIGN.md, lawful outreach: a suppressed lead.
      403: ["lead_not_unlocked"],
      404: ["lead_not_found"],
      413: ["request_too_large"],
      422: ["insufficient_audit_data"],
      429: ["rate_limited"],
      502: ["generation_failed"],
    },
  },
];

/** DESIGN.md: every authenticated /v1 route can also answer these. */
const COMMON_AUTHENTICATED_ERRORS: Record<number, string[]> = {
  400: ["invalid_request"],
  401: ["invalid_api_key"],
  403: ["cross_origin_forbidden"],
  429: ["rate_limited"],
  500: ["internal_error"],
  503: ["rate_limit_unavailable", "service_unavailable"],
};

describe("GET /openapi.json", () => {
  it("needs no authentication and is JSON", async () => {
    const response = await t.app.inject({ url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("is a valid OpenAPI document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("is OpenAPI 3.1.x, version 1.0.0", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.info.title).toEqual(expect.any(String));
  });

  it("names the server the API is reached at", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: t.config.publicUrl, "x-internal": false })]);
  });
});

describe("named schemas", () => {
  const refName = (schema: Json | undefined) =>
    typeof schema?.$ref === "string" ? schema.$ref.replace("#/components/schemas/", "") : undefined;

  it("has no component named Error (it would shadow the built-in Error in generated code)", () => {
    expect(Object.keys(doc.components.schemas)).not.toContain("Error");
  });

  it("has one schema per shape: no Input twin, and every component is used", () => {
    const names = Object.keys(doc.components.schemas);
    expect(names.filter((name) => name.endsWith("Input"))).toEqual([]);
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } });
    const reachable = new Set<string>();
    const pending = [text];
    while (pending.length > 0) {
      for (const [, name] of pending.pop()!.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
        if (reachable.has(name!)) continue;
        reachable.add(name!);
        pending.push(JSON.stringify(doc.components.schemas[name!]));
      }
    }
    expect(names.filter((name) => !reachable.has(name))).toEqual([]);
  });

  it("lets answers' objects grow (clients ignore new fields) and closes requests' objects", () => {
    const answers = [
      "LeadSummary",
      "LeadDetail",
      "LeadPage",
      "SearchResponse",
      "SearchResultLead",
      "OutreachDraft",
      "Credits",
    ];
    for (const name of answers)
      expect(JSON.stringify(doc.components.schemas[name]), name).not.toContain("additionalProperties");
    for (const name of ["SearchRequest", "SearchQuery", "SearchFilters"]) {
      expect(doc.components.schemas[name]!.additionalProperties, name).toBe(false);
    }
  });

  it("names the shared objects: search queries, filters, leads, the page and the draft", () => {
    const request = doc.components.schemas.SearchRequest as { properties: Record<string, Json> };
    expect(refName(request.properties.queries!.items as Json)).toBe("SearchQuery");
    expect(refName(request.properties.filters)).toBe("SearchFilters");
    const page = doc.components.schemas.LeadPage as { properties: Record<string, Json> };
    expect(refName(page.properties.leads!.items as Json)).toBe("LeadSummary");
    for (const name of ["LeadDetail", "SearchResponse", "SearchResultLead", "OutreachDraft", "Credits"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it.each(SPEC_ROUTES.filter((route) => route.auth))(
    "$method $path: each error status's code is the enum of exactly the codes it answers with that status",
    ({ method, path, errors }) => {
      const op = operation(path, method);
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        const expected = [errors[Number(status)], COMMON_AUTHENTICATED_ERRORS[Number(status)]].flat();
        const schema = resolve(response.content!["application/json"]!.schema!);
        const error = resolve((schema.properties as Record<string, Json>).error!);
        const code = (error.properties as Record<string, Json>).code!;
        expect(code.type).toBe("string");
        expect([...(code.enum as string[])].sort(), `${method} ${path} ${status}`).toEqual(
          [...new Set(expected.filter((known) => known !== undefined))].sort(),
        );
      }
    },
  );
});

describe("coverage of the spec's routes", () => {
  it.each(SPEC_ROUTES)("documents $method $path", ({ method, path }) => {
    const op = operation(path, method);
    expect(op.responses["200"]).toBeDefined();
    expect(op.operationId).toEqual(expect.any(String));
    expect(op.summary ?? op.description).toEqual(expect.any(String));
  });

  it("documents no other /v1 route, and nothing under /admin", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    expect(documented.filter((route) => route.includes("/admin"))).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain("/admin");
    const v1 = (routes: string[]) => routes.filter((route) => route.split(" ")[1]!.startsWith("/v1")).sort();
    expect(v1(documented)).toEqual(v1(SPEC_ROUTES.map(({ method, path }) => `${method} ${path}`)));
  });

  it("has unique operation ids", () => {
    const ids = SPEC_ROUTES.map(({ method, path }) => operation(path, method).operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(SPEC_ROUTES.filter((route) => route.auth))(
    "$method $path documents every error the spec lists for it, as the error object",
    ({ method, path, errors }) => {
      const op = operation(path, method);
      for (const [status, codes] of Object.entries({ ...errors, ...COMMON_AUTHENTICATED_ERRORS })) {
        const response = op.responses[status];
        expect(response, `${method} ${path} documents ${status}`).toBeDefined();
        for (const code of codes) expect(response!.description, `${path} ${status}`).toContain(code);
        const schema = response!.content?.["application/json"]?.schema;
        expect(schema, `${path} ${status} has a JSON schema`).toBeDefined();
        const resolved = resolve(schema!);
        expect(resolved.required).toEqual(["error"]);
        const error = resolve((resolved.properties as Record<string, Json>).error!);
        expect(Object.keys(error.properties as Json).sort()).toEqual(["code", "message"]);
      }
    },
  );

  it("documents the content type of the public routes", () => {
    expect(Object.keys(operation("/v1/docs", "get").responses["200"]!.content ?? {})).toEqual([
      expect.stringMatching(/^text\/markdown/),
    ]);
    expect(Object.keys(operation("/openapi.json", "get").responses["200"]!.content ?? {})).toEqual([
      "application/json",
    ]);
  });

  it("documents the lead list's query parameters and the lead id", () => {
    const list = operation("/v1/leads", "get");
    const names = (list.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    expect(names.sort()).toEqual(["cursor", "limit"]);
    for (const path of ["/v1/leads/{id}", "/v1/leads/{id}/outreach-draft"]) {
      const id = (operation(path, path.endsWith("draft") ? "post" : "get").parameters ?? []).find(
        (p) => p.in === "path" && p.name === "id",
      );
      expect(id?.required).toBe(true);
    }
  });

  it("documents the draft's facts_used and the search result fields", () => {
    const draft = resolve(
      operation("/v1/leads/{id}/outreach-draft", "post").responses["200"]!.content!["application/json"]!
        .schema!,
    );
    expect(Object.keys(draft.properties as Json).sort()).toEqual(["body", "facts_used", "subject"]);
    expect((draft.properties as Record<string, Json>).facts_used!.maxItems).toBe(2);
    const search = resolve(
      operation("/v1/searches", "post").responses["200"]!.content!["application/json"]!.schema!,
    );
    expect(Object.keys(search.properties as Json).sort()).toEqual(["credits_spent", "results", "truncated"]);
    const item = resolve((search.properties as Record<string, Json>).results!.items as Json);
    expect(Object.keys(item.properties as Json)).toEqual(
      expect.arrayContaining([
        "id",
        "place_id",
        "name",
        "category",
        "address",
        "website",
        "has_website",
        "is_mobile_friendly",
        "is_outdated",
      ]),
    );
  });
});

describe("security", () => {
  it("declares the bearer scheme and the OAuth 2.0 authorization code flow with email and profile", () => {
    const schemes = Object.values(doc.components.securitySchemes);
    const bearer = schemes.find((scheme) => scheme.type === "http");
    expect(bearer).toMatchObject({ type: "http", scheme: "bearer" });
    const oauth = schemes.find((scheme) => scheme.type === "oauth2") as
      | { flows: { authorizationCode?: { authorizationUrl: string; tokenUrl: string; scopes: Json } } }
      | undefined;
    const flow = oauth?.flows.authorizationCode;
    expect(flow).toBeDefined();
    expect(Object.keys(flow!.scopes).sort()).toEqual(["email", "profile"]);
    expect(flow!.authorizationUrl).toMatch(/\/authorize$/);
    expect(() => new URL(flow!.tokenUrl)).not.toThrow();
    // Refresh tokens are issued, at the token endpoint.
    expect((flow as { refreshUrl?: string }).refreshUrl).toBe(flow!.tokenUrl);
  });

  it.each(SPEC_ROUTES)(
    "$method $path: key and OAuth token when authenticated, nothing when public",
    ({ method, path, auth }) => {
      const security = operation(path, method).security;
      if (!auth) {
        expect(security).toEqual([]);
        return;
      }
      const [bearerName, oauthName] = ["http", "oauth2"].map(
        (type) =>
          Object.entries(doc.components.securitySchemes).find(([, scheme]) => scheme.type === type)?.[0],
      );
      expect(security).toEqual(
        expect.arrayContaining([
          { [bearerName!]: [] },
          { [oauthName!]: expect.arrayContaining(["email", "profile"]) },
        ]),
      );
    },
  );

  it("the public routes answer without a key, the others do not", async () => {
    for (const { method, path, auth } of SPEC_ROUTES) {
      const url = path.replace("{id}", randomUUID());
      const response = await t.app.inject({ method: method.toUpperCase() as "GET" | "POST", url });
      if (auth) expect(response.statusCode, url).toBe(401);
      else expect(response.statusCode, url).toBe(200);
    }
  });
});

describe("rate limits in the document", () => {
  const BUCKETS: Record<string, "read" | "search"> = {
    "get /v1/leads": "read",
    "get /v1/leads/{id}": "read",
    "get /v1/credits": "read",
    "post /v1/leads/{id}/outreach-draft": "read",
    "post /v1/searches": "search",
  };

  async function documentWith(env: Record<string, string>): Promise<OpenApiDoc> {
    const sibling = await startSibling(env);
    try {
      return (await sibling.app.inject({ url: "/openapi.json" })).json() as OpenApiDoc;
    } finally {
      await sibling.close();
    }
  }

  function expectLimits(document: OpenApiDoc, read: number, search: number) {
    for (const [route, bucket] of Object.entries(BUCKETS)) {
      const [method, path] = route.split(" ") as [string, string];
      const limit = document.paths[path]?.[method]?.["x-rate-limit"];
      expect(limit, route).toMatchObject({
        bucket,
        requests_per_minute: bucket === "search" ? search : read,
      });
    }
    expect(document.info.description).toContain(`${read} requests per minute`);
    expect(document.info.description).toContain(`${search} requests per minute`);
    expect(document.info.description).toContain("Retry-After");
  }

  it("states the defaults in force: 30 and 5 per minute", async () => {
    expectLimits(await documentWith({}), 30, 5);
  });

  it("follows RATE_LIMIT_READ_PER_MIN and RATE_LIMIT_SEARCH_PER_MIN", async () => {
    const document = await documentWith({ RATE_LIMIT_READ_PER_MIN: "47", RATE_LIMIT_SEARCH_PER_MIN: "3" });
    expectLimits(document, 47, 3);
    expect(document.info.description).not.toContain("30 requests per minute");
  });

  it("states what this app enforces", () => {
    expectLimits(doc, 1000, 1000);
  });

  it("counts per API key, and an OAuth token per approving member and workspace, in words and in x-rate-limit", () => {
    for (const route of Object.keys(BUCKETS)) {
      const [method, path] = route.split(" ") as [string, string];
      const limit = operation(path, method)["x-rate-limit"] as unknown as { per: Record<string, string> };
      expect(limit.per.api_key).toMatch(/API key/);
      expect(limit.per.oauth_token).toMatch(/member who approved/);
      expect(limit.per.oauth_token).toMatch(/workspace/);
    }
    expect(doc.info.description).not.toMatch(/counts against the API key that approved/);
    expect(doc.info.description).toMatch(/per workspace member who approved it/);
  });

  it("puts no limit on the public routes", () => {
    expect(operation("/openapi.json", "get")["x-rate-limit"]).toBeUndefined();
    expect(operation("/v1/docs", "get")["x-rate-limit"]).toBeUndefined();
  });
});

describe("the document and the code agree", () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createWorkspace(t.app);
    // Out of the free trial, with credits to spare, so that only the schema decides.
    const bought = await adminRequest(t.app, "POST", `/admin/workspaces/${ws.workspaceId}/credit-purchases`, {
      credits: 1000,
    });
    expect(bought.statusCode).toBe(201);
  });

  function limitSchema(): { minimum: number; maximum: number } {
    const limit = operation("/v1/leads", "get").parameters?.find(
      (p) => p.in === "query" && p.name === "limit",
    );
    expect(limit?.schema).toMatchObject({
      type: "integer",
      minimum: expect.any(Number),
      maximum: expect.any(Number),
    });
    return limit!.schema as { minimum: number; maximum: number };
  }

  it("documents limit as 1 to 100 (default 25), as the spec says", () => {
    expect(limitSchema()).toMatchObject({ minimum: 1, maximum: 100, default: 25 });
  });

  it("rejects with 400 a limit outside the documented range, and accepts its bounds", async () => {
    const { minimum, maximum } = limitSchema();
    for (const limit of [maximum + 1, minimum - 1]) {
      const response = await t.app.inject({ url: `/v1/leads?limit=${limit}`, headers: ws.auth });
      expect(response.statusCode, `limit=${limit}`).toBe(400);
      expect(response.json().error.code).toBe("invalid_request");
    }
    for (const limit of [minimum, maximum]) {
      expect((await t.app.inject({ url: `/v1/leads?limit=${limit}`, headers: ws.auth })).statusCode).toBe(
        200,
      );
    }
  });

  it("refuses an unknown query parameter alike on every route of the document, naming it", async () => {
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => ({ path, method: method.toUpperCase() as "GET" | "POST" })),
    );
    expect(routes.length).toBe(SPEC_ROUTES.length);
    for (const { path, method } of routes) {
      const response = await t.app.inject({
        method,
        url: `${path.replace("{id}", randomUUID())}?limt=5`,
        headers: path.startsWith("/v1/") && path !== "/v1/docs" ? ws.auth : {},
        ...(path === "/v1/searches"
          ? { payload: { queries: [{ location: "Ottawa", category: "plumber" }], max_results: 1 } }
          : {}),
      });
      expect(response.statusCode, `${method} ${path}`).toBe(400);
      expect(response.json().error, `${method} ${path}`).toEqual({
        code: "invalid_request",
        message: "query.limt: unknown parameter",
      });
    }
  });

  it("rejects with 400 a lead id that is not what the document says", async () => {
    const id = operation("/v1/leads/{id}", "get").parameters?.find((p) => p.in === "path" && p.name === "id");
    expect(id?.schema.format === "uuid" || typeof id?.schema.pattern === "string").toBe(true);
    for (const url of ["/v1/leads/12345", "/v1/leads/not-a-uuid"]) {
      expect((await t.app.inject({ url, headers: ws.auth })).statusCode).toBe(400);
    }
  });

  function searchSchema() {
    const body = operation("/v1/searches", "post").requestBody;
    expect(body?.content["application/json"]).toBeDefined();
    const schema = objectBranch(resolve(body!.content["application/json"]!.schema));
    const properties = schema.properties as Record<string, Json>;
    return {
      schema,
      queries: resolve(properties.queries!) as { minItems: number; maxItems: number; items: Json },
      maxResults: resolve(properties.max_results!) as { minimum: number; maximum: number },
      filters: resolve(properties.filters!) as {
        properties: Record<string, Json>;
        additionalProperties?: unknown;
      },
    };
  }

  it("documents the search request as the spec says", () => {
    const { schema, queries, maxResults, filters } = searchSchema();
    expect([...(schema.required as string[])].sort()).toEqual(["max_results", "queries"]);
    expect(queries).toMatchObject({ minItems: 1, maxItems: 5 });
    expect(maxResults).toMatchObject({ minimum: 1, maximum: 25 });
    expect([...(resolve(queries.items).required as string[])].sort()).toEqual(["category", "location"]);
    expect(Object.keys(filters.properties).sort()).toEqual([
      "min_rating",
      "no_website",
      "not_mobile_friendly",
      "outdated_website",
      "stale_content",
    ]);
    expect(filters.properties.min_rating).toMatchObject({ minimum: 0, maximum: 5 });
  });

  it("rejects with 400 every search body the document says is invalid", async () => {
    const { schema, queries, maxResults, filters } = searchSchema();
    const query = { location: "Ottawa", category: "plumber" };
    const valid = { queries: [query], max_results: 1 };
    const invalid: [string, unknown][] = [
      [`${queries.maxItems + 1} queries`, { ...valid, queries: Array(queries.maxItems + 1).fill(query) }],
      [`${queries.minItems - 1} queries`, { ...valid, queries: Array(queries.minItems - 1).fill(query) }],
      [`max_results ${maxResults.maximum + 1}`, { ...valid, max_results: maxResults.maximum + 1 }],
      [`max_results ${maxResults.minimum - 1}`, { ...valid, max_results: maxResults.minimum - 1 }],
      ["max_results 1.5", { ...valid, max_results: 1.5 }],
      [
        "min_rating above its maximum",
        { ...valid, filters: { min_rating: (filters.properties.min_rating!.maximum as number) + 0.5 } },
      ],
      ["a filter of the wrong type", { ...valid, filters: { no_website: "yes" } }],
      ...(schema.required as string[]).map(
        (field) =>
          [`no ${field}`, Object.fromEntries(Object.entries(valid).filter(([key]) => key !== field))] as [
            string,
            unknown,
          ],
      ),
      ...(resolve(queries.items).required as string[]).map(
        (field) =>
          [
            `a query without ${field}`,
            {
              ...valid,
              queries: [Object.fromEntries(Object.entries(query).filter(([key]) => key !== field))],
            },
          ] as [string, unknown],
      ),
    ];
    if (schema.additionalProperties === false)
      invalid.push(["an unknown field", { ...valid, sort: "rating" }]);
    if (filters.additionalProperties === false) {
      invalid.push(["an unknown filter", { ...valid, filters: { has_email: true } }]);
    }
    expect(invalid.length).toBeGreaterThanOrEqual(10);
    for (const [label, payload] of invalid) {
      const response = await t.app.inject({
        method: "POST",
        url: "/v1/searches",
        headers: ws.auth,
        payload: payload as Json,
      });
      expect(response.statusCode, label).toBe(400);
      expect(response.json().error.code, label).toBe("invalid_request");
    }
  });

  it("accepts search bodies at the documented bounds", async () => {
    const { queries, maxResults } = searchSchema();
    const query = { location: "Ottawa", category: "plumber" };
    for (const payload of [
      { queries: Array(queries.minItems).fill(query), max_results: maxResults.minimum },
      {
        queries: Array.from({ length: queries.maxItems }, (_, i) => ({ ...query, location: `Ottawa ${i}` })),
        max_results: maxResults.maximum,
        filters: { min_rating: 0, no_website: false },
      },
    ]) {
      const response = await t.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth, payload });
      expect(response.statusCode, response.body).toBe(200);
    }
  });

  it("marks the search body required and the draft body optional, as the code treats them", async () => {
    expect(operation("/v1/searches", "post").requestBody?.required).toBe(true);
    expect(operation("/v1/leads/{id}/outreach-draft", "post").requestBody?.required).not.toBe(true);
    const noBody = await t.app.inject({ method: "POST", url: "/v1/searches", headers: ws.auth });
    expect(noBody.statusCode).toBe(400);
    const noDraftBody = await t.app.inject({
      method: "POST",
      url: `/v1/leads/${randomUUID()}/outreach-draft`,
      headers: ws.auth,
    });
    expect(noDraftBody.json().error.code).toBe("lead_not_found");
  });

  it("rejects with 400 a draft locale outside the documented enum, before looking up the lead", async () => {
    const body = operation("/v1/leads/{id}/outreach-draft", "post").requestBody;
    expect(body?.content["application/json"]).toBeDefined();
    const schema = objectBranch(resolve(body!.content["application/json"]!.schema));
    const locale = resolve((schema.properties as Record<string, Json>).locale!);
    expect([...(locale.enum as string[])].sort()).toEqual(["en", "fr"]);
    const url = `/v1/leads/${randomUUID()}/outreach-draft`;
    for (const bad of ["de", "EN", "", 1]) {
      const response = await t.app.inject({
        method: "POST",
        url,
        headers: ws.auth,
        payload: { locale: bad },
      });
      expect(response.statusCode, String(bad)).toBe(400);
    }
    // Documented values pass validation and reach the lead lookup.
    for (const good of locale.enum as string[]) {
      const response = await t.app.inject({
        method: "POST",
        url,
        headers: ws.auth,
        payload: { locale: good },
      });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe("lead_not_found");
    }
  });
});

describe("lawful outreach in the document", () => {
  it("documents email_status and email_source on the lead detail", () => {
    const detail = resolve(
      operation("/v1/leads/{id}", "get").responses["200"]!.content!["application/json"]!.schema!,
    );
    const properties = detail.properties as Record<string, Json>;
    const status = resolve(properties.email_status!);
    expect(JSON.stringify(status)).toContain('"deliverable","risky","undeliverable","unknown"');
    expect(String(status.description)).toMatch(/DNS only/);
    const source = JSON.stringify(properties.email_source);
    const sourceSchema = resolve(
      ((properties.email_source!.anyOf as Json[] | undefined)?.find((option) => option.type !== "null") ??
        properties.email_source!) as Json,
    );
    expect(Object.keys(sourceSchema.properties as Json).sort()).toEqual([
      "first_seen_at",
      "found_in",
      "last_seen_at",
      "solicitation_refused",
      "url",
    ]);
    expect(JSON.stringify(resolve((sourceSchema.properties as Record<string, Json>).found_in!))).toContain(
      '"mailto","json_ld","microdata","text","cloudflare"',
    );
    expect(source).not.toBe("");
    expect(detail.required).toEqual(expect.arrayContaining(["email_status", "email_source"]));
  });

  it("documents the 403 of a suppressed lead on the draft route, and skipped for suppressed leads", () => {
    const draft = operation("/v1/leads/{id}/outreach-draft", "post");
    expect(String(draft.responses["403"]?.description)).toContain("lead_not_unlocked");
    expect(String(draft.description)).toMatch(/suppression list/);
    expect(String(draft.description)).toMatch(/postal address and an opt-out/);
    const lead = resolve(
      operation("/v1/leads/{id}", "get").responses["200"]!.content!["application/json"]!.schema!,
    );
    const status = resolve((lead.properties as Record<string, Json>).outreach_status!);
    expect(String(status.description)).toMatch(/skipped also while .* suppression list/);
  });
});
