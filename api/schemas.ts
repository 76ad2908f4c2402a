import { z } from "zod";
import { type ErrorCode, errorStatus } from "../shared/errors.ts";

/**
 * One error object schema per operation and status, named `<OperationId><Status>ErrorResponse` in
 * the document, its `code` the enum of exactly the codes that operation answers with that status
 * (a generated client gets a closed union per answer: a 400 never lists `internal_error`). Built
 * from two sources only: the spec's table of code -> status (`errorStatus`, which the error handler
 * answers with) and the codes the route declares. Never named `Error`: that would shadow the
 * language's own `Error` in generated code. Kept per name so that every app built in one process
 * shares one zod schema (a registry id can be registered once).
 */
const errorSchemas = new Map<string, { codes: readonly ErrorCode[]; schema: z.ZodType }>();
const declaredCodes = new Map<string, readonly ErrorCode[]>();

/** The error codes an operation declared through `errorResponses`. */
export const declaredErrorCodes = (operationId: string): readonly ErrorCode[] =>
  declaredCodes.get(operationId) ?? [];

function errorSchemaOf(operationId: string, status: number, codes: readonly ErrorCode[]): z.ZodType {
  const name = `${operationId[0]!.toUpperCase()}${operationId.slice(1)}${status}ErrorResponse`;
  const known = errorSchemas.get(name);
  if (known) {
    if (known.codes.join() !== codes.join())
      throw new Error(`${name} is declared twice with different codes`);
    return known.schema;
  }
  const schema = z
    .object({
      error: z.object({
        code: z
          .enum(codes as [ErrorCode, ...ErrorCode[]])
          .describe(`Machine-readable error code: one of those this operation answers with status ${status}`),
        message: z.string().describe("Human-readable explanation"),
      }),
    })
    .meta({ id: name, description: `The error object of ${operationId} with status ${status}` });
  errorSchemas.set(name, { codes, schema });
  return schema;
}

/** The codes grouped by the status each is answered with (the spec's table), in the given order. */
function codesByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/**
 * Response entries for the listed error codes, one per status, for a route's `schema.response`:
 * what is documented under a status is exactly what the error handler can send with it.
 */
export function errorResponses(operationId: string, codes: readonly ErrorCode[]): Record<number, unknown> {
  const unique = [...new Set(codes)];
  const known = declaredCodes.get(operationId);
  if (known && known.join() !== unique.join())
    throw new Error(`${operationId} declares two lists of error codes`);
  declaredCodes.set(operationId, unique);
  const responses: Record<number, unknown> = {};
  for (const [status, statusCodes] of codesByStatus(unique)) {
    responses[status] = {
      description: `Error: ${statusCodes.join(" or ")}`,
      content: { "application/json": { schema: errorSchemaOf(operationId, status, statusCodes) } },
    };
  }
  return responses;
}

/**
 * Every authenticated /v1 route can answer these. `invalid_request`: an unknown query parameter
 * (refused on every route). `service_unavailable`: what a node answers on every route while it
 * starts and waits for PostgreSQL or Redis (with Retry-After).
 */
export const commonV1Errors = [
  "invalid_request",
  "invalid_api_key",
  "cross_origin_forbidden",
  "rate_limited",
  "rate_limit_unavailable",
  "internal_error",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];

/** What the public reference routes can answer: an unknown query parameter, a failure, start-up. */
export const publicRouteErrors = [
  "invalid_request",
  "internal_error",
  "service_unavailable",
] as const satisfies readonly ErrorCode[];

export const v1Security: { [scheme: string]: string[] }[] = [
  { bearerAuth: [] },
  { oauth2: ["email", "profile"] },
];
