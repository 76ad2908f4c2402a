/**
 * Per-status error enums in /openapi.json (issue 33 item 8): under each error status of a route,
 * the `code` enum is exactly the codes that route answers with that status, a 400 never listing
 * `internal_error`. The route's codes are read from the declaration its handler runs (the /v1
 * route's `config.operation`, the operation's `errors` plus those of every /v1 route); the status
 * of each code from the error table the error handler answers with, checked against the spec's.
 */
import { readFile } from "node:fs/promises";
import Fastify from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonV1Errors, publicRouteErrors } from "../../../api/schemas.ts";
import type { Services } from "../../../api/services.ts";
import v1Routes from "../../../api/v1/index.ts";
import { type ErrorCode, errorStatus } from "../../../shared/errors.ts";
import type { Operation } from "../../../shared/operations/operation.ts";
import { startTestApp, type TestApp } from "../../support/app.ts";

const SPEC = new URL("../../../../shared/spec/api-v1.md", import.meta.url);

/** Codes the service answers that the spec's table does not list, each with why. */
const SERVICE_CODES: Partial<Record<ErrorCode, number>> = {
  // A browser's request to /v1 (keys are server-side credentials): DESIGN.md, browsers.
  cross_origin_forbidden: 403,
  // A node starting, waiting for PostgreSQL or Redis (Retry-After: 5).
  service_unavailable: 503,
};

type Json = Record<string, unknown>;
interface ErrorAnswer {
  content: { "application/json": { schema: Json } };
}
interface OpenApiDoc {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, ErrorAnswer> }>>;
  components: { schemas: Record<string, Json> };
}

let t: TestApp;
let doc: OpenApiDoc;
/** `METHOD /path` (OpenAPI form) -> the operation its /v1 handler performs. */
const v1Operations = new Map<string, Operation>();

beforeAll(async () => {
  t = await startTestApp();
  const response = await t.app.inject({ url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  doc = response.json() as OpenApiDoc;

  // The /v1 routes as registered, read as Fastify hands them over: each with its operation.
  const routes = Fastify();
  routes.setValidatorCompiler(validatorCompiler);
  routes.setSerializerCompiler(serializerCompiler);
  routes.decorate("authenticate", async () => {});
  routes.decorate("enforceRateLimit", async () => {});
  routes.addHook("onRoute", (route) => {
    const operation = (route.config as { operation?: Operation } | undefined)?.operation;
    if (!operation || route.method === "HEAD") return;
    const path = route.url.replace(/:([a-z_]+)/g, "{$1}");
    v1Operations.set(`${String(route.method).toUpperCase()} ${path}`, operation);
  });
  // No request is served: the routes' handlers never run, so no services are needed.
  await routes.register(v1Routes, { prefix: "/v1", services: {} as Services });
  await routes.ready();
  await routes.close();
});
afterAll(() => t?.close());

function resolve(schema: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const found = doc.components.schemas[ref.replace("#/components/schemas/", "")];
  expect(found, ref).toBeDefined();
  return found as Json;
}

/** The `code` enum of one error answer. */
function codeEnum(answer: ErrorAnswer): string[] {
  const body = resolve(answer.content["application/json"].schema);
  const error = resolve((body.properties as Record<string, Json>).error as Json);
  const code = (error.properties as Record<string, Json>).code as Json;
  return [...(code.enum as string[])].sort();
}

/** What each documented route answers: its codes, from the declaration its handler uses. */
function answeredCodes(method: string, path: string): readonly ErrorCode[] {
  if (path === "/openapi.json") return publicRouteErrors;
  if (path === "/v1/docs") return ["cross_origin_forbidden", ...publicRouteErrors];
  const operation = v1Operations.get(`${method.toUpperCase()} ${path}`);
  expect(operation, `${method} ${path} is a /v1 operation route`).toBeDefined();
  return [...(operation?.errors ?? []), ...commonV1Errors];
}

describe("the error table", () => {
  it("answers each of the spec's codes with the spec's status, and states why for any other", async () => {
    const spec = await readFile(SPEC, "utf8").catch((error: unknown) => {
      throw new Error(
        `The spec is missing: expected ${SPEC.pathname}, the shared/ folder beside the checkout (CI always has it).`,
        { cause: error },
      );
    });
    const section = spec.slice(
      spec.indexOf("## Errors"),
      spec.indexOf("\n## ", spec.indexOf("## Errors") + 1),
    );
    const rows = [...section.matchAll(/^\| (\d{3}) \| ([a-z_]+) \|/gm)].map((row) => ({
      status: Number(row[1]),
      code: row[2] as string,
    }));
    expect(rows.length).toBeGreaterThanOrEqual(13);
    const table: Record<string, number> = { ...errorStatus };
    for (const { code, status } of rows) expect(table[code], code).toBe(status);
    const beyondSpec = Object.keys(table).filter((code) => !rows.some((row) => row.code === code));
    expect(Object.fromEntries(beyondSpec.map((code) => [code, table[code]]))).toEqual(SERVICE_CODES);
  });
});

describe("per-status error enums in /openapi.json", () => {
  it("reads the /v1 routes' operations from their registration", () => {
    expect([...v1Operations.keys()].sort()).toEqual([
      "GET /v1/credits",
      "GET /v1/leads",
      "GET /v1/leads/{id}",
      "POST /v1/leads/{id}/outreach-draft",
      "POST /v1/searches",
    ]);
  });

  it("lists under each error status exactly the codes the route answers with that status", () => {
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const codes = answeredCodes(method, path);
        const statuses = new Set(codes.map((code) => String(errorStatus[code])));
        const documented = Object.keys(operation.responses).filter((status) => /^[45]/.test(status));
        expect(documented.sort(), `${method} ${path}: its error statuses`).toEqual([...statuses].sort());
        for (const status of documented) {
          const expected = codes.filter((code) => String(errorStatus[code]) === status);
          expect(codeEnum(operation.responses[status] as ErrorAnswer), `${method} ${path} ${status}`).toEqual(
            [...new Set(expected)].sort(),
          );
          checked += 1;
        }
      }
    }
    // 7 routes; each answers at least 400, 500 and 503.
    expect(checked).toBeGreaterThanOrEqual(21);
  });

  it("never lists internal_error under a 400, nor a 4xx code under a 5xx", () => {
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, answer] of Object.entries(operation.responses)) {
          if (!/^[45]/.test(status)) continue;
          for (const code of codeEnum(answer))
            expect(errorStatus[code as ErrorCode], code).toBe(Number(status));
        }
      }
    }
  });
});
