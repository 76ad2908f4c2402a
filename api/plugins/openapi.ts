import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";
import type { CostLimits } from "../../shared/cost-guard.ts";

export interface OpenApiOptions {
  publicUrl: string;
  rateLimits: { readPerMinute: number; searchPerMinute: number };
  costLimits: CostLimits;
}

/** `/openapi.json` is generated from the same zod schemas that validate requests. */
async function openApiPlugin(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const { readPerMinute, searchPerMinute } = options.rateLimits;
  const { paid, free_trial: trial } = options.costLimits;
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Lead Discovery and Outreach Drafting API",
        version: "1.0.0",
        description: [
          "Find local businesses whose websites need work, keep them as a workspace lead list, and draft a grounded outreach email per lead.",
          "",
          `Rate limits in force, per API key (or OAuth token): ${readPerMinute} requests per minute shared by GET /v1/leads, GET /v1/leads/{id}, GET /v1/credits and POST /v1/leads/{id}/outreach-draft; ${searchPerMinute} requests per minute for POST /v1/searches, in its own bucket. Over the limit: 429 rate_limited with Retry-After: 60. Limited responses carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers. An OAuth access token counts against the API key that approved its grant.`,
          "",
          `Cost limits in force, per workspace and hour, on work that is not charged in credits: places-provider pages read by searches (${paid.provider_pages}; free trial ${trial.provider_pages}), live website checks (${paid.live_checks}; free trial ${trial.live_checks}) and outreach-draft attempts (${paid.draft_attempts}; free trial ${trial.draft_attempts}). A search that cannot read one page, and a draft over the limit, answer 429 rate_limited with Retry-After: 60; a search that runs out mid-scan answers what it found with truncated: true.`,
          "",
          "Every error response is `{ error: { code, message } }`. The markdown reference is at GET /v1/docs.",
        ].join("\n"),
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description: "A workspace API key: `Authorization: Bearer <API_KEY>`. Server-side use only.",
          },
          oauth2: {
            type: "oauth2",
            description: "Workspace-scoped access for assistant clients (authorization code flow with PKCE).",
            flows: {
              authorizationCode: {
                authorizationUrl: `${options.publicUrl}/oauth/authorize`,
                tokenUrl: `${options.publicUrl}/oauth/token`,
                scopes: { email: "email address", profile: "basic profile" },
              },
            },
          },
        },
      },
      "x-rate-limits": {
        read: { requests_per_minute: readPerMinute, per: "api_key" },
        search: { requests_per_minute: searchPerMinute, per: "api_key" },
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
          "x-rate-limit": { bucket, requests_per_minute: perMinute, per: "api_key" },
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
        },
      },
    },
    async () => {
      document ??= markOptionalBodies(app.swagger() as OpenApiDocument);
      return document;
    },
  );
}

export default fp(openApiPlugin, { name: "openapi" });

interface JsonSchema {
  $ref?: string;
  anyOf?: JsonSchema[];
  type?: string;
}
interface OpenApiDocument {
  paths?: Record<
    string,
    Record<
      string,
      { requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> } }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

/**
 * @fastify/swagger marks every request body required; a body whose schema also accepts null
 * (the outreach draft's) is optional, and the document must say so.
 */
function markOptionalBodies(document: OpenApiDocument): OpenApiDocument {
  const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined =>
    schema?.$ref ? document.components?.schemas?.[schema.$ref.replace("#/components/schemas/", "")] : schema;
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody;
      const schema = resolve(body?.content?.["application/json"]?.schema);
      if (body && schema?.anyOf?.some((branch) => resolve(branch)?.type === "null")) body.required = false;
    }
  }
  return document;
}
