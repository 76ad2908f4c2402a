import swagger from "@fastify/swagger";
import type { FastifyInstance, RouteOptions } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";
import type { CostLimits } from "../../shared/cost-guard.ts";
import { type ErrorCode, errorStatus } from "../../shared/errors.ts";
import { TERMS_PATH } from "../../shared/legal-pages.ts";
import { CLIENT_REQUEST_ID_MAX_LENGTH, CLIENT_REQUEST_ID_PATTERN } from "../request-id.ts";
import { declaredErrorCodes, errorResponses, publicRouteErrors } from "../schemas.ts";

interface OpenApiOptions {
  publicUrl: string;
  rateLimits: { readPerMinute: number; searchPerMinute: number };
  costLimits: CostLimits;
  accessTokenTtlSeconds: number;
  /** The operator's address, when set (OPERATOR_CONTACT_EMAIL). */
  contactEmail: string | undefined;
}

/** Who a request is counted against, in words and in `x-rate-limit(s)`. */
const COUNTED_PER = {
  api_key: "the API key",
  oauth_token:
    "the workspace member who approved the token, in that workspace (all their connections together)",
} as const;

/** `/openapi.json` is generated from the same zod schemas that validate requests. */
async function openApiPlugin(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const { readPerMinute, searchPerMinute } = options.rateLimits;
  const { paid, free_trial: trial } = options.costLimits;
  const { publicUrl } = options;
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Lead Discovery and Outreach Drafting API",
        version: "1.0.0",
        termsOfService: `${publicUrl}${TERMS_PATH}`,
        contact: {
          name: "The operator of this service",
          url: `${publicUrl}${TERMS_PATH}`,
          ...(options.contactEmail ? { email: options.contactEmail } : {}),
        },
        description: [
          "Find local businesses whose websites need work, keep them as a workspace lead list, and draft a grounded outreach email per lead.",
          "",
          `Rate limits in force, counted per API key, and for an OAuth access token per workspace member who approved it, in that workspace (all of that member's connections to the workspace share one count; refreshing a token or approving a new client adds nothing): ${readPerMinute} requests per minute shared by GET /v1/leads, GET /v1/leads/{id}, GET /v1/credits and POST /v1/leads/{id}/outreach-draft; ${searchPerMinute} requests per minute for POST /v1/searches, in its own bucket. Every answer counted against a limit carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and RateLimit-Policy; over the limit: 429 rate_limited with Retry-After: 60.`,
          "",
          `Cost limits in force, per workspace and hour, on work that is not charged in credits: places-provider pages read by searches (${paid.provider_pages}; free trial ${trial.provider_pages}), live website checks (${paid.live_checks}; free trial ${trial.live_checks}) and outreach-draft attempts (${paid.draft_attempts}; free trial ${trial.draft_attempts}). A search that cannot read one page, and a draft over the limit, answer 429 rate_limited with Retry-After: 60; a search that runs out mid-scan answers what it found with truncated: true.`,
          "",
          "Unknown query parameters are refused on every route of this document: 400 invalid_request naming the parameter.",
          "",
          "Every error response is `{ error: { code, message } }`; under each error status, `code` is the enum of the codes the operation answers with that status. The markdown reference is at GET /v1/docs.",
        ].join("\n"),
      },
      servers: [
        {
          url: publicUrl,
          description: "The node that served this document (its PUBLIC_URL)",
          "x-internal": false,
        },
      ],
      tags: [
        { name: "Searches", description: "Find businesses and save them as leads (charged per new place)" },
        { name: "Leads", description: "The workspace's saved leads, and outreach drafts for them" },
        { name: "Credits", description: "The workspace's credit balance" },
        { name: "Reference", description: "This document and the markdown reference (no authentication)" },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description: "A workspace API key: `Authorization: Bearer <API_KEY>`. Server-side use only.",
          },
          oauth2: {
            type: "oauth2",
            description: `Workspace-scoped access for assistant clients: authorization code flow with PKCE (S256). Access tokens are opaque random strings (not JWTs) that expire after ${options.accessTokenTtlSeconds} seconds; refresh tokens rotate on every use.`,
            flows: {
              authorizationCode: {
                authorizationUrl: `${publicUrl}/oauth/authorize`,
                tokenUrl: `${publicUrl}/oauth/token`,
                refreshUrl: `${publicUrl}/oauth/token`,
                scopes: { email: "email address", profile: "basic profile" },
              },
            },
          },
        },
        headers: RESPONSE_HEADERS,
      },
      "x-rate-limits": {
        read: { requests_per_minute: readPerMinute, window_seconds: 60, per: COUNTED_PER },
        search: { requests_per_minute: searchPerMinute, window_seconds: 60, per: COUNTED_PER },
      },
      "x-cost-limits": { per: "workspace", window_seconds: 3600, paid, free_trial: trial },
    } as Record<string, unknown>,
    // Each rate-limited operation states its bucket and the limit in force.
    transform: (input) => {
      const output = jsonSchemaTransform(input);
      const bucket = input.route.config?.rateLimitBucket;
      if (!bucket) return output;
      const perMinute = bucket === "search" ? searchPerMinute : readPerMinute;
      return {
        ...output,
        schema: {
          ...output.schema,
          "x-rate-limit": { bucket, requests_per_minute: perMinute, window_seconds: 60, per: COUNTED_PER },
        },
      };
    },
    transformObject: jsonSchemaTransformObject,
  });

  let document: OpenApiDocument | undefined;
  app.get(
    "/openapi.json",
    {
      schema: {
        operationId: "getOpenApi",
        summary: "This OpenAPI 3.1 description",
        description: "No authentication.",
        tags: ["Reference"],
        security: [],
        response: {
          200: {
            description: "The OpenAPI 3.1 document",
            content: { "application/json": { schema: z.looseObject({}) } },
          },
          ...errorResponses("getOpenApi", publicRouteErrors),
        },
      },
    },
    async () => {
      document ??= finishDocument(app.swagger() as OpenApiDocument);
      return document;
    },
  );
}

export default fp(openApiPlugin, { name: "openapi" });

const noQueryParameters = z.strictObject({});

/**
 * Every route of the document treats unknown query parameters alike: refused with 400
 * invalid_request naming the parameter (a typo such as `?limt=5` is never silently ignored). A
 * documented route without a query schema takes none. Routes outside the document (OAuth, whose
 * RFC says to ignore unknown parameters; the console; operations) are left as they are.
 */
export function refuseUnknownQueryParameters(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema || schema.hide || !("operationId" in schema) || schema.querystring) return;
  route.schema = { ...schema, querystring: noQueryParameters };
}

const integerHeader = (description: string) => ({
  description,
  schema: { type: "integer", format: "int32", minimum: 0, maximum: 2_147_483_647 },
});
const always = { required: true } as const;

/**
 * Every header the service sends on an answer of a documented route, besides HTTP's own framing
 * (Content-Type, Content-Length, Date, Connection, Keep-Alive). A Reference Object takes no
 * `required` beside its `$ref`, so `required` is stated here, on the headers every answer carries;
 * the others say in words when they are sent.
 */
const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description:
      "This request's id, in every log line about it: the client's own X-Request-Id when it is a sane token, else a fresh UUID",
    ...always,
    schema: { type: "string", maxLength: CLIENT_REQUEST_ID_MAX_LENGTH, pattern: CLIENT_REQUEST_ID_PATTERN },
  },
  "Cache-Control": {
    description: "Answers carry workspace data: never stored by a cache",
    ...always,
    schema: { type: "string", enum: ["no-store"] },
  },
  "X-Content-Type-Options": {
    description: "The body is never to be sniffed into another type",
    ...always,
    schema: { type: "string", enum: ["nosniff"] },
  },
  "RateLimit-Limit": integerHeader(
    "Requests allowed per window in this operation's bucket. Sent on every answer counted against the limit: always on 2XX and 429, and on the errors found after counting",
  ),
  "RateLimit-Remaining": integerHeader("Requests left in the current window (sent with RateLimit-Limit)"),
  "RateLimit-Reset": integerHeader("Seconds until the current window ends (sent with RateLimit-Limit)"),
  "RateLimit-Policy": {
    description: "The bucket's policy, `<limit>;w=<window seconds>` (sent with RateLimit-Limit)",
    schema: { type: "string", maxLength: 32, pattern: "^[0-9]+;w=[0-9]+$" },
  },
  "Retry-After": integerHeader(
    "Seconds to wait before trying again: always on 429 (60); on 503 service_unavailable while the node starts (5)",
  ),
};
type HeaderName = keyof typeof RESPONSE_HEADERS;

/** Codes answered before the request is counted against a rate limit: no RateLimit-* on them. */
const ANSWERED_BEFORE_COUNTING = new Set<ErrorCode>([
  "invalid_api_key",
  "cross_origin_forbidden",
  "rate_limit_unavailable",
  "service_unavailable",
]);

interface JsonSchema {
  $ref?: string;
  anyOf?: JsonSchema[];
  type?: string;
}
interface HeaderRef {
  $ref: string;
}
interface Response {
  description: string;
  headers?: Record<string, HeaderRef>;
}
interface Operation {
  operationId?: string;
  "x-rate-limit"?: unknown;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, Response>;
}
interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

function finishDocument(document: OpenApiDocument): OpenApiDocument {
  openAnswerObjects(document);
  oneSchemaPerShape(document);
  markOptionalBodies(document);
  declareResponseHeaders(document);
  return document;
}

/**
 * Which headers each answer carries. X-Request-Id, Cache-Control and X-Content-Type-Options: every
 * answer. RateLimit-*: the answers of a rate-limited operation that can come after the request was
 * counted (not a 401, a cross-origin 403, nor a 503). Retry-After: 429, and the 503 of a node that
 * is starting (`service_unavailable`).
 */
function declareResponseHeaders(document: OpenApiDocument): void {
  const ref = (name: HeaderName): HeaderRef => ({ $ref: `#/components/headers/${name}` });
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const codes = declaredErrorCodes(operation.operationId ?? "");
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const statusCodes = codes.filter((code) => String(errorStatus[code]) === status);
        const names: HeaderName[] = ["X-Request-Id", "Cache-Control", "X-Content-Type-Options"];
        const counted =
          status.startsWith("2") || statusCodes.some((code) => !ANSWERED_BEFORE_COUNTING.has(code));
        if (operation["x-rate-limit"] && counted) {
          names.push("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy");
        }
        if (status === "429" || statusCodes.includes("service_unavailable")) names.push("Retry-After");
        response.headers = Object.fromEntries(names.map((name) => [name, ref(name)]));
      }
    }
  }
}

/**
 * zod describes what a `z.object` *outputs*, after stripping unknown keys, as
 * `additionalProperties: false`. On an answer that is a promise v1 does not make: new fields may
 * appear at any time and clients must ignore those they do not know. So answers' objects (the
 * answer-side components, as the type provider names them, and inline answer schemas) say
 * nothing about other properties; requests' objects keep `false` (unknown fields are refused).
 */
function openAnswerObjects(document: OpenApiDocument): void {
  const open = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) open(item);
    } else if (node && typeof node === "object") {
      const record = node as Record<string, unknown>;
      if (record.additionalProperties === false) delete record.additionalProperties;
      for (const value of Object.values(record)) open(value);
    }
  };
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if (!name.endsWith("Input")) open(schema);
  }
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) open(operation.responses);
  }
}

/**
 * fastify-type-provider-zod emits every named schema twice, `X` for answers and `XInput` for
 * requests, whether or not both are used and whether or not they differ. One schema per shape:
 * an `XInput` is named `X` when only it is used, merged into `X` when both are used and alike, and
 * kept only where the two really differ; unused components are dropped.
 */
function oneSchemaPerShape(document: OpenApiDocument): void {
  const schemas = document.components?.schemas;
  if (!schemas) return;
  const PREFIX = "#/components/schemas/";
  const used = (): Set<string> => {
    const found = new Set<string>();
    const pending = [JSON.stringify({ ...document, components: { ...document.components, schemas: {} } })];
    while (pending.length > 0) {
      for (const match of pending.pop()!.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
        const name = match[1]!;
        if (found.has(name) || !schemas[name]) continue;
        found.add(name);
        pending.push(JSON.stringify(schemas[name]));
      }
    }
    return found;
  };
  const inUse = used();
  const withoutInputSuffix = (schema: JsonSchema) => JSON.stringify(schema).replace(/Input"/g, '"');
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith("Input") || !inUse.has(name)) continue;
    const base = name.slice(0, -"Input".length);
    const twin = schemas[base];
    if (!twin || !inUse.has(base)) renames.set(name, base);
    else if (withoutInputSuffix(twin) === withoutInputSuffix(schemas[name]!)) renames.set(name, base);
  }
  const renamed = (text: string) =>
    text.replace(/"#\/components\/schemas\/([^"]+)"/g, (whole, name: string) => {
      const target = renames.get(name);
      return target ? `"${PREFIX}${target}"` : whole;
    });
  for (const [from, to] of renames) {
    if (!inUse.has(to)) schemas[to] = schemas[from]!;
    delete schemas[from];
  }
  if (document.paths) document.paths = JSON.parse(renamed(JSON.stringify(document.paths)));
  for (const name of Object.keys(schemas)) schemas[name] = JSON.parse(renamed(JSON.stringify(schemas[name])));
  const stillUsed = used();
  for (const name of Object.keys(schemas)) if (!stillUsed.has(name)) delete schemas[name];
}

/**
 * @fastify/swagger marks every request body required; a body whose schema also accepts null
 * (the outreach draft's) is optional, and the document must say so.
 */
function markOptionalBodies(document: OpenApiDocument): void {
  const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined =>
    schema?.$ref ? document.components?.schemas?.[schema.$ref.replace("#/components/schemas/", "")] : schema;
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody;
      const schema = resolve(body?.content?.["application/json"]?.schema);
      if (body && schema?.anyOf?.some((branch) => resolve(branch)?.type === "null")) body.required = false;
    }
  }
}
